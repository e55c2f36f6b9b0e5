"""The status tree: node ids, names and copy-on-write node records, and the change feed to ``on_change``.

Each node record is replaced, never mutated, so a snapshot of the tree is a shallow copy. Changes
are written by one emitter thread that coalesces bursts; a caller of :meth:`NodeTree.commit` waits
until a snapshot containing its change has been handed to ``on_change``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from aipipe.engine.phases import DONE_PHASES, KEPT_ON_RESUME, NodeType, plain

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # a node's startedAt/finishedAt, to the second as Argo's


def now_iso() -> str:
    return datetime.now(UTC).strftime(ISO_FORMAT)


def iso_epoch(stamp: Any) -> float | None:
    """A stored ``startedAt``/``finishedAt`` as epoch seconds (None when absent or not one)."""
    try:
        return datetime.strptime(str(stamp), ISO_FORMAT).replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def fnv32a(text: str) -> int:
    h = 0x811C9DC5
    for byte in text.encode():
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def node_id(workflow_name: str, node_name: str) -> str:
    """Argo's node id: the workflow name for the root, else ``<workflow>-<fnv32a(node name)>``."""
    return workflow_name if node_name == workflow_name else f"{workflow_name}-{fnv32a(node_name)}"


class NodeTree:
    """Thread-safe store of node records plus the workflow-level status fields."""

    def __init__(self, workflow_name: str, nodes: dict[str, dict[str, Any]],
                 snapshot: Callable[[dict[str, dict[str, Any]]], dict[str, Any]],
                 publish: Callable[[dict[str, Any]], None]) -> None:
        self.workflow_name = workflow_name
        self.nodes = dict(nodes)
        self.lock = threading.RLock()
        self._snapshot = snapshot
        self._publish = publish
        self._version = 0
        self._published = 0
        self._cond = threading.Condition(self.lock)
        self._emitting = False
        self.errors: list[BaseException] = []

    def get(self, nid: str) -> dict[str, Any] | None:
        with self.lock:
            return self.nodes.get(nid)

    def put(self, nid: str, **fields: Any) -> dict[str, Any]:
        with self.lock:
            record = {**self.nodes.get(nid, {}), **{k: plain(v) for k, v in fields.items()}}
            self.nodes[nid] = record
            self._version += 1
            return record

    def add_child(self, parent: str | None, child: str) -> None:
        if not parent:
            return
        with self.lock:
            record = self.nodes.get(parent)
            if record is None or child in record.get("children", []):
                return
            self.nodes[parent] = {**record, "children": [*record.get("children", []), child]}
            self._version += 1

    def commit(self) -> None:
        """Hand the current tree to ``on_change`` (coalescing concurrent callers) and wait for it."""
        with self._cond:
            self._version += 1
            wanted = self._version
            while self._published < wanted:
                if not self._emitting:
                    self._emitting = True
                    version = self._version
                    snap = self._snapshot(dict(self.nodes))
                    self._cond.release()
                    try:
                        self._publish(snap)
                    except Exception as exc:  # the run store failing must not hang the run
                        self.errors.append(exc)
                    finally:
                        self._cond.acquire()
                        self._emitting = False
                        self._published = max(self._published, version)
                        self._cond.notify_all()
                else:
                    self._cond.wait()


class Clock:
    """Monotonic seconds since the run started (for durations)."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start


_OWN_OUTBOUND = frozenset({NodeType.POD, NodeType.CONTAINER, NodeType.SKIPPED, NodeType.SUSPEND, NodeType.HTTP,
                           NodeType.PLUGIN})


def outbound_nodes(nodes: dict[str, dict[str, Any]], nid: str) -> list[str]:
    """The nodes a dependant's edge starts from, as Argo's controller finds them.

    A leaf is its own outbound node; a TaskGroup's are its items' (itself when it has none); a
    Retry's is its last attempt; a DAG or Steps node's are those its ``outboundNodes`` lead to.
    """
    node = nodes.get(nid)
    if node is None:
        return []
    kind = node.get("type")
    children = node.get("children", [])
    if kind in _OWN_OUTBOUND:
        return [nid]
    if kind == NodeType.TASK_GROUP:
        items = [c for c in children if str(nodes.get(c, {}).get("name", "")).startswith(node.get("name", "") + "(")]
        return [o for c in items for o in outbound_nodes(nodes, c)] if items else [nid]
    if kind == NodeType.RETRY:
        attempts = [c for c in children if str(nodes.get(c, {}).get("name", "")).startswith(node.get("name", "") + "(")]
        if attempts:
            return [attempts[-1]]
    out: list[str] = []
    for target in node.get("outboundNodes", []):
        out += [target] if nodes.get(target, {}).get("type") == NodeType.POD else outbound_nodes(nodes, target)
    return out


def owned_nodes(nodes: Mapping[str, Mapping[str, Any]], nid: str) -> list[str]:
    """``nid`` and the nodes it contains (its tasks, steps, attempts, loop items, hooks), found by Argo's
    hierarchical node names: ``children`` are graph edges and also lead to the tasks after a node."""
    top = nodes.get(nid)
    if top is None:
        return []
    name = str(top.get("name", ""))
    return [i for i, n in nodes.items() if i == nid or (str(n.get("name", "")).startswith(name)
                                                         and str(n.get("name", ""))[len(name):][:1] in (".", "(", "["))]


def subtree_progress(nodes: dict[str, dict[str, Any]], nid: str) -> str:
    """``done/total`` over the Pod nodes ``nid`` contains (itself included)."""
    pods = [nodes[i] for i in owned_nodes(nodes, nid) if nodes[i].get("type") == NodeType.POD]
    return f"{sum(1 for n in pods if n.get('phase') in DONE_PHASES)}/{len(pods)}"


def reset_for_retry(workflow: dict[str, Any]) -> dict[str, Any]:
    """A copy ready for ``WorkflowExecutor`` to retry: failed/errored/unfinished nodes and the exit handler
    are dropped, Succeeded/Skipped/Omitted nodes are kept (and so never run again)."""
    name = workflow["metadata"]["name"]
    status = dict(workflow.get("status") or {})
    exit_prefix = f"{name}.onExit"
    kept = {nid: node for nid, node in (status.get("nodes") or {}).items()
            if node.get("phase") in KEPT_ON_RESUME and not str(node.get("name", "")).startswith(exit_prefix)}
    nodes = {nid: {**node, "children": [c for c in node.get("children", []) if c in kept]}
             for nid, node in kept.items()}
    for key in ("phase", "message", "finishedAt", "outputs"):
        status.pop(key, None)
    status["nodes"] = nodes
    return {**workflow, "status": status}
