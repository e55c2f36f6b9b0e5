"""One GPU pool per machine (per AIPIPE_HOME): a lease table and a queue every engine process shares.

Kept in a small sqlite file, ``<state dir>/locks/gpus/pool.db``, rather than a flock'd JSON file: a grant is a
read-decide-write (who waits ahead, what is held, where the request fits) that ``BEGIN IMMEDIATE`` makes atomic
across processes, the queue is an ordered query, and readers (``aipipe gpus``, the server) never see half a
write. It is its own file, not the run store's ``engine.db``: the engine core knows its state folder, not the
store built on top of it.

Liveness: every process holds an exclusive ``flock`` on ``owners/<owner>.lock`` for as long as it lives; rows
whose owner's file can be locked by someone else belong to a dead driver and are deleted (leases reclaimed,
waits dropped) by whoever looks next.

Queue, placement and preemption are :mod:`aipipe.engine.gpupolicy`'s: waiters by priority (the node's HAMi
``nvidia.com/priority`` when its template sets it, else the workflow's ``spec.priority``: :mod:`aipipe.engine.gpu`)
aged by ``engine.gpu_aging_s`` (default 300 s a level), strict order, bin-packing (``engine.gpu_placement: spread``
for the emptiest GPU); the variables ``AIPIPE_GPU_AGING_S`` / ``AIPIPE_GPU_PLACEMENT`` override the config file.
A head that does not fit marks the leases it preempts (``preempt_for``); the process holding them sees the mark
(:mod:`aipipe.engine.gpupreempt`), ends its node and queues it again behind the preemptor.
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
from aipipe.engine.gpu import GpuRequest, Inventory, Lease, fits_at_all, gpu_request, grace_seconds
from aipipe.engine.gpupolicy import BINPACK, Held, Waiter, admit, effective_priority, queue_order, victims
from aipipe.engine.gpupreempt import PREEMPTED, Guard, Process
from aipipe.engine.gpushare import mps_pipe, node_env, sharing_note
from aipipe.engine.gpuwatch import Watchdog, usage_source
from aipipe.engine.halt import Cancellation
from aipipe.engine.nodes import NodeTree
from aipipe.errors import UserError

POLL_S = 0.25
WAITING = "waiting for GPU (queue position {position})"
DEFAULT_POLICY = (300.0, BINPACK)  # (aging seconds per priority level, placement): engine.gpu_aging_s/_placement


def pool_dir(state_dir: Path) -> Path:
    return state_dir / "locks" / "gpus"


class PoolFile(SqliteFile):
    """The lease and queue tables."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS leases (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, run TEXT NOT NULL,
        node TEXT NOT NULL, gpu INTEGER NOT NULL, memory_mb INTEGER, cores INTEGER, priority INTEGER NOT NULL,
        preemptible INTEGER NOT NULL, since REAL NOT NULL, preempt_for INTEGER, preempt_at REAL);
    CREATE TABLE IF NOT EXISTS waiters (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, run TEXT NOT NULL,
        node TEXT NOT NULL, priority INTEGER NOT NULL, count INTEGER NOT NULL, memory_mb INTEGER, cores INTEGER,
        preemptible INTEGER NOT NULL, since REAL NOT NULL, behind INTEGER);
    """

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        (folder / "owners").mkdir(exist_ok=True, mode=0o700)
        self.folder = folder
        super().__init__(folder / "pool-v2.db")  # v2: compute shares, preemption

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

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """A plain read (WAL: the last committed state)."""
        return self._conn().execute(sql, args).fetchall()

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
    since: float = 0.0  # when the node first asked (kept when it is queued again after a preemption)

    @property
    def devices(self) -> str:
        return ",".join(str(lease.gpu) for lease in self.leases)


class MachinePool:
    """This process's handle on the machine's pool (one per state folder: :func:`machine_pool`)."""

    def __init__(self, state_dir: Path) -> None:
        self.file = PoolFile(pool_dir(state_dir))
        self.policy: tuple[float, str] = DEFAULT_POLICY  # set by each run from its settings
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._owner_fd = os.open(self.file.folder / "owners" / f"{self.owner}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._owner_fd, fcntl.LOCK_EX)

    def acquire(self, inventory: Inventory, request: GpuRequest, run: str, node: str, priority: int,
                cancelled: Cancellation, on_wait: Callable[[int], None], since: float | None = None,
                behind: int | None = None) -> Grant | None:
        """Wait in the queue until ``request`` is granted (the Grant) or ``cancelled`` is set (None).
        ``on_wait(position)`` is called when the node starts waiting and whenever its position changes;
        a node queued again after a preemption keeps its first ``since`` and waits ``behind`` its preemptor."""
        why = fits_at_all(inventory, request)
        if why:
            raise UserError(why, field="resources")
        with self.file.write() as conn:
            me = conn.execute("INSERT INTO waiters (owner, run, node, priority, count, memory_mb, cores, preemptible, "
                              "since, behind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                              (self.owner, run, node, priority, request.count, request.memory_mb, request.cores,
                               int(request.preemptible), time.time() if since is None else since, behind)).lastrowid
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
        """One look at the queue: the grant when it is this waiter's turn and it fits, else its position; a head
        that does not fit marks the leases it preempts."""
        aging, placement = self.policy
        with self.file.write() as conn:
            now = time.time()
            held = [Held(int(r["id"]), Lease(int(r["gpu"]), r["memory_mb"], r["cores"]), int(r["priority"]),
                         bool(r["preemptible"]), float(r["since"]), r["preempt_for"] is not None)
                    for r in conn.execute("SELECT * FROM leases")]
            rows = {int(r["id"]): r for r in conn.execute("SELECT * FROM waiters")}
            order = queue_order([Waiter(i, GpuRequest(int(r["count"]), r["memory_mb"], r["cores"],
                                                      bool(r["preemptible"])), int(r["priority"]), float(r["since"]),
                                        r["behind"]) for i, r in rows.items()], now, aging)
            granted = admit(inventory, [h.lease for h in held], order, placement)
            for waiter, placed in granted:  # the ones ahead keep their room: they take it at their next look
                if waiter.id == me:
                    row = rows[me]
                    ids = [int(conn.execute(
                        "INSERT INTO leases (owner, run, node, gpu, memory_mb, cores, priority, preemptible, since) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (self.owner, row["run"], row["node"], lease.gpu, lease.memory_mb, lease.cores,
                         row["priority"], row["preemptible"], now)).lastrowid or 0) for lease in placed]
                    conn.execute("DELETE FROM waiters WHERE id = ?", (me,))
                    return Grant(tuple(ids), tuple(placed), waiter.since), 0
            if order and not granted:
                chosen = victims(inventory, held, order[0]) or []
                conn.executemany("UPDATE leases SET preempt_for = ?, preempt_at = ? WHERE id = ?",
                                 [(order[0].id, now, v.id) for v in chosen])
            mine = [i for i, w in enumerate(order, start=1) if w.id == me]
            return None, mine[0] if mine else len(order) + 1

    def notice(self, grant: Grant) -> tuple[bool, int | None]:
        """(whether the grant is still held, the waiter it is preempted for or None)."""
        marks = [r["preempt_for"] for r in self.file.rows(
            f"SELECT preempt_for FROM leases WHERE id IN ({','.join('?' * len(grant.ids))})", grant.ids)]
        return bool(marks), next((int(m) for m in marks if m is not None), None)

    def release(self, grant: Grant | None) -> None:
        """Give a node's GPUs back (the moment it ends)."""
        if grant is None or not grant.ids:
            return
        with self.file.write() as conn:
            conn.executemany("DELETE FROM leases WHERE id = ? AND owner = ?", [(i, self.owner) for i in grant.ids])


