"""Argo's walk order, kept while a fan-out's children start in threads of their own.

Argo's controller creates a steps group's or a DAG's children one after another in one reconcile pass: a child
takes a free ``parallelism`` slot (or is left waiting for one) before the walk reaches its next sibling, and a
nested template's children are walked before that sibling too. Threads started all at once would instead race
for the first slot. While a bounded workflow ``parallelism`` still has a free slot, a fan-out therefore starts
each child's thread and waits until that child has *settled*: it holds or queues for a slot, waits for its own
children, a lock, a backoff or a resume, or has ended. Only then does the next sibling start. A child that blocks
somewhere no settle point covers holds its next sibling back for at most :data:`SETTLE_WAIT_S`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

SETTLE_WAIT_S = 2.0  # the longest a sibling waits for the one before it to settle

_local = threading.local()


def settled() -> None:
    """This thread's node has gone as far as Argo's walk takes it in one pass: the fan-out may start the next
    sibling. Without a waiting fan-out (or when said twice) nothing happens."""
    event: threading.Event | None = getattr(_local, "event", None)
    if event is not None:
        event.set()


def start(target: Callable[[], None], in_walk_order: bool) -> threading.Thread:
    """Run ``target`` in a daemon thread; with ``in_walk_order``, return only once it has settled."""
    event = threading.Event() if in_walk_order else None

    def run() -> None:
        _local.event = event
        try:
            target()
        finally:
            if event is not None:
                event.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if event is not None:
        event.wait(SETTLE_WAIT_S)
    return thread
