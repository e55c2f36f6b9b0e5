"""The typed engine core: phases and node types are enums inside, plain Argo strings in every record."""

from __future__ import annotations

from typing import Any

import yaml

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
