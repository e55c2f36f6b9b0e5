"""The typed engine core: phases and node types are enums inside, plain Argo strings in every record."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest
import yaml

import aipipe.engine
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import node_id
from aipipe.engine.phases import NodePhase, NodeType
from tests.engine.conftest import EngineRun
from tests.engine.test_golden import load


def _enum_leaks(value: Any, where: str = "") -> list[str]:
    """Paths inside ``value`` holding a str subclass instead of a plain str (an enum member leaking out)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _enum_leaks(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _enum_leaks(v, f"{where}[{i}]")]
    return [where] if isinstance(value, str) and type(value) is not str else []


def test_records_hold_plain_strings(engine: EngineRun) -> None:
    wf, _ = load("lifecycle-hooks.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == NodePhase.SUCCEEDED
    assert _enum_leaks(out) == []
    assert all(_enum_leaks(change) == [] for change in engine.changes)
    yaml.safe_dump(out)  # a served or printed run is plain data
    types = {n["type"] for n in out["status"]["nodes"].values()}
    assert types <= {t.value for t in NodeType} and {"Steps", "StepGroup", "Pod"} <= types


def test_enum_members_are_argo_strings() -> None:
    assert [p.value for p in NodePhase] == ["Pending", "Running", "Succeeded", "Failed", "Error", "Skipped",
                                            "Omitted"]
    assert NodeType.STEP_GROUP == "StepGroup" and NodeType.TASK_GROUP == "TaskGroup" and NodeType.DAG == "DAG"


def test_node_ref_is_frozen_and_derives_ids() -> None:
    root = NodeRef("wf", "wf", "wf")
    assert root.id == "wf" and root.parent is None and root.boundary == ""
    group = root.child("wf[0]", "[0]", boundary=root.id)
    step = group.child("wf[0].a", "a", boundary=group.boundary)
    assert (step.id, step.parent, step.boundary) == (node_id("wf", "wf[0].a"), group.id, "wf")
    attempt = step.attempt(2)
    assert (attempt.name, attempt.display, attempt.parent, attempt.boundary) == ("wf[0].a(2)", "a(2)", step.id, "wf")
    exit_handler = step.sibling("wf[0].a.onExit", "a.onExit")
    assert (exit_handler.parent, exit_handler.boundary) == (group.id, "wf")
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.name = "other"  # type: ignore[misc]


def test_every_template_kind_has_a_handler_behind_one_interface(engine: EngineRun) -> None:
    from aipipe.engine.executor import WorkflowExecutor

    wf, _ = load("lifecycle-hooks.yaml")
    executor = WorkflowExecutor(wf, engine.context())
    executor.run()
    assert executor.invoker is not None
    handlers = executor.invoker.handlers
    assert set(handlers) == {"container", "script", "containerSet", "steps", "dag", "suspend", "http", "data"}
    for handler in handlers.values():
        assert list(inspect.signature(handler.run).parameters) == ["call", "node", "scope"]


def test_engine_modules_stay_small() -> None:
    """No module of the engine core over 500 lines unless its docstring says why (runners/ and grammar/ are
    checked by their own owners)."""
    root = Path(aipipe.engine.__file__).parent
    long = [p.name for p in root.glob("*.py") if len(p.read_text().splitlines()) > 500
            and "long because" not in (ast.get_docstring(ast.parse(p.read_text())) or "")]
    assert long == []
