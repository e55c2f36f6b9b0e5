"""The GPU pool's over-cap watchdog (HAMi's active OOM killer, on one machine).

While a node holding a memory share runs, a thread reads the GPU memory each process uses every
:data:`INTERVAL_S`, sums it over the node's process tree (its supervisor and every descendant) and, when the sum
is over the node's share, stops the node: SIGTERM to its main process group, SIGKILL after :data:`GRACE_S`; the
node fails with :func:`over_cap_message`. A node granted whole GPUs is not watched.

Where the readings come from (:func:`usage_source`), first found:

- ``AIPIPE_GPU_USAGE_FILE`` in the engine's environment: a text file of ``PID MIB`` lines, a later line for a pid
  replacing an earlier one. A test seam: CPU tests let their steps say what they "use" through it, so the real
  engine path (sampling, process tree, stop, message) runs without a GPU;
- NVML (``nvidia-ml-py``): ``nvmlDeviceGetComputeRunningProcesses`` of every GPU;
- ``nvidia-smi --query-compute-apps``.

A reading is ``{pid: MiB}``, a process's use on the one GPU where it uses the most (a share's cap is per GPU).
NVML names processes by the pids of the host's PID namespace: an engine inside a container without the host's
PID namespace sees none of its nodes in the readings, and the watchdog stops nothing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from aipipe.engine.gpupreempt import Process
from aipipe.engine.proctree import descendants
from aipipe.engine.runners.local import terminate

USAGE_FILE_ENV = "AIPIPE_GPU_USAGE_FILE"
INTERVAL_S = 0.5
GRACE_S = 2.0

Usage = Callable[[], dict[int, int]]


def over_cap_message(used_mb: int, cap_mb: int) -> str:
    return f"used {used_mb} MiB of GPU memory, over its {cap_mb} MiB share; stopped by the GPU pool watchdog"


def tree_use(usage: Mapping[int, int], pids: Iterable[int]) -> int:
    """MiB the processes ``pids`` use together in ``usage``."""
    return sum(usage.get(pid, 0) for pid in set(pids))


def tree_pids(root: int) -> set[int]:
    """``root`` and every process below it."""
    return {root, *descendants(root)}


def file_usage(path: Path) -> Usage:
    """Readings from a ``PID MIB`` lines file (the test seam); a missing file reads as nothing used."""

    def read() -> dict[int, int]:
        try:
            text = path.read_text()
        except OSError:
            return {}
        usage: dict[int, int] = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                usage[int(parts[0])] = int(parts[1])
        return usage

    return read


def _merge(rows: Iterable[tuple[int, int]]) -> dict[int, int]:
    usage: dict[int, int] = {}
    for pid, mib in rows:
        usage[pid] = max(usage.get(pid, 0), mib)
    return usage


def nvml_usage() -> Usage | None:
    """Readings from NVML, None when the bindings or the driver are missing."""
    try:
        nvml: Any = importlib.import_module("pynvml")
        nvml.nvmlInit()  # counted by NVML: kept for the process's life
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]
    except (ImportError, AttributeError):
        return None
    except Exception as exc:  # pynvml.NVMLError: no driver, or no library behind the bindings
        if type(exc).__name__.startswith("NVMLError"):
            return None
        raise

    def read() -> dict[int, int]:
        rows = []
        for handle in handles:
            with contextlib.suppress(nvml.NVMLError):
                for proc in nvml.nvmlDeviceGetComputeRunningProcesses(handle):
                    used = getattr(proc, "usedGpuMemory", None)
                    if isinstance(used, int):  # None where the driver does not say (some containers)
                        rows.append((int(proc.pid), used // 2**20))
        return _merge(rows)

    return read


def smi_usage() -> Usage | None:
    """Readings from ``nvidia-smi``, None when it is not installed."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None

    def read() -> dict[int, int]:
        try:
            out = subprocess.run([smi, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=5, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return {}
        rows = []
        for line in out.splitlines():
            pid, _, mib = (p.strip() for p in line.partition(","))
            if pid.isdigit() and mib.isdigit():
                rows.append((int(pid), int(mib)))
        return _merge(rows)

    return read


@functools.cache
def _machine_source() -> tuple[Usage | None, str]:
    """NVML, else nvidia-smi (looked up once per process)."""
    nvml = nvml_usage()
    if nvml is not None:
        return nvml, "nvml"
    smi = smi_usage()
    return (smi, "nvidia-smi") if smi is not None else (None, "none")


def usage_source(env: Mapping[str, str] | None = None) -> tuple[Usage | None, str]:
    """(the readings, where they come from) for this engine process; (None, "none") without any source."""
    path = (os.environ if env is None else env).get(USAGE_FILE_ENV)
    if path:
        return file_usage(Path(path)), USAGE_FILE_ENV
    return _machine_source()


class Watchdog:
    """Watches one node's process tree; ``message`` is set once it stopped the node, ``peak_mb`` the most the
    tree used at one reading."""

    def __init__(self, cap_mb: int) -> None:
        self.cap_mb = cap_mb
        self.message: str | None = None
        self.peak_mb = 0

    @classmethod
    def start(cls, usage: Usage, process: Process, supervisor: int, cap_mb: int,
              interval_s: float = INTERVAL_S, grace_s: float = GRACE_S) -> Watchdog:
        """Sample until the node's process ends or it was stopped."""
        dog = cls(cap_mb)
        threading.Thread(target=dog._watch, args=(usage, process, supervisor, interval_s, grace_s), daemon=True,
                         name="gpu-watchdog").start()
        return dog

    def sample(self, usage: Mapping[int, int], pids: Iterable[int]) -> int | None:
        """One reading: the MiB used when over the cap (the node must go), else None."""
        used = tree_use(usage, pids)
        self.peak_mb = max(self.peak_mb, used)
        return used if used > self.cap_mb else None

    def _watch(self, usage: Usage, process: Process, supervisor: int, interval_s: float, grace_s: float) -> None:
        while process.running_after(interval_s):
            used = self.sample(usage(), tree_pids(supervisor))
            if used is None:
                continue
            self.message = over_cap_message(used, self.cap_mb)
            terminate(supervisor)
            if process.running_after(grace_s):
                process.kill()
            return
