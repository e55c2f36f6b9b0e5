"""The one grammar end to end in the engine: tests/engine/golden/expressions.yaml."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.engine.conftest import EngineRun, nodes_by_display

GOLDEN = Path(__file__).parent / "golden" / "expressions.yaml"


def test_pipe_optional_chaining_coalescing_and_variadic_sprig_in_a_workflow(engine: EngineRun) -> None:
    out = engine.run(yaml.safe_load(GOLDEN.read_text()))
    nodes = nodes_by_display(out)
    assert nodes["summary"][0]["outputs"]["result"] == "[18,8,24] 10 9 a b c"
    assert nodes["coalesce"][0]["outputs"]["result"] == "fallback 6"
    assert nodes["flip"][0]["phase"] == "Failed"
    assert nodes["when-true"][0]["phase"] == "Succeeded"
    assert nodes["when-true"][0]["outputs"]["result"] == "ran"
    assert nodes["when-false"][0]["phase"] == "Skipped"
    assert "evaluated false" in nodes["when-false"][0]["message"]
    # when-false is a target task Skipped below the Failed flip: Argo's assessDAGPhase gives it flip's branch phase,
    # so the DAG fails although when-true handled flip (tests/engine/upstream: dag-task-status-when)
    assert out["status"]["phase"] == "Failed"
