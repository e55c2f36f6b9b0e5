"""Follow a submitted workflow until it finishes, reporting each node's phase changes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aipipe.argo.client import ArgoClient

DONE_PHASES = ("Succeeded", "Failed", "Error")
POLL_SECONDS = 2.0


def node_changes(status: dict[str, Any], seen: dict[str, str]) -> list[tuple[str, str, str]]:
    """(display name, phase, message) for every pod/skipped node whose phase changed since ``seen``."""
    changes = []
    nodes = sorted((status.get("nodes") or {}).values(), key=lambda n: str(n.get("startedAt") or ""))
    for node in nodes:
        if node.get("type") not in ("Pod", "Skipped"):
            continue
        node_id, phase = str(node.get("id")), str(node.get("phase") or "Pending")
        if seen.get(node_id) != phase:
            seen[node_id] = phase
            changes.append((str(node.get("displayName") or node.get("name")), phase, str(node.get("message") or "")))
    return changes


def wait_for(client: ArgoClient, name: str, report: Callable[[str, str, str], None],
             poll_seconds: float = POLL_SECONDS, timeout_seconds: float | None = None) -> dict[str, Any]:
    """Poll until the workflow's phase is final; returns its final status."""
    seen: dict[str, str] = {}
    delay = min(0.5, poll_seconds)  # quick feedback at first, then every poll_seconds
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    while True:
        status = client.get_workflow(name).get("status") or {}
        for display, phase, message in node_changes(status, seen):
            report(display, phase, message)
        if status.get("phase") in DONE_PHASES:
            return status
        if deadline is not None and time.monotonic() > deadline:
            return status
        time.sleep(delay)
        delay = min(delay * 2, poll_seconds)
