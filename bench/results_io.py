"""Shared output of every benchmark: a printed table and a JSON file in ``bench/results/``.

JSON keys: ``benchmark``, ``machine`` (GPU name, or the CPU model when no GPU), ``host`` (GPU
name/count, torch/CUDA versions, host CPU model and cores), ``date``,
``commit``, ``rows`` and ``summary`` (a flat dict of the headline numbers). Runs on the GPU
machine with only torch (optional) and the standard library.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aipipe.host import cpu_model

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def machine_name() -> str:
    """The GPU's name when CUDA is available, else ``cpu:<processor>``."""
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    model = cpu_model()
    return f"cpu:{model}"


def cpu_mhz() -> float | None:
    """The first core's clock now (``/proc/cpuinfo``'s "cpu MHz"); None where it is not reported."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return round(float(line.split(":", 1)[1]), 1)
    return None


def threads_per_core() -> int | None:
    """Hardware threads per physical core as Linux sees them (2 on an SMT host: two "cores" share one core's
    units, so a process alone runs faster than beside a busy sibling); None where sysfs does not say."""
    with contextlib.suppress(OSError, ValueError):
        siblings = Path("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read_text().strip()
        return count_cpu_list(siblings)
    return None


def count_cpu_list(cpu_list: str) -> int:
    """How many CPUs a kernel CPU list names (``"0-1,8"``: 3)."""
    total = 0
    for part in cpu_list.split(","):
        first, _, last = part.partition("-")
        total += int(last or first) - int(first) + 1
    return total


def host_info() -> dict[str, Any]:
    """The machine a result belongs to: GPU (name, count, driver) and host CPU (model, cores this process may use,
    threads per physical core, clock)."""
    info: dict[str, Any] = {"cpu_model": cpu_model(), "cpu_cores": os.cpu_count(), "cpu_mhz": cpu_mhz(),
                            "cpu_threads_per_core": threads_per_core()}
    with contextlib.suppress(AttributeError):  # not Linux
        info["cpu_cores_usable"] = len(os.sched_getaffinity(0))
    try:
        import torch

        if torch.cuda.is_available():
            info.update(gpu=torch.cuda.get_device_name(0), gpu_count=torch.cuda.device_count(),
                        torch=str(torch.__version__), cuda=str(torch.version.cuda))
    except ImportError:
        pass
    return info


def commit_id() -> str:
    """The git commit of the checkout (``AIPIPE_COMMIT`` overrides, for copies without .git)."""
    if os.environ.get("AIPIPE_COMMIT"):
        return os.environ["AIPIPE_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=RESULTS_DIR.parent, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def print_table(rows: Sequence[Mapping[str, Any]]) -> None:
    """Print rows as an aligned text table (column order of the first row)."""
    if not rows:
        return
    cols = list(rows[0])
    cells = [[_fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def write_result(benchmark: str, rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                 out_dir: Path | None = None, extra: Mapping[str, Any] | None = None) -> Path:
    """Print the table and summary, and write ``<benchmark>_<machine>_<date>.json`` (``extra``: more top-level
    keys, e.g. how the run was set up)."""
    machine = machine_name()
    now = dt.datetime.now(dt.UTC)
    doc = {"benchmark": benchmark, "machine": machine, "host": host_info(), "date": now.isoformat(timespec="seconds"),
           "commit": commit_id(), **(extra or {}), "rows": list(rows), "summary": dict(summary)}
    print_table(rows)
    print("summary:", json.dumps(doc["summary"]))
    slug = "".join(ch if ch.isalnum() else "-" for ch in machine.lower()).strip("-")[:40]
    target = (out_dir or Path(os.environ.get("AIPIPE_BENCH_OUT", RESULTS_DIR)))
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{benchmark}_{slug}_{now:%Y%m%d}.json"
    path.write_text(json.dumps(doc, indent=2, default=str))
    print("wrote", path)
    return path
