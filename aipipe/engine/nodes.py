"""The status tree: node ids, names and copy-on-write node records, and the change feed to ``on_change``.

Each node record is replaced, never mutated, so a snapshot of the tree is a shallow copy. Changes
are written by one emitter thread that coalesces bursts; a caller of :meth:`NodeTree.commit` waits
until a snapshot containing its change has been handed to ``on_change``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

DONE_PHASES = ("Succeeded", "Failed", "Error", "Skipped", "Omitted")
KEPT_ON_RESUME = ("Succeeded", "Skipped", "Omitted")


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
            record = {**self.nodes.get(nid, {}), **fields}
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


def subtree_progress(nodes: dict[str, dict[str, Any]], nid: str) -> str:
    """``done/total`` over the Pod nodes below (and including) ``nid``."""
    done = total = 0
    stack, seen = [nid], set()
    while stack:
        current = stack.pop()
        if current in seen or current not in nodes:
            continue
        seen.add(current)
        node = nodes[current]
        if node.get("type") == "Pod":
            total += 1
            done += node.get("phase") in DONE_PHASES
        stack.extend(node.get("children", []))
    return f"{done}/{total}"


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
