"""Sizing: how many model replicas (GPU processes) fit a GPU memory budget, and how many CPU workers feed them.

The footprint of one replica is the conversion step's ``memory_mb``, measured through NVML with the CUDA
context included, so it is what a process really takes on the device. A share of the budget is held back
as headroom (allocator fragmentation, a driver's own use); the rest is split evenly between the replicas,
and each replica's cap is its even share, never less than its footprint.

CPU workers (decode, preprocess, postprocess) scale with the share of the GPU's compute the service gets:
a whole GPU needs about ``cpu_workers_per_gpu`` workers to stay busy, half a GPU half as many.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any

from aipipe.errors import UserError

DEFAULT_HEADROOM_PERCENT = 2.0
DEFAULT_CPU_WORKERS_PER_GPU = 8
# A replica never counts for less: without a GPU the conversion step measures RSS growth, which can
# round to 0 for a tiny model (on a GPU the CUDA context alone is ~500 MiB).
MIN_FOOTPRINT_MIB = 64


@dataclass(frozen=True)
class Sizing:
    """The service's shape; every field shows in the step's outputs or report."""

    memory_mb: int  # measured footprint of one replica (MiB, CUDA context included)
    budget_mib: int  # GPU memory the whole service may use
    headroom_mib: int  # held back from the budget
    replicas: int  # GPU processes, one model replica each
    gpu_memory_mb_per_replica: int  # memory cap of each GPU process (MiB, context included)
    compute_percent: int  # share of the GPU's compute
    cpu_workers: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _positive_int(value: Any, field: str, *, allow_zero: bool = False) -> int:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise UserError(f"expected a number, got {value!r}", field=field) from None
    if not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        raise UserError(f"must be a positive number, got {value!r}", field=field)
    return math.ceil(number)


def usable_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def size_service(
    memory_mb: Any,
    budget_mib: Any,
    compute_percent: Any,
    *,
    headroom_percent: float = DEFAULT_HEADROOM_PERCENT,
    cpu_workers_per_gpu: int = DEFAULT_CPU_WORKERS_PER_GPU,
    max_cpu_workers: int | None = None,
) -> Sizing:
    """Fit replicas of ``memory_mb`` into ``budget_mib`` less headroom; derive CPU workers from the compute share.

    A budget that cannot hold one replica is the user's error (exit 2), naming the flag to change.
    """
    footprint = max(MIN_FOOTPRINT_MIB, _positive_int(memory_mb, "memory-mb", allow_zero=True))
    budget = _positive_int(budget_mib, "gpu-memory-mib")
    compute = _positive_int(compute_percent, "gpu-compute-percent")
    if compute > 100:
        raise UserError(f"must be at most 100, got {compute_percent!r}", field="gpu-compute-percent")
    if not 0 <= headroom_percent < 100:
        raise UserError(f"must be in [0, 100), got {headroom_percent!r}", field="headroom-percent")
    headroom = math.ceil(budget * headroom_percent / 100)
    usable = budget - headroom
    replicas = usable // footprint
    if replicas < 1:
        raise UserError(f"a budget of {budget} MiB ({usable} MiB after {headroom_percent:g}% headroom) cannot hold "
                        f"one replica of {footprint} MiB; raise it to at least "
                        f"{math.ceil(footprint / (1 - headroom_percent / 100))} MiB", field="gpu-memory-mib")
    workers = max(1, math.ceil(cpu_workers_per_gpu * compute / 100))
    if max_cpu_workers is not None:
        workers = max(1, min(workers, max_cpu_workers))
    return Sizing(memory_mb=footprint, budget_mib=budget, headroom_mib=headroom, replicas=replicas,
                  gpu_memory_mb_per_replica=usable // replicas, compute_percent=compute, cpu_workers=workers)
