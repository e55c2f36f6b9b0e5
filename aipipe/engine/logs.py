"""Node logs into the run store, capped per node: the tail is kept and the cut is said in the log.

``engine.max_log_bytes`` bounds what one node's log keeps in the store. When a node writes more,
its oldest chunks are dropped and the log starts with a line saying how many bytes were dropped;
``engine.log_retention_days`` bounds how long finished runs keep their logs.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

from aipipe.engine.store import RunStore

HEAD_RESERVE = 96  # bytes kept free for the "dropped" line
_HEAD_RE = re.compile(r"^… (\d+) bytes of earlier output dropped …\n$")
_BATCH = 256


def dropped_line(count: int) -> str:
    return f"… {count} bytes of earlier output dropped …\n"


@dataclass
class _NodeLog:
    stored: int  # bytes of the kept chunks (the head line not counted)
    dropped: int = 0
    head_id: int | None = None


class CappedLogWriter:
    """Appends one run's node logs to the store, keeping at most ``cap`` bytes per node (head line included)."""

    def __init__(self, store: RunStore, workflow_uid: str, cap: int) -> None:
        self.store = store
        self.uid = workflow_uid
        self.cap = cap
        self.budget = max(cap - HEAD_RESERVE, 0)
        self.nodes: dict[str, _NodeLog] = {}
        self.lock = threading.Lock()

    def append(self, node_id: str, text: str) -> None:
        with self.lock:
            self._append(node_id, text)

    def _state(self, node_id: str) -> _NodeLog:
        state = self.nodes.get(node_id)
        if state is None:  # first write of this driver (a resumed run may have kept some)
            state = _NodeLog(self.store.node_log_bytes(self.uid, node_id))
            first = self.store.first_log_row(self.uid, node_id)
            match = _HEAD_RE.match(first[1]) if first else None
            if first and match:
                state.head_id, state.dropped = first[0], int(match.group(1))
                state.stored -= len(first[1].encode())
            self.nodes[node_id] = state
        return state

    def _append(self, node_id: str, text: str) -> None:
        if self.cap <= 0:
            self.store.append_log(self.uid, node_id, text)
            return
        state = self._state(node_id)
        data = text.encode()
        cut = 0
        if len(data) > self.budget:
            cut = len(data) - self.budget
            text = data[cut:].decode(errors="ignore")
            data = text.encode()
        if not cut and not state.dropped and state.stored + len(data) <= self.cap:
            self.store.append_log(self.uid, node_id, text)
            state.stored += len(data)
            return
        excess = state.stored + len(data) - self.budget  # from now on the log starts with the "dropped" line
        drop_ids: list[int] = []
        freed, after = 0, 0
        while freed < excess:
            rows = self.store.node_log_rows(self.uid, node_id, _BATCH, after)
            if not rows:
                break
            for row_id, size in rows:
                after = row_id
                if row_id == state.head_id:
                    continue
                if freed >= excess:
                    break
                drop_ids.append(row_id)
                freed += size
        state.dropped += cut + freed
        state.stored += len(data) - freed
        state.head_id = self.store.replace_log_head(self.uid, node_id, drop_ids, state.head_id,
                                                    dropped_line(state.dropped), text)


def prune_old_logs(store: RunStore, retention_days: float, now: float | None = None) -> int:
    """Delete finished runs' node logs older than ``retention_days`` (0 or less keeps everything)."""
    if retention_days <= 0:
        return 0
    return store.prune_logs((time.time() if now is None else now) - retention_days * 86400)