class RunGpus:
    """One run's side of the pool: its name and priority, the machine's inventory, the no-GPU fallback."""

    def __init__(self, state_dir: Path, inventory: Callable[[], Inventory], run: str, priority: int,
                 fallback: str = "cpu", resource: str = "nvidia.com/gpu",
                 policy: tuple[float, str] = DEFAULT_POLICY) -> None:
        if fallback not in ("cpu", "fail"):
            raise UserError(f"must be cpu or fail, got {fallback!r}", field="engine.gpu_fallback")
        machine_pool(state_dir).policy = policy
        self.state_dir, self.run, self.priority = state_dir, run, priority
        self.fallback, self.resource = fallback, resource
        self._detect: Callable[[], Inventory] = inventory
        self._inventory: Inventory | None = None
        self._lock = threading.Lock()
        self._requeued: dict[str, tuple[float | None, int | None]] = {}  # preempted nodes: (first since, preemptor)

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
                cancelled: Cancellation) -> tuple[Grant | None, str]:
        """(grant, warning or how its compute share is kept); the node shows ``Pending: waiting for GPU (queue
        position N)`` while it waits (after ``preempted, requeued; `` when it was preempted). No GPU on the
        machine: (None, warning) for the cpu fallback, UserError for fail."""
        if not self.inventory.gpus:
            if self.fallback == "fail":
                raise UserError(f"the step requests {request.describe()} but this machine has none "
                                "(set engine.gpu_fallback=cpu to run it on CPU)", field="resources")
            return None, (f"warning: {request.count} GPU(s) requested but none found; running on CPU "
                          "(engine.gpu_fallback=cpu)")
        before: list[Any] = []
        since, behind = self._requeued.pop(nid, (None, None))
        prefix = f"{PREEMPTED}; " if since is not None else ""

        def waiting(position: int) -> None:
            if not before:
                before.append((tree.get(nid) or {}).get("phase") or "Pending")
            tree.put(nid, phase="Pending", message=prefix + WAITING.format(position=position))
            tree.commit()

        try:
            priority = self.priority if request.priority is None else request.priority
            grant = machine_pool(self.state_dir).acquire(self.inventory, request, self.run, nid, priority,
                                                         cancelled, waiting, since, behind)
        finally:
            if before or since is not None:
                tree.put(nid, **({"phase": before[0]} if before else {}), message=None)
                tree.commit()
        return grant, sharing_note(request, mps_pipe()) if grant else ""

    def node_env(self, grant: Grant | None, request: GpuRequest) -> dict[str, str]:
        """The node's GPU environment: its devices, memory cap and (under MPS) compute share."""
        return node_env(grant.devices if grant else None, request, mps_pipe())

    def guard(self, grant: Grant | None, template: dict[str, Any], process: Process) -> Guard:
        """Watch a preemptible node's grant: when the pool marks it, SIGTERM, then SIGKILL after the grace."""
        if grant is None or not grant.ids or not (request := self.request(template)) or not request.preemptible:
            return Guard.idle()
        pool = machine_pool(self.state_dir)
        return Guard.start(lambda: pool.notice(grant), process, grace_seconds(template), POLL_S)

    def watch(self, grant: Grant | None, request: GpuRequest | None, process: Process) -> Watchdog | None:
        """Watch a node holding a memory share (:mod:`aipipe.engine.gpuwatch`): None for whole GPUs, no grant, a
        process that did not start, or no source of readings on this machine."""
        pid = getattr(process, "pid", None)
        if grant is None or request is None or request.memory_mb is None or not isinstance(pid, int):
            return None
        usage, _ = usage_source()
        return Watchdog.start(usage, process, pid, request.memory_mb) if usage is not None else None

    def requeue(self, nid: str, grant: Grant | None, guard: Guard, tree: NodeTree) -> dict[str, Any]:
        """The node was preempted: it asks again with its first arrival time, behind its preemptor."""
        self._requeued[nid] = (grant.since if grant else time.time(), guard.preemptor)
        tree.put(nid, message=PREEMPTED)
        tree.commit()
        return {"requeue": True}

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


