"""The shared sqlite file: processes that create it at the same moment all get a working WAL store."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from aipipe.engine.dbfile import SqliteFile


class _Counts(SqliteFile):
    SCHEMA = "CREATE TABLE IF NOT EXISTS counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL);"


def _open_at(path: Path, start_at: float, errors: multiprocessing.Queue[str]) -> None:
    while time.time() < start_at:
        pass  # spin, so the processes really open the file together
    try:
        store = _Counts(path)
        with store._write() as conn:
            conn.execute("INSERT INTO counts VALUES ('opened', 1) ON CONFLICT(name) DO UPDATE SET n = n + 1")
        errors.put("")
    except Exception as exc:  # reported to the test, which names it
        errors.put(f"{type(exc).__name__}: {exc}")


def test_processes_creating_the_file_together_all_open_it(tmp_path: Path) -> None:
    """sqlite answers the WAL switch of a racing creator with "locked" without waiting; the store tries again."""
    context = multiprocessing.get_context("spawn")  # no inherited sqlite state
    processes = 4
    for trial in range(8):
        path = tmp_path / str(trial) / "engine.db"
        errors: multiprocessing.Queue[str] = context.Queue()
        start_at = time.time() + 1.0
        workers = [context.Process(target=_open_at, args=(path, start_at, errors)) for _ in range(processes)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [errors.get(timeout=5) for _ in workers] == [""] * processes, trial
        store = _Counts(path)
        assert store._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn().execute("SELECT n FROM counts").fetchone()[0] == processes
        store.close()
