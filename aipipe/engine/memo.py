"""Argo's step memoization (``template.memoize: {key, maxAge, cache: {configMap: {name}}}``).

Before a memoized template's node is created, its key (rendered with the node's scope) is looked up in the
cache (:mod:`aipipe.engine.memocache`). An entry younger than ``maxAge`` (a Go duration; empty: no limit) whose
``nodeID`` is set is a hit: the node is created ``Succeeded`` with the stored outputs and nothing runs. Otherwise
the node runs, and once it has ``Succeeded`` its outputs are stored under the key. Either way the node's
``memoizationStatus`` is ``{hit, key, cacheName}``; a cache that cannot be used makes the node ``Error``.
As in Argo, a node that already exists (a resumed run) is not looked up again. Argo saves an entry before the
workflow that shows its node ``Succeeded`` is stored; here the node's state is stored first, so a resumed run saves
the entry of any stored node that ran and ``Succeeded`` whose key has none (a driver died between the two).
``cache.configMap.key`` is accepted and, as by Argo, not used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aipipe.engine.calls import Call, NodeFailure
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.memocache import MemoCache, MemoError, stamp_age
from aipipe.engine.memospec import Memo
from aipipe.engine.noderef import NodeRef
from aipipe.engine.phases import NodePhase
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.template import Scope
from aipipe.errors import UserError


@dataclass(frozen=True)
class Lookup:
    """What the cache gave for one node: the memo, and the stored outputs on a hit (None on a miss)."""

    memo: Memo
    outputs: dict[str, Any] | None

    @property
    def hit(self) -> bool:
        return self.outputs is not None


class Memoizer:
    """Looks memoized nodes up before they are created, records hits, and stores the outputs of misses."""

    def __init__(self, rt: Runtime, store: ConfigMapStore) -> None:
        self.rt = rt
        self.cache = MemoCache(store)

    def lookup(self, call: Call, ref: NodeRef, scope: Scope) -> Lookup | None:
        """None when the template is not memoized or its node exists already (unless it is to run again: Pending,
        or left unfinished by an earlier driver); NodeFailure when the memoize block or the cache cannot be used."""
        existing = self.rt.tree.get(ref.id)
        if existing is not None and existing.get("phase") != NodePhase.PENDING and self.rt.orphaned(ref) is None:
            return None
        return self.look_again(call, ref, scope)

    def look_again(self, call: Call, ref: NodeRef, scope: Scope) -> Lookup | None:
        """The lookup itself, also for a node that exists: Argo looks again once a node that waited for a lock
        holds it, so a step that queued behind another with the same key takes its outputs."""
        memoize = call.template.get("memoize")
        if not memoize:
            return None
        memo = Memo.render(memoize, scope.child({"node.name": ref.name}), ref.display)
        try:
            entry = self.cache.load(memo.cache, memo.key)
        except (MemoError, UserError) as exc:
            raise NodeFailure(str(exc)) from exc
        if entry is None or not entry.get("nodeID"):
            return Lookup(memo, None)
        created = entry.get("creationTimestamp")  # none: Go's zero time, older than any maxAge
        if memo.max_age is not None and (not created or stamp_age(str(created)) > memo.max_age):
            return Lookup(memo, None)
        outputs = entry.get("outputs")
        return Lookup(memo, dict(outputs) if isinstance(outputs, Mapping) else {})

    def record_hit(self, found: Lookup, call: Call, ref: NodeRef, inputs: dict[str, Any]) -> NodeRecord:
        """The node of a hit: ``Succeeded`` at once with the stored outputs."""
        rt = self.rt
        nid, kept = rt.start_node(ref, call.head.node_type, call, inputs=inputs,
                                  memoizationStatus=found.memo.status(True))
        if kept is not None:
            return kept
        outputs = found.outputs or {}
        rt.publish_globals(outputs)
        return rt.finish_node(nid, NodePhase.SUCCEEDED, None, **({"outputs": outputs} if outputs else {}))

    def save_missing_entries(self) -> None:
        """Before a run (or its resume) starts: save the entry of every stored node that ran, ``Succeeded`` and
        whose key has no entry (its driver died after storing the node and before saving the entry)."""
        with self.rt.tree.lock:
            stored = list(self.rt.tree.nodes.values())
        for record in stored:
            if _ran_and_succeeded(record):
                self.store(record, missing_only=True)

    def store(self, record: NodeRecord, missing_only: bool = False) -> NodeRecord:
        """Save the outputs of a memoized node that ran and ``Succeeded`` (``missing_only``: unless its key has an
        entry already); a save that fails makes it ``Error``."""
        if not _ran_and_succeeded(record):
            return record
        status = record["memoizationStatus"]
        try:
            self.cache.save(str(status["cacheName"]), str(status["key"]), record["id"], record.get("outputs") or {},
                            missing_only)
        except (MemoError, UserError, OSError) as exc:
            return self.rt.finish_node(record["id"], NodePhase.ERROR, str(exc))
        return record


def _ran_and_succeeded(record: NodeRecord) -> bool:
    """A memoized node that missed the cache, ran and ``Succeeded``: its outputs belong in the cache."""
    status = record.get("memoizationStatus") or {}
    return bool(status and not status.get("hit") and record.get("phase") == NodePhase.SUCCEEDED and record.get("id"))