def pool_report(state_dir: Path, inventory: Inventory, aging: float = DEFAULT_POLICY[0]) -> dict[str, Any]:
    """Each GPU (total and granted memory and compute, its leases), the queue in order (``aging``: seconds per
    priority level) and how shares are kept (MPS where a daemon runs, else time-slicing), as ``aipipe gpus`` and
    the API show it."""
    pool = PoolFile(pool_dir(state_dir))
    try:
        with pool.write() as conn:
            leases = [dict(r) for r in conn.execute("SELECT * FROM leases ORDER BY id")]
            waiters = {int(r["id"]): dict(r) for r in conn.execute("SELECT * FROM waiters")}
    finally:
        pool.close()
    now = time.time()
    order = queue_order([Waiter(i, GpuRequest(int(w["count"]), w["memory_mb"], w["cores"]), int(w["priority"]),
                                float(w["since"]), w["behind"]) for i, w in waiters.items()], now, aging)
    known = inventory.by_index()
    gpus = []
    for index in sorted({*known, *(lease["gpu"] for lease in leases)}):
        info = known.get(index)
        mine = [lease for lease in leases if lease["gpu"] == index]
        total = info.memory_mb if info else 0
        whole = any(lease["memory_mb"] is None for lease in mine)
        granted = total if whole else sum(int(lease["memory_mb"]) for lease in mine)
        cores = sum(int(lease["cores"] or 0) for lease in mine)
        gpus.append({"index": index, "name": info.name if info else "", "memoryMiB": total, "grantedMiB": granted,
                     "freeMiB": max(total - granted, 0), "wholeGranted": whole, "grantedCores": cores,
                     "freeCores": 0 if whole and not cores else max(100 - cores, 0),
                     "leases": [{"run": lease["run"], "node": lease["node"],
                                 "share": Lease(index, lease["memory_mb"], lease["cores"]).describe(),
                                 "memoryMiB": lease["memory_mb"], "cores": lease["cores"],
                                 "priority": lease["priority"], "preemptible": bool(lease["preemptible"]),
                                 "preempting": lease["preempt_for"] is not None, "since": lease["since"]}
                                for lease in mine]})
    queue = [{"position": i, "run": waiters[w.id]["run"], "node": waiters[w.id]["node"], "priority": w.priority,
              "effectivePriority": effective_priority(w, now, aging), "request": w.request.describe(),
              "since": w.since} for i, w in enumerate(order, start=1)]
    pipe = mps_pipe()
    sharing = {"mode": "mps", "pipe": pipe} if pipe is not None else {"mode": "time-slicing", "pipe": None}
    return {"inventorySource": inventory.source, "sharing": sharing, "gpus": gpus, "queue": queue}
