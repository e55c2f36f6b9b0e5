"""A template's ``failFast`` stops its walk at the first failed child, before anything else of it is decided.

Argo's checkParallelism fails a steps or dag template with failFast as soon as it has a failed or errored child and
no running pod, and it runs before executeSteps/executeDAG: a dependant the failure rules out gets no Omitted node,
and no step's exit hook starts after the failure.
"""

from __future__ import annotations

from typing import Any

from tests.engine.conftest import EngineRun, nodes_by_display

FAIL_FAST = "template has failed or errored children and failFast enabled"
EXIT_WITH = {"name": "exit-with", "inputs": {"parameters": [{"name": "code"}]},
             "container": {"image": "alpine", "command": ["sh", "-c", "exit {{inputs.parameters.code}}"]}}


def _workflow(main: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "ff-"},
            "spec": {"entrypoint": "main", "templates": [main, EXIT_WITH]}}


def _code(value: str) -> dict[str, Any]:
    return {"parameters": [{"name": "code", "value": value}]}


def test_a_dag_with_fail_fast_omits_nothing_after_the_failure(engine: EngineRun) -> None:
    main = {"name": "main", "parallelism": 1, "failFast": True, "dag": {"tasks": [
        {"name": "apply", "template": "exit-with", "arguments": _code("{{item}}"), "withItems": ["0", "3", "0"]},
        {"name": "finalize", "depends": "apply", "template": "exit-with", "arguments": _code("0")}]}}
    wf = engine.run(_workflow(main))
    nodes = nodes_by_display(wf)
    assert wf["status"]["phase"] == "Failed" and wf["status"]["message"] == FAIL_FAST
    assert nodes["apply(0:0)"][0]["phase"] == "Succeeded" and nodes["apply(1:3)"][0]["phase"] == "Failed"
    assert "apply(2:0)" not in nodes and "finalize" not in nodes


def test_a_dag_without_fail_fast_still_omits_the_dependant(engine: EngineRun) -> None:
    main = {"name": "main", "dag": {"tasks": [
        {"name": "apply", "template": "exit-with", "arguments": _code("3")},
        {"name": "finalize", "depends": "apply", "template": "exit-with", "arguments": _code("0")}]}}
    wf = engine.run(_workflow(main))
    assert nodes_by_display(wf)["finalize"][0]["phase"] == "Omitted"


def test_a_failed_step_runs_no_exit_hook_under_fail_fast(engine: EngineRun) -> None:
    step = {"name": "deploy", "template": "exit-with", "arguments": _code("2"),
            "hooks": {"exit": {"template": "exit-with", "arguments": _code("0")}}}
    main = {"name": "main", "failFast": True, "steps": [[step]]}
    wf = engine.run(_workflow(main))
    nodes = nodes_by_display(wf)
    assert wf["status"]["phase"] == "Failed" and nodes["deploy"][0]["phase"] == "Failed"
    assert "deploy.onExit" not in nodes
    main.pop("failFast")  # without it the hook runs, as before
    assert "deploy.onExit" in nodes_by_display(engine.run(_workflow(main)))
