"""Helpers for engine tests: a fresh AIPIPE_HOME per test and a one-call runner."""

from __future__ import annotations

import sys
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




# --- the conformance corpus must run in full: "one test per EXPECTED.yaml entry (no xfail, no skip)" ---------------
CONFORMANCE_CASE = "test_conformance.py::test_conformance["  # in every node id of a corpus case
_conformance_passed: set[str] = set()
_conformance_problem: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if CONFORMANCE_CASE in report.nodeid and report.when == "call" and report.passed \
            and not hasattr(report, "wasxfail"):
        _conformance_passed.add(report.nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run that selected every corpus case fails unless every one of them passed (a skip or xfail is not a pass).

    Runs that select only part of the corpus (``-k``, a node id, ``--lf``) are left alone, as are
    collect-only runs and xdist workers (each runs only a share).
    """
    if session.config.option.collectonly or hasattr(session.config, "workerinput"):
        return
    module = sys.modules.get("tests.engine.test_conformance")
    selected = {item.nodeid for item in session.items if CONFORMANCE_CASE in item.nodeid}
    if module is None or not selected or len(selected) < len(module.EXPECTED):
        return
    missing = sorted(nodeid.split("[", 1)[1].rstrip("]") for nodeid in selected - _conformance_passed)
    if missing:
        _conformance_problem.append(f"conformance corpus: {len(selected) - len(missing)} of {len(selected)} "
                                    f"cases passed (all must); not passed: {', '.join(missing)}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in _conformance_problem:
        terminalreporter.write_line(line, red=True)
