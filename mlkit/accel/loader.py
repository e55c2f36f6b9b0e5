"""DataLoader tuning: worker count from the CPUs this process may use, pinned memory, prefetch."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which honours container cpusets)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def auto_num_workers(local_world_size: int = 1) -> int:
    """Usable CPUs − 1 (one stays with the training process), shared among the node's ranks."""
    return max(usable_cpus() // max(local_world_size, 1) - 1, 0)


TRAINING_WORKER_NICE = 10  # on a GPU the training process must win the CPU to keep launching work (train_bench)


@dataclass(frozen=True)
class LoaderSettings:
    """How batches are produced on the host."""

    num_workers: int
    pin_memory: bool = True
    persistent_workers: bool = True
    prefetch_factor: int | None = 4
    worker_nice: int = 0  # added to each worker's niceness: the training process wins the CPU when it needs it

    def resolved(self) -> LoaderSettings:
        """Drop the options that only exist with worker processes when there are none."""
        if self.num_workers > 0:
            return self
        return LoaderSettings(0, self.pin_memory, False, None)


@dataclass(frozen=True)
class _NicedInit:
    """A worker_init_fn: lower the worker's priority by ``nice``, then call ``then`` (picklable for spawn)."""

    nice: int
    then: Callable[[int], None] | None

    def __call__(self, worker_id: int) -> None:
        os.nice(self.nice)
        if self.then is not None:
            self.then(worker_id)


def build_loader(dataset: Dataset[Any], batch_sampler: Iterable[list[Any]], settings: LoaderSettings,
                 *, collate_fn: Callable[[list[Any]], Any] | None = None,
                 worker_init_fn: Callable[[int], None] | None = None,
                 generator: torch.Generator | None = None) -> DataLoader[Any]:
    """A DataLoader over ``batch_sampler`` with the tuned settings (pinning only when a GPU exists)."""
    s = settings.resolved()
    if s.num_workers and s.worker_nice:
        worker_init_fn = _NicedInit(s.worker_nice, worker_init_fn)
    return DataLoader(
        dataset, batch_sampler=batch_sampler, num_workers=s.num_workers,
        pin_memory=s.pin_memory and torch.cuda.is_available(),
        persistent_workers=s.persistent_workers, prefetch_factor=s.prefetch_factor,
        collate_fn=collate_fn, worker_init_fn=worker_init_fn, generator=generator,
    )
