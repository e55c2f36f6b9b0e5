"""Argo's ``synchronization`` locks on one machine: the locks a block names, their limits, and their slot files.

A lock is a set of slot files; holding a slot is an exclusive ``flock`` on one of them, so every engine process
on the machine (``aipipe run`` in two terminals, the server) sees the same holders, and a driver that dies frees
its slots with it.

- A mutex (``mutex``/``mutexes``) has one slot, ``<root>/mutexes/<namespace>/<name>.lock``.
- A ConfigMap semaphore (``semaphore``/``semaphores`` with ``configMapKeyRef``) has as many slots as the integer
  in the local ConfigMap store (``AIPIPE_HOME/configmaps/<name>/<key>``), read again at every attempt, so a
  changed limit applies at once: ``<root>/semaphores/<namespace>/<name>/<key>/<i>``. When the limit is lowered
  under the number of holders, nobody new gets in until the holders drop below it (as Argo).

A slot file holds its holder's key (``<namespace>/<workflow>[/<node id>]``): that is how waiters list holders.
The local ConfigMap store has no namespaces: a semaphore's ``namespace`` names its lock, not another store.
Database-backed locks (Argo v3.6+ ``database``) need Argo's synchronization database and are refused at submit.
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.engine.configmaps import ConfigMapStore
from aipipe.errors import UserError

_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_ATOI = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi takes
DATABASE = ("{what} needs Argo's synchronization database (a cluster); the embedded engine supports mutexes and "
            "ConfigMap semaphores (configMapKeyRef, limit read from AIPIPE_HOME/configmaps/NAME/KEY)")


class SyncError(Exception):
    """A lock that cannot be taken at all (Argo ends the node Error, or the workflow Failed, with this)."""


def safe(part: str) -> str:
    """``part`` as one file name."""
    return _SAFE.sub("_", part) or "_"


@dataclass(frozen=True)
class LockRef:
    """One lock of a ``synchronization`` block: ``kind`` is ``Mutex`` or ``ConfigMap`` (Argo's lock kinds)."""

    kind: str
    namespace: str
    name: str
    key: str = ""

    @property
    def lock_name(self) -> str:
        """Argo's name for the lock: ``<ns>/Mutex/<name>`` or ``<ns>/ConfigMap/<name>/<key>``."""
        tail = f"/{self.key}" if self.kind == "ConfigMap" else ""
        return f"{self.namespace}/{self.kind}/{self.name}{tail}"

    @property
    def status_kind(self) -> str:
        """The ``status.synchronization`` section this lock is listed in."""
        return "mutex" if self.kind == "Mutex" else "semaphore"


def _entries(sync: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """(field, kind, entry) in Argo's order: semaphores, then mutexes. The singular ``semaphore`` and ``mutex`` that
    v4.0 removed are not read: the v4 CRD's schema prunes them from a submitted spec, so Argo runs unlocked (and
    ``argo submit``, like ``aipipe run``, refuses them before that)."""
    for i, entry in enumerate(sync.get("semaphores") or []):
        yield f"semaphores[{i}]", "semaphore", entry
    for i, entry in enumerate(sync.get("mutexes") or []):
        yield f"mutexes[{i}]", "mutex", entry


def sync_problems(sync: Mapping[str, Any] | None, where: str) -> list[tuple[str, str]]:
    """(field, message) for each lock of ``sync`` the embedded engine cannot take (checked at submit)."""
    problems = []
    for field, kind, entry in _entries(sync or {}):
        at = f"{where}.{field}"
        if not isinstance(entry, Mapping):
            problems.append((at, f"a {kind} must be an object"))
        elif kind == "mutex" and entry.get("database"):
            problems.append((f"{at}.database", DATABASE.format(what="a database mutex")))
        elif kind == "mutex" and not entry.get("name"):
            problems.append((f"{at}.name", "a mutex needs a name"))
        elif kind == "semaphore" and entry.get("database"):
            problems.append((f"{at}.database", DATABASE.format(what="a database semaphore")))
        elif kind == "semaphore":
            ref = entry.get("configMapKeyRef")
            if not isinstance(ref, Mapping):
                problems.append((f"{at}.configMapKeyRef", "a semaphore needs configMapKeyRef (name and key of "
                                 "the ConfigMap entry that holds its limit)"))
            else:
                problems += [(f"{at}.configMapKeyRef.{part}", "is required") for part in ("name", "key")
                             if not ref.get(part)]
    return problems


def lock_refs(sync: Mapping[str, Any], namespace: str) -> list[LockRef]:
    """The locks ``sync`` names, in Argo's order; a lock named twice is Argo's configuration error."""
    refs = []
    for _field, kind, entry in _entries(sync):
        ns = str(entry.get("namespace") or namespace)
        if kind == "mutex":
            refs.append(LockRef("Mutex", ns, str(entry.get("name") or "")))
        else:
            ref = entry.get("configMapKeyRef") or {}
            refs.append(LockRef("ConfigMap", ns, str(ref.get("name") or ""), str(ref.get("key") or "")))
    if len(set(refs)) != len(refs):
        raise SyncError("requested configuration is invalid: Duplicate synchronization item found")
    return refs


def read_limit(store: ConfigMapStore, ref: LockRef) -> tuple[int | None, str]:
    """A lock's limit now (1 for a mutex), or (None, why) when the ConfigMap entry is missing or not an integer."""
    if ref.kind == "Mutex":
        return 1, ""
    try:
        value = store.get(ref.name, ref.key, field="synchronization.semaphores.configMapKeyRef")
    except UserError as exc:
        return None, str(exc)
    if value is None or not _ATOI.fullmatch(value):
        return None, f"the value of key {ref.key!r} of configmap {ref.name!r} is {value!r}, not an integer"
    return int(value), ""


class Slots:
    """The slot files of one lock under ``root`` (the engine's ``locks`` folder)."""

    def __init__(self, root: Path, ref: LockRef) -> None:
        self.ref = ref
        if ref.kind == "Mutex":
            self.folder = root / "mutexes" / safe(ref.namespace)
            self.single: Path | None = self.folder / f"{safe(ref.name)}.lock"
        else:
            self.folder = root / "semaphores" / safe(ref.namespace) / safe(ref.name) / safe(ref.key)
            self.single = None

    def path(self, index: int) -> Path:
        return self.single if self.single is not None else self.folder / str(index)

    def existing(self) -> list[Path]:
        if self.single is not None:
            return [self.single] if self.single.exists() else []
        if not self.folder.is_dir():
            return []
        return [p for p in self.folder.iterdir() if p.name.isdigit()]

    def holders(self, skip: Path | None = None) -> list[str]:
        """The keys of whoever holds a slot now (any process); ``skip`` is a slot the caller holds."""
        found = []
        for path in sorted(self.existing(), key=lambda p: p.name):
            if path == skip:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    fcntl.flock(fd, fcntl.LOCK_UN)  # free: nobody holds it
                except BlockingIOError:
                    found.append(_holder_key(fd))
            finally:
                os.close(fd)
        return found

    def try_take(self, limit: int, holder: str) -> int | None:
        """Hold a free slot when fewer than ``limit`` are held; the slot's descriptor, or None."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for index in range(1 if self.single is not None else max(limit, 0)):
            path = self.path(index)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if self.single is None and len(self.existing()) > limit and len(self.holders(skip=path)) >= limit:
                # the limit was lowered under the holders: wait until they drop below it
                release(fd)
                return None
            os.ftruncate(fd, 0)
            os.pwrite(fd, holder.encode(), 0)
            return fd
        return None


def _holder_key(fd: int, wait_s: float = 0.05) -> str:
    """The key written in a held slot. A taker writes it just after it locks the slot, so an empty slot is
    re-read for up to ``wait_s`` before it is reported as "?" (held by someone who has not said who yet)."""
    deadline = time.monotonic() + wait_s
    while True:
        key = os.pread(fd, 4096, 0).decode(errors="replace").strip()
        if key or time.monotonic() >= deadline:
            return key or "?"
        time.sleep(0.001)


def release(fd: int) -> None:
    """Give a slot back (empty its holder key first, so readers never see a stale one)."""
    try:
        os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class WaitQueue:
    """Argo's queue of waiters per lock, within this process: higher ``spec.priority`` first, then older
    workflows; a waiter may take a lock only while the front of its queue is a node of its own workflow.

    Processes do not share this queue: between two engine processes the first to try after a release wins.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, dict[str, tuple[int, str, int]]] = {}
        self._seq = 0

    def join(self, lock_names: list[str], holder: str, priority: int, created: str) -> None:
        with self._lock:
            self._seq += 1
            for name in lock_names:
                self._queues.setdefault(name, {}).setdefault(holder, (-priority, created, self._seq))

    def leave(self, lock_names: list[str], holder: str) -> None:
        with self._lock:
            for name in lock_names:
                queue = self._queues.get(name, {})
                queue.pop(holder, None)
                if not queue:
                    self._queues.pop(name, None)

    def at_front(self, lock_name: str, holder: str) -> bool:
        with self._lock:
            queue = self._queues.get(lock_name) or {}
            if not queue:
                return True
            front = min(queue, key=lambda k: queue[k])
            return front.split("/")[:2] == holder.split("/")[:2]


QUEUE = WaitQueue()  # one per process: every run this process drives waits in it
