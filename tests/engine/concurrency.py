"""Helpers for engine tests that run workflows side by side: a run in a thread, polling, overlap of spans."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aipipe.config import load_config
from aipipe.engine.context import default_context
from aipipe.engine.executor import WorkflowExecutor


def max_overlap(intervals: Iterable[tuple[float, float]]) -> int:
    """How many of the (start, end) intervals ran at once, at most."""
    pairs = list(intervals)
    events = sorted([(end, -1) for _, end in pairs] + [(start, 1) for start, _ in pairs])
    level = peak = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    return peak


def executor(home: Path, wf: dict[str, Any], changes: list[dict[str, Any]], run: str | None = None) -> WorkflowExecutor:
    """An executor for ``wf`` under ``home`` that appends every change to ``changes``."""
    ctx = default_context(load_config(env={"AIPIPE_HOME": str(home)}),
                          home / "runs" / (run or wf["metadata"]["name"]), on_change=changes.append)
    return WorkflowExecutor(wf, ctx)


def in_thread(target: Callable[[], dict[str, Any]]) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``target`` in a daemon thread; its result lands in the box under ``out``."""
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("out", target()), daemon=True)
    thread.start()
    return thread, box


def wait_for(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
