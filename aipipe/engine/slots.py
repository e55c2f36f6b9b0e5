"""A ``parallelism``: at most ``n`` holders at once, a freed slot going to the waiter first in the run's walk order."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable

from aipipe.engine.settle import settled

# Where a node sits in Argo's walk of the run: the indexes of its step group, step or task, and loop item, from the
# top (``NodeRef.order``). Tuples compare as the walk meets their nodes.
WalkOrder = tuple[int, ...]

_handed = threading.local()  # the Slots whose slot this thread was handed before it started (see Slots.run_handed)


class Slots:
    """A template's or the workflow's ``parallelism`` (None or 0: unbounded).

    Argo's controller starts the nodes waiting for a slot in the order each reconcile walks them (a nested loop's
    pods one by one, item 0 first), not in the order they began to wait; so a freed slot is handed to the waiter
    with the smallest walk order (ties: the earliest), and never to whoever grabs it first.
    """

    def __init__(self, n: int | None) -> None:
        self.free = n or None
        self.lock = threading.Lock()
        self.waiting: list[tuple[WalkOrder, int, threading.Event]] = []
        self.arrivals = itertools.count()

    def acquire(self, order: WalkOrder = ()) -> None:
        """Wait for a slot; the slot is this caller's once it returns."""
        if self.free is None:
            return
        if getattr(_handed, "slots", None) is self:  # taken for this thread before it started: it is ours
            _handed.slots = None
            settled()
            return
        with self.lock:
            if self.free > 0:  # a free slot means nobody waits: release hands slots to waiters
                self.free -= 1
                handed = None
            else:
                handed = threading.Event()
                heapq.heappush(self.waiting, (order, next(self.arrivals), handed))
        settled()  # holding or queued: the walk moves on to the next sibling
        if handed is not None:
            handed.wait()

    def release(self) -> None:
        """Give the slot back: to the first waiter in walk order, if any."""
        if self.free is None:
            return
        with self.lock:
            if self.waiting:
                heapq.heappop(self.waiting)[2].set()
            else:
                self.free += 1

    def run_handed(self, work: Callable[[], None]) -> None:
        """Run ``work`` in this thread, which holds a slot acquired for it before it started (a loop that starts
        each item only once a slot is free for it): the thread's first :meth:`acquire` takes that slot instead of
        queueing, and a slot ``work`` never asked for (its item was refused or failed before its node) is
        released when it returns."""
        _handed.slots = self
        try:
            work()
        finally:
            if getattr(_handed, "slots", None) is self:
                _handed.slots = None
                self.release()
