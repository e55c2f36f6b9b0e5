"""The run's cancellation as one node sees it: a Stop ends the run's nodes but not its exit handlers, which Argo
still runs (its ShutdownStrategy.ShouldExecute), so for them the run is not cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

POLL_S = 0.2


class Cancellation(Protocol):
    """What a node's work polls or waits on: ``threading.Event``'s reading side."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class NodeCancellation:
    """``cancelled`` unless ``spared()`` says the run's end does not reach this node (asked at each read)."""

    def __init__(self, cancelled: threading.Event, spared: Callable[[], bool]) -> None:
        self.cancelled = cancelled
        self.spared = spared

    def is_set(self) -> bool:
        return self.cancelled.is_set() and not self.spared()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until cancelled for this node (True) or ``timeout`` seconds pass (False)."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = POLL_S if end is None else min(POLL_S, end - time.monotonic())
            if left <= 0:
                return False
            if self.cancelled.is_set():  # the run is cancelled but this node is spared: only time passes
                time.sleep(left)
            else:
                self.cancelled.wait(left)
        return True
