"""Preempting a running node: SIGTERM to its main process, a grace period to checkpoint, then SIGKILL.

A :class:`Guard` watches one grant of a preemptible node (a thread polling the pool); when the pool marks the
grant for a waiter of higher priority, it signals the node and records the preemptor, so the node runner can
queue the node again (not a retry) instead of failing it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from aipipe.engine.runners.local import terminate

PREEMPTED = "preempted, requeued"


class Process(Protocol):
    """What the guard needs of a started node (``pid``: its supervisor, when it has one)."""

    def running_after(self, timeout: float) -> bool: ...

    def kill(self) -> None: ...


class Guard:
    """Watches a grant; ``fired`` once the node was told to go, ``preemptor`` the waiter it went for."""

    def __init__(self) -> None:
        self.fired = threading.Event()
        self.preemptor: int | None = None

    @classmethod
    def idle(cls) -> Guard:
        """A guard that never fires (a node that is not preemptible)."""
        return cls()

    @classmethod
    def start(cls, notice: Callable[[], tuple[bool, int | None]], process: Process, grace_s: float,
              poll_s: float) -> Guard:
        """Poll ``notice()`` (held, preempted for) every ``poll_s`` until the grant is released or marked."""
        guard = cls()
        thread = threading.Thread(target=guard._watch, args=(notice, process, grace_s, poll_s), daemon=True,
                                  name="gpu-preemption-guard")
        thread.start()
        return guard

    def _watch(self, notice: Callable[[], tuple[bool, int | None]], process: Process, grace_s: float,
               poll_s: float) -> None:
        while True:
            time.sleep(poll_s)
            held, preemptor = notice()
            if not held:
                return
            if preemptor is not None:
                self.preemptor = preemptor
                self.fired.set()
                pid = getattr(process, "pid", None)
                if isinstance(pid, int):
                    terminate(pid)
                if process.running_after(grace_s):
                    process.kill()
                return
