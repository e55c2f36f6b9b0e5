"""Helpers for engine tests that run workflows side by side: a run in a thread or in another engine process,
polling, overlap of spans, a pinned GPU inventory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aipipe.config import load_config
from aipipe.engine.context import default_context
from aipipe.engine.executor import WorkflowExecutor

REPO_ROOT = Path(__file__).resolve().parents[2]


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


def pin(home: Path, *memory_mb: int) -> None:
    """A machine of GPUs with these memories (MiB), through the pool's documented gpus.json override."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "gpus.json").write_text(json.dumps([{"index": i, "memory_mb": m} for i, m in enumerate(memory_mb)]))


def other_driver(home: Path, wf: dict[str, Any]) -> subprocess.Popen[str]:
    """Another engine process running ``wf`` to its end; its last stdout line is the final status."""
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from aipipe.config import load_config
        from aipipe.engine.context import default_context
        from aipipe.engine.executor import WorkflowExecutor
        home = Path({str(home)!r})
        wf = json.loads(sys.argv[1])
        ctx = default_context(load_config(env={{"AIPIPE_HOME": str(home)}}), home / "runs" / wf["metadata"]["name"])
        print(json.dumps(WorkflowExecutor(wf, ctx).run()["status"]))
    """)
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen([sys.executable, "-c", script, json.dumps(wf)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT, start_new_session=True)


def finished(proc: subprocess.Popen[str]) -> dict[str, Any]:
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    status: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    assert status["phase"] == "Succeeded", status
    return status
