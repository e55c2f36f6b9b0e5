"""One GPU pool per machine (per AIPIPE_HOME): a lease table and a queue every engine process shares.

Kept in a small sqlite file, ``<state dir>/locks/gpus/pool.db``, rather than a flock'd JSON file: a grant is a
read-decide-write (who waits ahead, what is held, where the request fits) that ``BEGIN IMMEDIATE`` makes atomic
across processes, the queue is an ordered query, and readers (``aipipe gpus``, the server) never see half a
write. It is its own file, not the run store's ``engine.db``: the engine core knows its state folder, not the
store built on top of it.

Liveness: every process holds an exclusive ``flock`` on ``owners/<owner>.lock`` for as long as it lives; rows
whose owner's file can be locked by someone else belong to a dead driver and are deleted (leases reclaimed,
waits dropped) by whoever looks next.

Queue: waiters in order of the workflow's ``spec.priority`` (higher first), then arrival. Strict order: a waiter
is granted only when every waiter ahead of it fits too (their room is kept for them), so a large request at the
front is never overtaken by small ones.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.engine.dbfile import SqliteFile
from aipipe.engine.gpu import GpuRequest, Inventory, Lease, fits_at_all, gpu_request, place
from aipipe.engine.nodes import NodeTree
from aipipe.errors import UserError

POLL_S = 0.25
GPU_MEMORY_ENV = "AIPIPE_GPU_MEMORY_MB"  # a node with a memory share reads its cap (MiB) here
WAITING = "waiting for GPU (queue position {position})"


def pool_dir(state_dir: Path) -> Path:
    return state_dir / "locks" / "gpus"


class PoolFile(SqliteFile):
    """The lease and queue tables."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS leases (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, run TEXT NOT NULL,
        node TEXT NOT NULL, gpu INTEGER NOT NULL, memory_mb INTEGER, since REAL NOT NULL);
    CREATE TABLE IF NOT EXISTS waiters (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, run TEXT NOT NULL,
        node TEXT NOT NULL, priority INTEGER NOT NULL, count INTEGER NOT NULL, memory_mb INTEGER,
        since REAL NOT NULL);
    """

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        (folder / "owners").mkdir(exist_ok=True, mode=0o700)
        self.folder = folder
        super().__init__(folder / "pool.db")

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction in which the rows of dead owners are gone first."""
        with self._write() as conn:
            owners = {r[0] for r in conn.execute("SELECT owner FROM leases UNION SELECT owner FROM waiters")}
            for owner in owners:
                if not self._alive(owner):
                    conn.execute("DELETE FROM leases WHERE owner = ?", (owner,))
                    conn.execute("DELETE FROM waiters WHERE owner = ?", (owner,))
                    (self.folder / "owners" / f"{owner}.lock").unlink(missing_ok=True)
            yield conn

    def _alive(self, owner: str) -> bool:
        """Whether ``owner``'s process still holds its owner file (a new descriptor conflicts even in-process)."""
        try:
            fd = os.open(self.folder / "owners" / f"{owner}.lock", os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False


@dataclass(frozen=True)
class Grant:
    """What a node holds: the leases' row ids and where they are."""

    ids: tuple[int, ...]
    leases: tuple[Lease, ...]

    @property
    def devices(self) -> str:
        return ",".join(str(lease.gpu) for lease in self.leases)


class MachinePool:
    """This process's handle on the machine's pool (one per state folder: :func:`machine_pool`)."""

    def __init__(self, state_dir: Path) -> None:
        self.file = PoolFile(pool_dir(state_dir))
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._owner_fd = os.open(self.file.folder / "owners" / f"{self.owner}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._owner_fd, fcntl.LOCK_EX)

    def acquire(self, inventory: Inventory, request: GpuRequest, run: str, node: str, priority: int,
                cancelled: threading.Event, on_wait: Callable[[int], None]) -> Grant | None:
        """Wait in the queue until ``request`` is granted (the Grant) or ``cancelled`` is set (None).
        ``on_wait(position)`` is called when the node starts waiting and whenever its position changes."""
        why = fits_at_all(inventory, request)
        if why:
            raise UserError(why, field="resources")
        with self.file.write() as conn:
            me = conn.execute("INSERT INTO waiters (owner, run, node, priority, count, memory_mb, since) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)", (self.owner, run, node, priority, request.count,
                                                                request.memory_mb, time.time())).lastrowid
        shown = 0
        try:
            while True:
                grant, position = self._try(inventory, int(me or 0))
                if grant is not None:
                    return grant
                if position != shown:
                    shown = position
                    on_wait(position)
                if cancelled.wait(POLL_S):
                    return None
        finally:
            with self.file.write() as conn:
                conn.execute("DELETE FROM waiters WHERE id = ?", (me,))

    def _try(self, inventory: Inventory, me: int) -> tuple[Grant | None, int]:
        """One look at the queue: the grant when it is this waiter's turn and it fits, else its position."""
        with self.file.write() as conn:
            held = [Lease(int(r["gpu"]), r["memory_mb"]) for r in conn.execute("SELECT gpu, memory_mb FROM leases")]
            rows = conn.execute("SELECT * FROM waiters ORDER BY priority DESC, id").fetchall()
            for position, row in enumerate(rows, start=1):
                placed = place(inventory, held, GpuRequest(int(row["count"]), row["memory_mb"]))
                if row["id"] == me:
                    if placed is None:
                        return None, position
                    ids = [int(conn.execute("INSERT INTO leases (owner, run, node, gpu, memory_mb, since) "
                                            "VALUES (?, ?, ?, ?, ?, ?)", (self.owner, row["run"], row["node"],
                                                                          lease.gpu, lease.memory_mb,
                                                                          time.time())).lastrowid or 0)
                           for lease in placed]
                    conn.execute("DELETE FROM waiters WHERE id = ?", (me,))
                    return Grant(tuple(ids), tuple(placed)), 0
                if placed is None:  # strict order: what waits ahead and does not fit holds the rest back
                    mine = [i for i, r in enumerate(rows, start=1) if r["id"] == me]
                    return None, mine[0] if mine else len(rows) + 1
                held += placed  # kept for the waiter ahead, who takes it at its next look
        return None, 1

    def release(self, grant: Grant | None) -> None:
        """Give a node's GPUs back (the moment it ends)."""
        if grant is None or not grant.ids:
            return
        with self.file.write() as conn:
            conn.executemany("DELETE FROM leases WHERE id = ? AND owner = ?", [(i, self.owner) for i in grant.ids])


class RunGpus:
    """One run's side of the pool: its name and priority, the machine's inventory, the no-GPU fallback."""

    def __init__(self, state_dir: Path, inventory: Callable[[], Inventory], run: str, priority: int,
                 fallback: str = "cpu", resource: str = "nvidia.com/gpu") -> None:
        if fallback not in ("cpu", "fail"):
            raise UserError(f"must be cpu or fail, got {fallback!r}", field="engine.gpu_fallback")
        self.state_dir, self.run, self.priority = state_dir, run, priority
        self.fallback, self.resource = fallback, resource
        self._detect: Callable[[], Inventory] = inventory
        self._inventory: Inventory | None = None
        self._lock = threading.Lock()

    @property
    def inventory(self) -> Inventory:
        """The machine's GPUs, looked up when a node of the run first asks for one."""
        with self._lock:
            if self._inventory is None:
                self._inventory = self._detect()
            return self._inventory

    def request(self, template: dict[str, Any]) -> GpuRequest | None:
        return gpu_request(template, self.resource)

    def acquire(self, request: GpuRequest, nid: str, tree: NodeTree,
                cancelled: threading.Event) -> tuple[Grant | None, str]:
        """(grant, warning); the node shows ``Pending: waiting for GPU (queue position N)`` while it waits.
        No GPU on the machine: (None, warning) for the cpu fallback, UserError for fail."""
        if not self.inventory.gpus:
            if self.fallback == "fail":
                raise UserError(f"the step requests {request.describe()} but this machine has none "
                                "(set engine.gpu_fallback=cpu to run it on CPU)", field="resources")
            return None, (f"warning: {request.count} GPU(s) requested but none found; running on CPU "
                          "(engine.gpu_fallback=cpu)")
        before: list[Any] = []

        def waiting(position: int) -> None:
            if not before:
                before.append((tree.get(nid) or {}).get("phase") or "Pending")
            tree.put(nid, phase="Pending", message=WAITING.format(position=position))
            tree.commit()

        try:
            grant = machine_pool(self.state_dir).acquire(self.inventory, request, self.run, nid, self.priority,
                                                         cancelled, waiting)
        finally:
            if before:
                tree.put(nid, phase=before[0], message=None)
                tree.commit()
        return grant, ""

    def release(self, grant: Grant | None) -> None:
        if grant is not None:
            machine_pool(self.state_dir).release(grant)


_pools: dict[Path, MachinePool] = {}
_pools_lock = threading.Lock()


def machine_pool(state_dir: Path) -> MachinePool:
    """The process's one handle on the pool of ``state_dir`` (every run the process drives shares it)."""
    key = Path(state_dir).resolve()
    with _pools_lock:
        if key not in _pools:
            _pools[key] = MachinePool(key)
        return _pools[key]


def pool_report(state_dir: Path, inventory: Inventory) -> dict[str, Any]:
    """Each GPU (total and granted memory, its leases) and the queue, as ``aipipe gpus`` and the API show it."""
    pool = PoolFile(pool_dir(state_dir))
    try:
        with pool.write() as conn:
            leases = [dict(r) for r in conn.execute("SELECT run, node, gpu, memory_mb, since FROM leases ORDER BY id")]
            waiters = [dict(r) for r in conn.execute("SELECT run, node, priority, count, memory_mb, since "
                                                     "FROM waiters ORDER BY priority DESC, id")]
    finally:
        pool.close()
    known = inventory.by_index()
    gpus = []
    for index in sorted({*known, *(lease["gpu"] for lease in leases)}):
        info = known.get(index)
        mine = [lease for lease in leases if lease["gpu"] == index]
        total = info.memory_mb if info else 0
        whole = any(lease["memory_mb"] is None for lease in mine)
        granted = total if whole else sum(int(lease["memory_mb"]) for lease in mine)
        gpus.append({"index": index, "name": info.name if info else "", "memoryMiB": total, "grantedMiB": granted,
                     "freeMiB": max(total - granted, 0), "wholeGranted": whole,
                     "leases": [{"run": lease["run"], "node": lease["node"],
                                 "share": "whole" if lease["memory_mb"] is None else f"{lease['memory_mb']} MiB",
                                 "memoryMiB": lease["memory_mb"], "since": lease["since"]} for lease in mine]})
    queue = [{"position": i, "run": w["run"], "node": w["node"], "priority": w["priority"],
              "request": GpuRequest(int(w["count"]), w["memory_mb"]).describe(), "since": w["since"]}
             for i, w in enumerate(waiters, start=1)]
    return {"inventorySource": inventory.source, "gpus": gpus, "queue": queue}
