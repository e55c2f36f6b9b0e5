"""A resumable, DDP-aware batch sampler.

Each epoch's order is a permutation seeded by ``seed + epoch`` (call :meth:`set_epoch`, as with
``DistributedSampler``). The epoch is cut into blocks of ``batch_size``; optimizer step ``k`` uses
blocks ``k*W*A … (k+1)*W*A − 1`` (``W`` ranks, ``A`` accumulation micro-batches), and rank ``r``
takes block ``i*W + r`` as its ``i``-th micro-batch. So one process accumulating ``W*A`` micro-batches
sees exactly the samples of a ``W``-rank DDP step, and a resumed run can start at any step.

Every key is ``(dataset index, sample seed)``: augmentation draws from the sample seed, so the
data stream is the same whatever the worker count, and after a resume.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant (golden ratio) to spread seeds


def sample_seed(seed: int, epoch: int, index: int) -> int:
    """A 63-bit seed for one sample's augmentation in one epoch."""
    value = (seed * _MIX + epoch) * _MIX + index
    return (value ^ (value >> 29)) & ((1 << 63) - 1)


class ShardedEpochSampler:
    """Yields this rank's micro-batches of ``(index, sample_seed)`` keys for the current epoch."""

    def __init__(self, num_items: int, batch_size: int, *, seed: int = 0, shuffle: bool = True,
                 rank: int = 0, world_size: int = 1, grad_accum: int = 1) -> None:
        if batch_size < 1 or grad_accum < 1:
            raise ValueError("batch_size and grad_accum must be >= 1")
        self.num_items = num_items
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.rank = rank
        self.world_size = world_size
        self.grad_accum = grad_accum
        self.epoch = 0
        self.start_step = 0

    @property
    def steps_per_epoch(self) -> int:
        """Optimizer steps per epoch (the last partial global batch is dropped)."""
        return self.num_items // (self.batch_size * self.world_size * self.grad_accum)

    def set_epoch(self, epoch: int, start_step: int = 0) -> None:
        """Select the epoch's permutation; ``start_step`` skips steps already done (resume)."""
        self.epoch = epoch
        self.start_step = start_step

    def __len__(self) -> int:
        return (self.steps_per_epoch - self.start_step) * self.grad_accum

    def __iter__(self) -> Iterator[list[tuple[int, int]]]:
        if self.shuffle:
            generator = torch.Generator().manual_seed(self.seed + self.epoch)
            order = torch.randperm(self.num_items, generator=generator).tolist()
        else:
            order = list(range(self.num_items))
        first = self.start_step * self.grad_accum
        for micro in range(first, self.steps_per_epoch * self.grad_accum):
            block = micro * self.world_size + self.rank
            indices = order[block * self.batch_size:(block + 1) * self.batch_size]
            yield [(i, sample_seed(self.seed, self.epoch, i)) for i in indices]
