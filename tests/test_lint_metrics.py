"""`aipipe lint` on Argo custom metrics: what the CRD schema accepts but the controller cannot emit."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from aipipe.compile.lint import lint_documents


def step(name: str, *metrics: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "metrics": {"prometheus": list(metrics)},
            "outputs": {"parameters": [{"name": "score", "valueFrom": {"path": "/tmp/score"}}]},
            "container": {"image": "busybox", "command": ["sh", "-c", "echo 0.5 > /tmp/score"]}}


def workflow(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "m-"},
            "spec": {"entrypoint": "main",
                     "templates": [{"name": "main", "steps": [[{"name": t["name"], "template": t["name"]}]
                                                              for t in templates]}, *templates], **spec}}


SCORE = {"name": "score", "help": "Score of a step", "when": "{{status}} == Succeeded",
         "gauge": {"realtime": False, "value": "{{outputs.parameters.score}}"}}
TIME = {"name": "step_time", "help": "Step time", "gauge": {"realtime": True, "value": "{{duration}}"}}
RUN_TIME = {"name": "run_time", "help": "Run time", "gauge": {"realtime": True, "value": "{{workflow.duration}}"}}
RUNS = {"name": "runs", "help": "Runs by status", "labels": [{"key": "status", "value": "{{status}}"}],
        "counter": {"value": "1"}}


def with_changes(metric: dict[str, Any], **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(metric)
    changed.update(changes)
    return changed


def test_valid_metrics_lint_clean() -> None:
    doc = workflow(step("a", SCORE, TIME, RUNS), step("b", SCORE, TIME, RUNS), metrics={"prometheus": [RUN_TIME]})
    assert lint_documents([("wf.yaml", doc)]) == []


@pytest.mark.parametrize(("metric", "check", "message"), [
    (with_changes(RUNS, gauge={"realtime": False, "value": "1"}), "metrics", "exactly one of gauge, counter"),
    (with_changes(SCORE, gauge={"realtime": True, "value": "{{outputs.parameters.score}}"}), "metrics",
     "a real-time gauge can only read {{duration}} or {{workflow.duration}}"),
    (with_changes(SCORE, gauge={"realtime": False, "value": "{{outputs.parameters.scroe}}"}), "reference",
     "template 'b' declares no output 'scroe'"),
    (with_changes(SCORE, labels=[{"key": "x", "value": "{{ outputs.parameters.missing }}"}]), "reference",
     "declares no output 'missing'"),
    (with_changes(TIME, help="Time of a step"), "metrics", "one name keeps one type and one help"),
    (with_changes(TIME, gauge=None, counter={"value": "1"}), "metrics", "is a counter"),
])
def test_a_broken_metric_is_reported_where_it_is(metric: dict[str, Any], check: str, message: str) -> None:
    doc = workflow(step("a", SCORE, TIME), step("b", metric))
    found = lint_documents([("wf.yaml", doc)])
    assert [(d.check, d.template, d.field) for d in found] == [
        (check, "b", "spec.templates[2].metrics.prometheus[0]" + (".gauge.value" if "real-time" in message else ""))]
    assert message in found[0].message


def test_one_name_is_compared_across_manifests() -> None:
    template = {"apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate", "metadata": {"name": "t"},
                "spec": {"templates": [step("c", with_changes(SCORE, help="Another score"))]}}
    found = lint_documents([("wf.yaml", workflow(step("a", SCORE))), ("t.yaml", template)])
    assert [(d.kind, d.name, d.check) for d in found] == [("WorkflowTemplate", "t", "metrics")]
    assert "at Workflow/m- template a" in found[0].message
