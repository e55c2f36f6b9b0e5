"""Per-step timing split into data wait and compute, and the hint when the loop is data-bound.

Wall time between consecutive :meth:`StepTimer.step_done` calls is the step time; the time spent
inside :meth:`StepTimer.data` (waiting for the next batch) is its data wait; the rest is compute.
On a GPU no per-step synchronisation is needed: the host blocks wherever the device is the
bottleneck, so sums over a window split correctly.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

DATA_BOUND_THRESHOLD = 0.10


@dataclass
class StepTimer:
    """Accumulates step and data-wait times since the last :meth:`reset`."""

    threshold: float = DATA_BOUND_THRESHOLD
    steps: int = 0
    samples: int = 0
    step_s: float = 0.0
    data_s: float = 0.0
    last_step_s: float = 0.0
    last_data_s: float = 0.0
    _pending_data_s: float = 0.0
    _mark: float = field(default_factory=time.perf_counter)

    def reset(self) -> None:
        """Start a new window (an epoch) now."""
        self.steps = self.samples = 0
        self.step_s = self.data_s = self._pending_data_s = 0.0
        self._mark = time.perf_counter()

    @contextmanager
    def data(self) -> Iterator[None]:
        """Wrap the wait for the next batch."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self._pending_data_s += time.perf_counter() - start

    def step_done(self, samples: int) -> None:
        """Close the current step (``samples`` images processed by it)."""
        now = time.perf_counter()
        self.last_step_s, self._mark = now - self._mark, now
        self.last_data_s, self._pending_data_s = self._pending_data_s, 0.0
        self.steps += 1
        self.samples += samples
        self.step_s += self.last_step_s
        self.data_s += self.last_data_s

    @property
    def data_wait_fraction(self) -> float:
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
