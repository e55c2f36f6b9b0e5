"""What the cron controller and the event endpoint remember, kept in the run store (``engine.db``).

Three tables beside the engine's own: each CronWorkflow's schedule state (by uid, so a deleted
and re-created CronWorkflow starts afresh), the delivery keys an event binding has seen (an
annotation id, an object's ETag: a repeated delivery is recognised) and the per-binding counters
of new items (the "N new annotations" threshold). All survive a restart of ``aipipe server``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from aipipe.engine.dbfile import SqliteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cron_state (
    uid TEXT PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_keys (
    namespace TEXT NOT NULL, binding TEXT NOT NULL, key TEXT NOT NULL, seen REAL NOT NULL,
    PRIMARY KEY (namespace, binding, key));
CREATE TABLE IF NOT EXISTS event_counters (
    namespace TEXT NOT NULL, binding TEXT NOT NULL, grp TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (namespace, binding, grp));
"""


@dataclass
class CronState:
    """One CronWorkflow's schedule state (times in epoch seconds)."""

    considered: float  # schedule points up to here were handled (run, skipped or missed)
    last_scheduled: float | None = None  # the last time a run was created
    succeeded: int = 0
    failed: int = 0
    counted: list[str] = field(default_factory=list)  # finished children already counted


@dataclass(frozen=True)
class Admission:
    """What one delivery did to a binding: how many of its keys were new, and whether it fires."""

    new_keys: int
    count: int
    fire: bool


class TriggerStore(SqliteFile):
    """Thread-safe access to the trigger tables of ``engine.db`` (one connection per thread)."""

    SCHEMA = _SCHEMA

    @classmethod
    def from_home(cls, home: Path) -> TriggerStore:
        return cls(Path(home) / "engine.db")

    # -- cron ------------------------------------------------------------------------------
    def cron_state(self, uid: str) -> CronState | None:
        row = self._conn().execute("SELECT state FROM cron_state WHERE uid = ?", (uid,)).fetchone()
        return None if row is None else CronState(**json.loads(row[0]))

    def save_cron_state(self, uid: str, namespace: str, name: str, state: CronState) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO cron_state (uid, namespace, name, state) VALUES (?, ?, ?, ?)",
                       (uid, namespace, name, json.dumps(state.__dict__)))

    def forget_cron_states(self, keep: Iterable[str]) -> None:
        """Drop the state of CronWorkflows that no longer exist (uids not in ``keep``)."""
        keep = set(keep)
        rows = self._conn().execute("SELECT uid FROM cron_state").fetchall()
        gone = [r[0] for r in rows if r[0] not in keep]
        if gone:
            with self._write() as db:
                db.executemany("DELETE FROM cron_state WHERE uid = ?", [(uid,) for uid in gone])

    # -- events ----------------------------------------------------------------------------
    def admit(self, namespace: str, binding: str, keys: list[str], group: str, threshold: int, now: float
              ) -> Admission:
        """Record ``keys`` for ``binding`` and add the new ones to ``group``'s counter, in one transaction.

        Fires when the counter reaches ``threshold`` (then it starts again from 0). An event without keys
        counts as one new item; one whose keys were all seen before is a repeated delivery (never fires)."""
        with self._write() as db:
            new = 0
            for key in keys:
                cur = db.execute("INSERT OR IGNORE INTO event_keys (namespace, binding, key, seen) VALUES (?, ?, ?, ?)",
                                 (namespace, binding, key, now))
                new += cur.rowcount
            if not keys:
                new = 1
            if new == 0:
                return Admission(0, self._count(db, namespace, binding, group), False)
            count = self._count(db, namespace, binding, group) + new
            fire = count >= threshold
            db.execute("INSERT OR REPLACE INTO event_counters (namespace, binding, grp, count) VALUES (?, ?, ?, ?)",
                       (namespace, binding, group, 0 if fire else count))
            return Admission(new, count, fire)

    @staticmethod
    def _count(db: sqlite3.Connection, namespace: str, binding: str, group: str) -> int:
        row = db.execute("SELECT count FROM event_counters WHERE namespace = ? AND binding = ? AND grp = ?",
                         (namespace, binding, group)).fetchone()
        return int(row[0]) if row else 0

    def counter(self, namespace: str, binding: str, group: str) -> int:
        return self._count(self._conn(), namespace, binding, group)
