"""Moving batches to the device: synchronously, or one batch ahead on a side CUDA stream.

:class:`CudaPrefetcher` issues the next batch's host→device copy (``non_blocking`` from pinned
memory) and its normalisation on a side stream while the current step computes on the default
stream. Before a batch is used the compute stream ``wait_stream``-s the side stream, and each
tensor is ``record_stream``-ed on the compute stream so the caching allocator does not reuse its
memory while the step still reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import torch

Batch = tuple[torch.Tensor, torch.Tensor]


@dataclass
class DevicePlacer:
    """Copies an ``(images uint8 NCHW, labels)`` batch to the device and normalises the images there.

    Sending uint8 moves a quarter of the bytes of float32; normalising on the device is nearly free.
    """

    device: torch.device
    mean: Sequence[float]
    std: Sequence[float]
    channels_last: bool = False
    _scale: torch.Tensor = field(init=False, repr=False)
    _shift: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        std = torch.tensor(self.std, dtype=torch.float32).view(1, -1, 1, 1)
        mean = torch.tensor(self.mean, dtype=torch.float32).view(1, -1, 1, 1)
        self._scale = (1.0 / (255.0 * std)).to(self.device)
        self._shift = (-mean / std).to(self.device)

    def normalise(self, x: torch.Tensor) -> torch.Tensor:
        """0..255 pixels already on the device -> float, normalised with the dataset's mean and std."""
        return torch.addcmul(self._shift, x.float(), self._scale)

    def __call__(self, batch: Batch) -> Batch:
        images, labels = batch
        non_blocking = self.device.type == "cuda"
        x = images.to(self.device, non_blocking=non_blocking)
        x = self.normalise(x) if x.dtype == torch.uint8 else x.float()
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return x, labels.to(self.device, non_blocking=non_blocking)


class HostBatches:
    """Place each batch on the device in the compute stream (no overlap): the plain baseline."""

    def __init__(self, batches: Iterable[Batch], placer: DevicePlacer) -> None:
        self.batches = batches
        self.placer = placer

    def __iter__(self) -> Iterator[Batch]:
        for batch in self.batches:
            yield self.placer(batch)


class CudaPrefetcher:
    """Iterate device batches, copying batch ``i+1`` on a side stream while batch ``i`` computes.

    With ``record_events`` the (start, end) CUDA events of every copy are kept in ``copy_events``,
    so a check can prove the copies overlapped with compute.
    """

    def __init__(self, batches: Iterable[Batch], placer: DevicePlacer, *, record_events: bool = False) -> None:
        if placer.device.type != "cuda":
            raise ValueError("the CUDA prefetcher needs a CUDA device")
        self.batches = batches
        self.placer = placer
        self.stream = torch.cuda.Stream(device=placer.device)
        self.record_events = record_events
        self.copy_events: list[tuple[torch.cuda.Event, torch.cuda.Event]] = []

    def _launch(self, it: Iterator[Batch]) -> Batch | None:
        try:
            host_batch = next(it)
        except StopIteration:
            return None
        with torch.cuda.stream(self.stream):
            if self.record_events:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record(self.stream)
            batch = self.placer(host_batch)
            if self.record_events:
                end.record(self.stream)
                self.copy_events.append((start, end))
        return batch

    def __iter__(self) -> Iterator[Batch]:
        it = iter(self.batches)
        upcoming = self._launch(it)
        while upcoming is not None:
            compute_stream = torch.cuda.current_stream(self.placer.device)
            compute_stream.wait_stream(self.stream)
            for tensor in upcoming:
                tensor.record_stream(compute_stream)
            current, upcoming = upcoming, self._launch(it)
            yield current
