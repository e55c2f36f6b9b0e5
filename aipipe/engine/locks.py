"""``synchronization`` on one machine: mutexes and ConfigMap semaphores taken as Argo's controller takes them.

A block's locks are taken all at once or not at all (nothing is held while waiting, so two waiters never
deadlock). While they wait, the node (or, for ``spec.synchronization``, the workflow) is ``Pending`` with Argo's
message ``Waiting for <lock> lock. Lock status: <free>/<limit>`` and ``status.synchronization`` lists the
current holders; once taken, ``status.synchronization`` lists this run's holdings until they are released
(when the node ends, the run is stopped, or the driver dies: the slot files are ``flock``\\ s). The slot files
and limits are :mod:`aipipe.engine.semaphores`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.nodes import NodeTree
from aipipe.engine.semaphores import QUEUE, LockRef, Slots, SyncError, lock_refs, read_limit, release
from aipipe.engine.settle import settled

__all__ = ["Held", "MutexRegistry", "SyncError", "SyncSite"]

WORKFLOW_LOCK_FAILED = "Failed to acquire the synchronization lock. "  # Argo's prefix for spec.synchronization
_initialized: set[str] = set()  # semaphores whose limit this process has read once (Argo's initialized locks)
_initialized_lock = threading.Lock()


class SyncSite:
    """Where a block's lock state shows: one node of a run (``nid``), or the run itself (``nid`` None)."""

    def __init__(self, workflow: Mapping[str, Any], tree: NodeTree, status: dict[str, Any],
                 nid: str | None) -> None:
        meta = workflow.get("metadata") or {}
        self.namespace = str(meta.get("namespace") or "default")
        self.holder = "/".join([self.namespace, str(meta.get("name")), *([nid] if nid else [])])
        self.priority = int((workflow.get("spec") or {}).get("priority") or 0)
        self.created = str(meta.get("creationTimestamp") or "")
        self.tree, self.status, self.nid = tree, status, nid
        self._phase: str | None = None  # the phase to go back to once the wait is over

    def _edit(self, refs: list[LockRef], waiting: tuple[LockRef, list[str]] | None, holding: bool | None) -> None:
        """Rewrite ``status.synchronization`` for ``refs`` (new objects only: snapshots may hold the old ones)."""
        with self.tree.lock:
            sync = self.status.get("synchronization") or {}
            out: dict[str, Any] = {}
            for section, key in (("semaphore", "semaphore"), ("mutex", "mutex")):
                mine = {r.lock_name for r in refs if r.status_kind == section}
                part = sync.get(section) or {}
                wait = [w for w in part.get("waiting") or [] if w.get(key) not in mine]
                hold = [dict(h) for h in part.get("holding") or []]
                if waiting is not None and waiting[0].status_kind == section:
                    ref, holders = waiting
                    if section == "mutex" and holders:
                        wait.append({"mutex": ref.lock_name, "holder": holders[0]})
                    elif section == "semaphore":
                        wait.append({"semaphore": ref.lock_name, "holders": holders})
                if holding is not None:
                    hold = _holdings(hold, key, mine, self.holder, holding)
                if wait or hold:
                    out[section] = {**({"holding": hold} if hold else {}), **({"waiting": wait} if wait else {})}
            if out:
                self.status["synchronization"] = out
            else:
                self.status.pop("synchronization", None)

    def waiting(self, ref: LockRef, message: str, holders: list[str], refs: list[LockRef]) -> None:
        self._edit(refs, (ref, holders), None)
        if self.nid is None:
            with self.tree.lock:
                if self._phase is None:
                    self._phase = str(self.status.get("phase") or "Running")
                self.status.update(phase="Pending", message=message)
        else:
            if self._phase is None:
                self._phase = str((self.tree.get(self.nid) or {}).get("phase") or "Running")
            self.tree.put(self.nid, phase="Pending", message=message,
                          synchronizationStatus={"waiting": ref.lock_name})
        self.tree.commit()

    def done_waiting(self, refs: list[LockRef], acquired: bool) -> None:
        """The wait is over (``acquired``, or given up): holdings recorded, the waiting display undone."""
        if acquired:
            self._edit(refs, None, True)
        elif self._phase is None:
            return
        else:
            self._edit(refs, None, None)
        if self._phase is not None:
            if self.nid is None:
                with self.tree.lock:
                    self.status.update(phase=self._phase, message=None)
            else:
                self.tree.put(self.nid, phase=self._phase, message=None, synchronizationStatus=None)
            self._phase = None
        self.tree.commit()

    def released(self, refs: list[LockRef]) -> None:
        self._edit(refs, None, False)
        self.tree.commit()


def _holdings(hold: list[dict[str, Any]], key: str, names: set[str], holder: str,
              add: bool) -> list[dict[str, Any]]:
    """``hold`` with ``holder`` added to (or removed from) the holdings of the locks ``names``."""
    if key == "mutex":
        kept = [h for h in hold if not (h.get("mutex") in names and h.get("holder") == holder)]
        return kept + ([{"mutex": n, "holder": holder} for n in sorted(names)] if add else [])
    out = []
    for name in sorted(names | {str(h.get("semaphore")) for h in hold}):
        current = next((list(h.get("holders") or []) for h in hold if h.get("semaphore") == name), [])
        if name in names and add and holder not in current:
            current.append(holder)
        elif name in names and not add:
            current = [h for h in current if h != holder]
        if current:
            out.append({"semaphore": name, "holders": current})
    return out


