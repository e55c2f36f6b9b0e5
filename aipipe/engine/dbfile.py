"""One sqlite file shared by threads and processes: a connection per thread, WAL, immediate writes."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path


class SqliteFile:
    """Base of the stores kept in ``engine.db``: subclasses name their tables in ``SCHEMA``."""

    SCHEMA = ""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # the home: run records are private
        self._local = threading.local()
        self._conn().executescript(self.SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout=30000")
            self._use_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def _use_wal(self, conn: sqlite3.Connection, patience_s: float = 30.0) -> None:
        """Switch the file to WAL (a no-op once it is). Processes creating the file at the same moment can meet
        sqlite's lock-upgrade deadlock, which it answers with "database is locked" at once, without calling the
        busy handler; so a locked switch is tried again, with jitter, for up to ``patience_s``."""
        deadline = time.monotonic() + patience_s
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.005, 0.05))
        if mode != "wal":
            raise sqlite3.OperationalError(f"{self.path}: sqlite kept journal mode {mode!r}; WAL is needed")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken at once (BEGIN IMMEDIATE), rolled back on any exception."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
