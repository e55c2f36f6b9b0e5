"""Per-step timing split into data wait and compute, and the hint when the loop is data-bound.

Wall time between consecutive :meth:`StepTimer.step_done` calls is the step time. Data wait is
the time the loop waited for the next batch (inside :meth:`StepTimer.data`); the rest is compute.

Given a CUDA device, data wait is what the GPU waited: a timing event on the compute stream when
the wait starts and one when the batch is ready there; their gap is the time the device sat idle
for the batch. Host-side time would be wrong there: a step replayed as a CUDA graph returns at
once, so the host runs ahead and blocks on the loader while the GPU is still busy. The events are
read without synchronising (each step reads those already done; :meth:`StepTimer.flush` waits for
the rest at the end of a window).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

DATA_BOUND_THRESHOLD = 0.10


@dataclass
class StepTimer:
    """Accumulates step and data-wait times since the last :meth:`reset`."""

    threshold: float = DATA_BOUND_THRESHOLD
    device: torch.device | None = None  # a CUDA device: data wait is the GPU's idle gap (see the module)
    steps: int = 0
    samples: int = 0
    step_s: float = 0.0
    data_s: float = 0.0
    last_step_s: float = 0.0
    last_data_s: float = 0.0
    _pending_data_s: float = 0.0
    _mark: float = field(default_factory=time.perf_counter)
    _gaps: list[tuple[torch.cuda.Event, torch.cuda.Event]] = field(default_factory=list)

    @property
    def _on_gpu(self) -> bool:
        return self.device is not None and self.device.type == "cuda"

    def reset(self) -> None:
        """Start a new window (an epoch) now."""
        self.flush()
        self.steps = self.samples = 0
        self.step_s = self.data_s = self._pending_data_s = 0.0
        self._mark = time.perf_counter()

    @contextmanager
    def data(self) -> Iterator[None]:
        """Wrap the wait for the next batch."""
        if self._on_gpu:
            stream = torch.cuda.current_stream(self.device)
            idle_from = torch.cuda.Event(enable_timing=True)
            idle_from.record(stream)
            try:
                yield
            finally:
                ready = torch.cuda.Event(enable_timing=True)
                ready.record(stream)
                self._gaps.append((idle_from, ready))
            return
        start = time.perf_counter()
        try:
            yield
        finally:
            self._pending_data_s += time.perf_counter() - start

    def _read_gaps(self, wait: bool) -> float:
        """Seconds of the recorded GPU gaps that are done (all of them with ``wait``); forgets those read."""
        total, kept = 0.0, []
        for idle_from, ready in self._gaps:
            if wait:
                ready.synchronize()
            if ready.query():
                total += idle_from.elapsed_time(ready) / 1000.0
            else:
                kept.append((idle_from, ready))
        self._gaps = kept
        return total

    def flush(self) -> None:
        """Wait for the GPU gaps still in flight and add them to the window's data wait."""
        if self._gaps:
            late = self._read_gaps(wait=True)
            self.data_s += late
            self.last_data_s += late

    def step_done(self, samples: int) -> None:
        """Close the current step (``samples`` images processed by it)."""
        now = time.perf_counter()
        self.last_step_s, self._mark = now - self._mark, now
        if self._on_gpu:
            self._pending_data_s = self._read_gaps(wait=False)  # earlier steps' gaps, read as they complete
        self.last_data_s, self._pending_data_s = self._pending_data_s, 0.0
        self.steps += 1
        self.samples += samples
        self.step_s += self.last_step_s
        self.data_s += self.last_data_s

    @property
    def data_wait_fraction(self) -> float:
        self.flush()
        return self.data_s / self.step_s if self.step_s > 0 else 0.0

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.step_s if self.step_s > 0 else 0.0

    def log_line(self) -> str:
        """``time <last> (<avg>) data_time <last> (<avg>)`` in seconds, like the classic trainer logs."""
        avg_step = self.step_s / max(self.steps, 1)
        avg_data = self.data_s / max(self.steps, 1)
        return f"time {self.last_step_s:.3f} ({avg_step:.3f}) data_time {self.last_data_s:.3f} ({avg_data:.3f})"

    def hint(self, num_workers: int) -> str | None:
        """Advice when data wait exceeds the threshold share of step time, else None."""
        fraction = self.data_wait_fraction
        if fraction <= self.threshold:
            return None
        return (f"hint: the loop waits for data {fraction:.0%} of step time (> {self.threshold:.0%}): raise "
                f"--num-workers (now {num_workers}), keep pin_memory and the CUDA prefetcher on, or store "
                "smaller/pre-resized images")
