"""Helpers for engine tests: a fresh AIPIPE_HOME per test and a one-call runner."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from aipipe.config import load_config
from aipipe.engine.context import ExecutionContext, default_context, dict_templates
from aipipe.engine.executor import WorkflowExecutor


class EngineRun:
    """Runs workflows in a private AIPIPE_HOME and keeps what the callbacks saw."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.logs: list[tuple[str, str]] = []
        self.changes: list[dict[str, Any]] = []
        self.env: dict[str, str] = {"AIPIPE_HOME": str(home)}
        self.ctx: ExecutionContext | None = None

    def context(self, templates: list[dict[str, Any]] | None = None, **extra: Any) -> ExecutionContext:
        cfg = load_config(env=self.env)
        self.ctx = default_context(cfg, self.home / "runs" / "r1", templates=dict_templates(templates or []),
                                   on_change=self.changes.append, on_log=lambda n, t: self.logs.append((n, t)),
                                   **extra)
        return self.ctx

    def run(self, workflow: dict[str, Any], templates: list[dict[str, Any]] | None = None,
            stop: threading.Event | None = None, **extra: Any) -> dict[str, Any]:
        workflow.setdefault("metadata", {}).setdefault("name", str(workflow["metadata"].get("generateName", "wf-"))
                                                       + "t1")
        return WorkflowExecutor(workflow, self.context(templates, **extra)).run(stop)

    def log_text(self, display: str | None = None, status: dict[str, Any] | None = None) -> str:
        ids = None
        if display is not None and status is not None:
            ids = {n["id"] for n in status["nodes"].values() if n["displayName"] == display}
        return "".join(t for n, t in self.logs if ids is None or n in ids)


@pytest.fixture
def engine(tmp_path: Path) -> EngineRun:
    return EngineRun(tmp_path / "home")


def nodes_by_display(workflow: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for node in workflow["status"]["nodes"].values():
        out.setdefault(node["displayName"], []).append(node)
    return out


