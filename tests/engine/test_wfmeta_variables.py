"""The documented ``workflow.*`` variables (docs/variables.md, "Global") that wfmeta computes for a run, and the
workflowMetadata it sets."""

from __future__ import annotations

from typing import Any

import pytest

from aipipe.engine.template import Scope
from aipipe.engine.wfmeta import creation_variables, submitted_with_metadata, with_workflow_metadata, workflow_variables
from tests.engine.conftest import EngineRun

WF = {"metadata": {"name": "n", "uid": "u-1", "labels": {"b": "2", "a": "1"}, "annotations": {"note": "x"},
                   "creationTimestamp": "2024-03-05T06:07:08Z"},
      "spec": {"priority": 3, "arguments": {"parameters": [{"name": "p", "value": "v"}]}}}


def test_json_forms_uid_and_priority() -> None:
    values = workflow_variables(WF, WF["spec"])
    assert values["workflow.labels.json"] == '{"a":"1","b":"2"}'
    assert values["workflow.annotations.json"] == '{"note":"x"}'
    assert values["workflow.parameters.json"] == '[{"name":"p","value":"v"}]'
    assert values["workflow.uid"] == "u-1" and values["workflow.priority"] == "3"
    assert values["workflow.creationTimestamp"] == "2024-03-05T06:07:08Z"
    assert "workflow.priority" not in workflow_variables({"metadata": {}}, {})  # Argo: only with spec.priority


def test_creation_time_by_strftime_character() -> None:
    values = creation_variables("2024-03-05T06:07:08+00:00")
    assert values["workflow.creationTimestamp.RFC3339"] == "2024-03-05T06:07:08Z"
    picked = [values[f"workflow.creationTimestamp.{c}"] for c in "Ymdj"]
    assert picked == ["2024", "03", "05", "065"]
    assert values["workflow.creationTimestamp.B"] == "March" and values["workflow.creationTimestamp.H"] == "06"
    assert creation_variables("") == {} and creation_variables("yesterday") == {}


def test_expressions_still_see_the_creation_time_as_text() -> None:
    """labelsFrom (an expression) reads workflow.creationTimestamp as the timestamp, not a map of its forms."""
    env = Scope(workflow_variables(WF, WF["spec"])).env()
    assert env["workflow"]["creationTimestamp"] == "2024-03-05T06:07:08Z"
    wf = {**WF, "spec": {"workflowMetadata": {"labelsFrom": {
        "year": {"expression": "sprig.date('2006', workflow.creationTimestamp)"},
        "team": {"expression": "workflow.labels.a"}}}}}
    assert with_workflow_metadata(wf, wf["spec"])["metadata"]["labels"]["team"] == "1"


@pytest.mark.parametrize(("metadata", "words"), [
    ({"labels": {"channel": "nightly-"}}, 'invalid label value "nightly-" for label "channel"'),
    ({"labelsFrom": {"release": {"expression": "'Spring Release'"}}},
     'invalid label value "Spring Release" for label "release" and expression "\'Spring Release\'"'),
])
def test_a_label_argo_cannot_set_errs_the_run_before_any_node(engine: EngineRun, metadata: dict[str, Any],
                                                              words: str) -> None:
    wf = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "badlabel"},
          "spec": {"entrypoint": "main", "workflowMetadata": metadata,
                   "templates": [{"name": "main", "container": {"image": "alpine", "command": ["true"]}}]}}
    stored = submitted_with_metadata(wf, wf["spec"])  # the submit is not refused
    out = engine.run(stored)
    assert out["status"]["phase"] == "Error" and out["status"]["message"].startswith(words)
    assert not out["status"].get("nodes")
