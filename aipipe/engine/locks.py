"""``synchronization`` mutexes on one machine: a lock file per mutex under ``<home>/locks``.

``flock`` on a file descriptor opened per acquisition excludes other threads of this process and
other engine processes (``aipipe run`` in two terminals, the server) alike.
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
from pathlib import Path

from aipipe.errors import UserError

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class MutexRegistry:
    """Acquires named mutexes, waiting (interruptibly) while another holder has them."""

    def __init__(self, root: Path, cancelled: threading.Event, poll: float = 0.05) -> None:
        self.root = root
        self.cancelled = cancelled
        self.poll = poll

    def _path(self, name: str) -> Path:
        if not name:
            raise UserError("a mutex needs a name", field="synchronization.mutex.name")
        return self.root / f"{_SAFE.sub('_', name)}.lock"

    def acquire(self, names: list[str]) -> list[int]:
        """Hold every named mutex (sorted, so two holders never deadlock); returns the held descriptors."""
        if not names:
            return []
        self.root.mkdir(parents=True, exist_ok=True)
        held: list[int] = []
        try:
            for name in sorted(set(names)):
                fd = os.open(self._path(name), os.O_RDWR | os.O_CREAT, 0o600)
                held.append(fd)
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if self.cancelled.wait(self.poll):
                            raise InterruptedError("stopped while waiting for a mutex") from None
        except BaseException:
            self.release_all(held)
            raise
        return held

    @staticmethod
    def release_all(held: list[int] | None) -> None:
        for fd in held or []:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