@dataclass(frozen=True)
class Held:
    """One slot a block holds: its descriptor, its lock, and where its holding shows."""

    fd: int
    ref: LockRef
    site: SyncSite


class MutexRegistry:
    """Takes the locks of ``synchronization`` blocks, waiting (interruptibly, by ``cancelled``) while they are busy.

    ``root`` is the engine's ``locks`` folder; ConfigMap limits come from ``store`` (by default the store of the
    AIPIPE_HOME that holds ``root``).
    """

    def __init__(self, root: Path, cancelled: threading.Event, poll: float = 0.05,
                 store: ConfigMapStore | None = None) -> None:
        self.root = root
        self.cancelled = cancelled
        self.poll = poll
        self.store = store or ConfigMapStore.from_home(root.parent)

    def acquire_sync(self, sync: Mapping[str, Any], site: SyncSite, until: float | None = None) -> list[Held]:
        """Hold every lock of ``sync`` for ``site``: waits while any is busy (``InterruptedError`` when cancelled,
        ``TimeoutError`` once the epoch ``until`` has passed); ``SyncError`` when a semaphore's limit cannot be read
        the first time (Argo's initialization error)."""
        try:
            refs = lock_refs(sync, site.namespace)
        except SyncError as exc:
            raise _for_site(exc, site) from None
        if not refs:
            return []
        names = [r.lock_name for r in refs]
        QUEUE.join(names, site.holder, site.priority, site.created)
        shown: tuple[str, str, list[str]] | None = None
        acquired = False
        try:
            while True:
                held, blocked = self._try_all(refs, site)
                if blocked is None:
                    acquired = True
                    site.done_waiting(refs, acquired=True)
                    return held
                ref, message, holders = blocked
                if (ref.lock_name, message, holders) != shown:  # Argo refreshes the holders at every try
                    site.waiting(ref, message, holders, refs)
                    shown = (ref.lock_name, message, holders)
                if until is not None and time.time() >= until:
                    raise TimeoutError("timeout")
                settled()  # waiting for a lock: Argo's walk moves on
                if self.cancelled.wait(self.poll):
                    raise InterruptedError("stopped while waiting for a synchronization lock")
        finally:
            QUEUE.leave(names, site.holder)
            if not acquired:
                site.done_waiting(refs, acquired=False)

    def _try_all(self, refs: list[LockRef],
                 site: SyncSite) -> tuple[list[Held], tuple[LockRef, str, list[str]] | None]:
        """Take every lock now, or none: (held, None), or ([], (the first busy lock, message, its holders))."""
        taken: list[int] = []
        try:
            for ref in refs:
                blocked = self._try_one(ref, site, taken)
                if blocked is not None:
                    _drop(taken)
                    return [], blocked
        except BaseException:
            _drop(taken)
            raise
        return [Held(fd, ref, site) for fd, ref in zip(taken, refs, strict=True)], None

    def _try_one(self, ref: LockRef, site: SyncSite, taken: list[int]) -> tuple[LockRef, str, list[str]] | None:
        """Take ``ref`` (its slot is appended to ``taken``), or say why not: (ref, message, holders)."""
        slots = Slots(self.root, ref)
        limit, why = read_limit(self.store, ref)
        if not limit:
            with _initialized_lock:
                known = ref.lock_name in _initialized
            if not known:
                why = why or f"the limit in key {ref.key!r} of configmap {ref.name!r} is 0"
                raise _for_site(SyncError(f"failed to initialize semaphore {ref.lock_name} with limit: {why}"), site)
            return ref, f"Failed to get semaphore limit for {ref.lock_name}", slots.holders()
        with _initialized_lock:
            _initialized.add(ref.lock_name)
        fd = slots.try_take(limit, site.holder) if QUEUE.at_front(ref.lock_name, site.holder) else None
        if fd is None:
            holders = slots.holders()
            return ref, f"Waiting for {ref.lock_name} lock. Lock status: {limit - len(holders)}/{limit}", holders
        taken.append(fd)
        return None

    @staticmethod
    def release_all(held: list[Any] | None) -> None:
        """Give back what :meth:`acquire` or :meth:`acquire_sync` returned (and show it released)."""
        by_site: dict[int, tuple[SyncSite, list[LockRef]]] = {}
        for item in held or []:
            release(item.fd)
            by_site.setdefault(id(item.site), (item.site, []))[1].append(item.ref)
        for site, refs in by_site.values():
            site.released(refs)


def _drop(taken: list[int]) -> None:
    for fd in taken:
        release(fd)


def _for_site(exc: SyncError, site: SyncSite) -> SyncError:
    """Argo's wording: a workflow-level lock error is prefixed (the workflow fails), a node's is the error itself."""
    if site.nid is None:
        return SyncError(WORKFLOW_LOCK_FAILED + str(exc))
    return exc
