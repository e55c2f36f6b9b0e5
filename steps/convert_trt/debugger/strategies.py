"""Marking strategies: which layers to mark (compare) next while searching for the earliest bad layer.

A strategy walks the layers in topological order. ``marks()`` names the layers to mark in the next
evaluation (``None`` once done); ``step(success)`` reports whether all of them were within
tolerance. ``suspects`` then holds the layers among which the earliest failure lies, in order.

- ``linear``: windows of ``window`` consecutive layers (all layers at once by default, which costs
  one evaluation when marking is free, as with the reference evaluator or PyTorch hooks);
- ``bisect``: binary search for the first failing layer, one marked layer per evaluation
  (log2(N) evaluations; for engines where marking many outputs changes the engine, as in TensorRT).
  It assumes an out-of-tolerance layer taints the layers after it, which holds for overflows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, get_args


class MarkingStrategy(Protocol):
    suspects: list[str]

    def marks(self) -> list[str] | None: ...

    def step(self, success: bool) -> None: ...


class LinearStrategy:
    """Mark consecutive windows of layers until one contains a failure."""

    def __init__(self, layers: Sequence[str], window: int | None = None) -> None:
        self.layers = list(layers)
        self.window = max(1, window or len(self.layers) or 1)
        self.start = 0
        self.suspects: list[str] = []
        self._done = not self.layers

    def marks(self) -> list[str] | None:
        return None if self._done else self.layers[self.start:self.start + self.window]

    def step(self, success: bool) -> None:
        window = self.layers[self.start:self.start + self.window]
        if not success:
            self.suspects = window
            self._done = True
            return
        self.start += self.window
        self._done = self.start >= len(self.layers)


class BisectStrategy:
    """Binary search for the first failing layer."""

    def __init__(self, layers: Sequence[str]) -> None:
        self.layers = list(layers)
        self.lo, self.hi = 0, len(self.layers)  # the first failure lies in layers[lo:hi], or nowhere
        self.suspects: list[str] = []
        self._failed_hi = False

    def _mid(self) -> int:
        return (self.lo + self.hi) // 2

    def marks(self) -> list[str] | None:
        if self.lo >= self.hi:
            if self._failed_hi and self.lo < len(self.layers):
                self.suspects = [self.layers[self.lo]]
            return None
        return [self.layers[self._mid()]]

    def step(self, success: bool) -> None:
        mid = self._mid()
        if success:
            self.lo = mid + 1
        else:
            self.hi = mid
            self._failed_hi = True


Strategy = Literal["linear", "bisect"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)


def make_strategy(name: str, layers: Sequence[str], window: int | None = None) -> MarkingStrategy:
    if name == "linear":
        return LinearStrategy(layers, window)
    if name == "bisect":
        return BisectStrategy(layers)
    raise ValueError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)})")
