"""What every step's ``__main__`` uses: typed flags, the exit-code wrapper, output files, Argo progress, the
GPU memory cap of a share.

Kept free of heavy imports so steps import it on GPU images (torch only when a memory cap is granted).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aipipe.contract import OUTPUTS_DIR, StepSpec
from aipipe.errors import AipipeError, ExitCode, UserError
from aipipe.flags import FlagsT, flag_parser, parse_flags
from aipipe.gpushare import GPU_MEMORY_ENV

CONTEXT_ENV = "AIPIPE_GPU_CONTEXT_MB"  # MiB a CUDA process holds outside PyTorch's allocator (context, kernels)
CONTEXT_MB = 1024


def outputs_dir() -> Path:
    """Where output parameters go: ``AIPIPE_OUTPUTS_DIR`` or ``/tmp/outputs``."""
    return Path(os.environ.get("AIPIPE_OUTPUTS_DIR", OUTPUTS_DIR))


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return "" if value is None else str(value)


def write_outputs(spec: StepSpec, values: Mapping[str, Any]) -> Path:
    """Write each declared output parameter to ``<outputs_dir>/<name>``; all must be given."""
    missing = set(spec.output_names()) - set(values)
    unknown = set(values) - set(spec.output_names())
    if missing or unknown:
        raise ValueError(f"{spec.name}: outputs mismatch: missing {sorted(missing)}, unknown {sorted(unknown)}")
    out = outputs_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        (out / name).write_text(_render(value))
    return out


def write_report(name: str, report: Mapping[str, Any]) -> Path:
    """Write a JSON report artifact ``<outputs_dir>/<name>``."""
    out = outputs_dir()
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(report, indent=2, sort_keys=True, default=str))
    return path


def report_progress(done: int, total: int) -> None:
    """Write Argo's ``ARGO_PROGRESS_FILE`` (``N/M``) when running under Argo or the engine.

    Written beside the target and renamed into place, so a reader never sees a half-written value."""
    target = os.environ.get("ARGO_PROGRESS_FILE")
    if target:
        staging = Path(f"{target}.{os.getpid()}.tmp")
        staging.write_text(f"{done}/{total}")
        os.replace(staging, target)


def memory_fraction(cap_mb: int, total_bytes: int) -> float:
    """The part of a GPU of ``total_bytes`` that ``cap_mb`` MiB is (at most all of it)."""
    if cap_mb <= 0 or total_bytes <= 0:
        raise ValueError(f"need a positive cap and total, got {cap_mb} MiB of {total_bytes} bytes")
    return min(1.0, cap_mb * 2**20 / total_bytes)


def allocator_mb(cap_mb: int, outside_mb: int = CONTEXT_MB) -> int:
    """What PyTorch's allocator may take of a ``cap_mb`` share: the share is the process's whole footprint as
    NVML (and the pool's watchdog) sees it, so the CUDA context and the libraries' kernels (``outside_mb``,
    at most half the share) are left out of it."""
    return cap_mb - min(outside_mb, cap_mb // 2)


def _outside_mb(env: Mapping[str, str]) -> int:
    raw = env.get(CONTEXT_ENV, str(CONTEXT_MB))
    if not raw.isdigit():
        raise UserError(f"must be a number of MiB >= 0, got {raw!r}", field=CONTEXT_ENV)
    return int(raw)


def granted_gpu_memory_mb(env: Mapping[str, str]) -> int | None:
    """The GPU memory (MiB) the engine's pool granted the node (``AIPIPE_GPU_MEMORY_MB``), None without a share."""
    raw = env.get(GPU_MEMORY_ENV)
    if not raw:
        return None
    if not raw.isdigit() or int(raw) <= 0:
        raise UserError(f"must be a positive number of MiB, got {raw!r}", field=GPU_MEMORY_ENV)
    return int(raw)


def apply_gpu_memory_cap(env: Mapping[str, str] | None = None) -> list[float]:
    """Keep PyTorch within the GPU memory granted to the node (``AIPIPE_GPU_MEMORY_MB``, set by the embedded
    engine's pool) on every visible GPU, less what CUDA keeps outside the allocator (``AIPIPE_GPU_CONTEXT_MB``,
    default 1024); the fractions set, [] without a cap, torch or CUDA."""
    env = os.environ if env is None else env
    granted = granted_gpu_memory_mb(env)
    if granted is None:
        return []
    allowed = allocator_mb(granted, _outside_mb(env))
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    fractions = []
    for device in range(torch.cuda.device_count()):
        fraction = memory_fraction(allowed, int(torch.cuda.get_device_properties(device).total_memory))
        torch.cuda.set_per_process_memory_fraction(fraction, device)
        fractions.append(fraction)
    return fractions


def run_step(step: str, main: Callable[[], Any], gpu_cap: bool = True) -> None:
    """Run a step's main (within its GPU memory cap; ``gpu_cap=False``: the step keeps to its share itself);
    map errors to contract exit codes with one clear line, no traceback."""
    try:
        if gpu_cap:
            apply_gpu_memory_cap()
        main()
    except AipipeError as exc:
        print(f"{step}: error: {exc}", file=sys.stderr)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        print(f"{step}: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(int(ExitCode.OK))


def parse_step_args(
    spec: StepSpec,
    model: type[FlagsT],
    argv: list[str] | None = None,
    extend: Callable[[argparse.ArgumentParser], None] | None = None,
) -> FlagsT:
    """Parse a step's argv into its typed flags ``model``: the contract's flags model (``spec.flags``)
    or a subclass adding the step's own options (tuning knobs that are no contract input).

    ``extend`` may adjust the parser (an epilog, a default taken from the config). An unknown or
    missing flag or a value outside an enum exits 2 (argparse's usage error); a value of the wrong
    type or out of range is a UserError naming the flag (exit 2 through :func:`run_step`).
    """
    if spec.flags is None or not issubclass(model, spec.flags):
        raise TypeError(f"{spec.name}: {model.__name__} is not the contract's flags model or a subclass of it")
    parser = flag_parser(f"python -m {spec.module}", spec.description, spec.inputs, model)
    parser.epilog = "outputs (files under $AIPIPE_OUTPUTS_DIR or /tmp/outputs): " + ", ".join(
        spec.output_names()) + ". Exit codes: 0 ok, 2 input error, 3 service unavailable."
    if extend is not None:
        extend(parser)
    return parse_flags(model, parser.parse_args(argv))
