"""Run control through a real ``aipipe server``: suspend/resume (the official SDK's typed calls), set of a
suspend node, stop vs terminate, and Argo's refusals."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import argo_workflows
import pytest
from argo_workflows.api import workflow_service_api
from argo_workflows.model.io_argoproj_workflow_v1alpha1_workflow_resume_request import (
    IoArgoprojWorkflowV1alpha1WorkflowResumeRequest,
)
from argo_workflows.model.io_argoproj_workflow_v1alpha1_workflow_suspend_request import (
    IoArgoprojWorkflowV1alpha1WorkflowSuspendRequest,
)
from hera.workflows import WorkflowsService
from hera.workflows.models import WorkflowResumeRequest, WorkflowSetRequest

from tests.polling import wait_until
from tests.server.conftest import ServerProcess, start_server

NS = "argo"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = start_server(Path(tmp_path_factory.mktemp("control")) / "home")
    yield server
    server.stop()


def sh(name: str, script: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "container": {"image": "busybox", "command": ["sh", "-c", script]}, **extra}


def submit(srv: ServerProcess, prefix: str, templates: list[dict[str, Any]], **spec: Any) -> str:
    body = {"workflow": {"metadata": {"generateName": prefix},
                         "spec": {"entrypoint": "main", "templates": templates, **spec}}}
    created = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}", json=body, timeout=30)
    assert created.ok, created.text
    return str(created.json()["metadata"]["name"])


def get(srv: ServerProcess, name: str) -> dict[str, Any]:
    return dict(srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/{name}", timeout=30).json())


def node(srv: ServerProcess, name: str, display: str) -> dict[str, Any] | None:
    return next((n for n in (get(srv, name).get("status") or {}).get("nodes", {}).values()
                 if n["displayName"] == display), None)


def wait(what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
    return wait_until(what, check, timeout)


def finished(srv: ServerProcess, name: str) -> dict[str, Any]:
    return dict(wait(f"{name} to finish", lambda: (w := get(srv, name)) and
                     w.get("status", {}).get("phase") in ("Succeeded", "Failed", "Error") and w))


def put(srv: ServerProcess, name: str, action: str, body: dict[str, Any] | None = None) -> Any:
    return srv.http.put(f"{srv.url}/api/v1/workflows/{NS}/{name}/{action}", json=body or {}, timeout=30)


def sdk(srv: ServerProcess) -> argo_workflows.ApiClient:
    config = argo_workflows.Configuration(host=srv.url)
    config.api_key["BearerToken"] = srv.token
    config.api_key_prefix["BearerToken"] = "Bearer"
    return argo_workflows.ApiClient(config)


def test_suspend_and_resume_with_the_official_sdk(srv: ServerProcess) -> None:
    name = submit(srv, "pause-", [{"name": "main", "dag": {"tasks": [
        {"name": "first", "template": "slow"}, {"name": "second", "template": "quick", "depends": "first"}]}},
        sh("slow", "sleep 2"), sh("quick", "echo done")])
    wait("the first task to run", lambda: (n := node(srv, name, "first")) and n["phase"] == "Running")
    with sdk(srv) as client:
        api = workflow_service_api.WorkflowServiceApi(client)
        suspended = api.suspend_workflow(NS, name, IoArgoprojWorkflowV1alpha1WorkflowSuspendRequest(
            name=name, namespace=NS))
        assert suspended.metadata.name == name and suspended.spec.suspend is True
        wait("the first task to end", lambda: (n := node(srv, name, "first")) and n["phase"] == "Succeeded")
        time.sleep(2.0)
        assert node(srv, name, "second") is None, "a task started while the run was suspended"
        assert get(srv, name)["spec"]["suspend"] is True
        resumed = api.resume_workflow(NS, name, IoArgoprojWorkflowV1alpha1WorkflowResumeRequest(
            name=name, namespace=NS))
        assert resumed.metadata.name == name
    final = finished(srv, name)
    assert final["status"]["phase"] == "Succeeded" and "suspend" not in final["spec"]
    refused = put(srv, name, "suspend")
    assert refused.status_code == 400 and "cannot suspend completed workflows" in refused.json()["message"]


APPROVAL: list[dict[str, Any]] = [
    {"name": "main", "steps": [[{"name": "approve", "template": "approve"}],
                               [{"name": "use", "template": "use", "arguments": {"parameters": [
                                   {"name": "v", "value": "{{steps.approve.outputs.parameters.answer}}"}]}}]]},
    {"name": "approve", "suspend": {}, "outputs": {"parameters": [{"name": "answer", "valueFrom": {"supplied": {}}}]}},
    {"name": "use", "inputs": {"parameters": [{"name": "v"}]},
     "container": {"image": "busybox", "command": ["echo", "got {{inputs.parameters.v}}"]}},
]


def test_set_then_resume_a_suspend_node(srv: ServerProcess) -> None:
    name = submit(srv, "approve-", APPROVAL)
    wait("the suspend node", lambda: (n := node(srv, name, "approve")) and n["phase"] == "Running")
    selector = "displayName=approve"
    for body, status, words in [
        ({"nodeFieldSelector": selector, "outputParameters": "not json"}, 400, "unable to parse output parameter"),
        ({"nodeFieldSelector": selector, "phase": "Running"}, 400, "Running is an invalid phase to set to"),
        ({"outputParameters": json.dumps({"answer": "x"})}, 400, "nodeFieldSelector cannot be empty"),
        ({"nodeFieldSelector": "displayName=nobody", "outputParameters": json.dumps({"answer": "x"})}, 400,
         "no suspend nodes matching nodeFieldSelector"),
    ]:
        refused = put(srv, name, "set", body)
        assert refused.status_code == status and words in refused.json()["message"], refused.text
    assert put(srv, name, "resume").status_code == 400  # 'answer' has no default: it must be set first
    # Hera's typed calls, selecting the node by id as the Argo UI does
    waiting = node(srv, name, "approve")
    assert waiting is not None
    nid = waiting["id"]
    hera = WorkflowsService(host=srv.url, namespace=NS, token=srv.token)
    answered = hera.set_workflow(name, WorkflowSetRequest(node_field_selector=f"id={nid}",
                                                          output_parameters=json.dumps({"answer": "yes"})))
    assert answered.status is not None and answered.status.nodes is not None
    assert answered.status.nodes[nid].phase == "Running"
    resumed = hera.resume_workflow(name, WorkflowResumeRequest(node_field_selector=f"id={nid}"))
    assert resumed.metadata.name == name
    final = finished(srv, name)
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Succeeded"
    assert nodes["approve"]["outputs"]["parameters"] == [{"name": "answer", "value": "yes"}]
    assert nodes["use"]["inputs"]["parameters"] == [{"name": "v", "value": "yes"}]


def test_stop_with_a_node_selector_fails_the_suspend_node(srv: ServerProcess) -> None:
    name = submit(srv, "reject-", APPROVAL)
    wait("the suspend node", lambda: (n := node(srv, name, "approve")) and n["phase"] == "Running")
    assert put(srv, name, "stop", {"nodeFieldSelector": "displayName=approve", "message": "no thanks"}).ok
    final = finished(srv, name)
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed" and "shutdown" not in final["spec"]
    assert nodes["approve"]["phase"] == "Failed" and nodes["approve"]["message"] == "no thanks"


SHUTDOWN_RUN: list[dict[str, Any]] = [{"name": "main", "dag": {"tasks": [{"name": "work", "template": "work"}]}},
                sh("work", "sleep 120"), sh("cleanup", "echo cleaned up")]


@pytest.mark.parametrize("action,strategy,exit_runs", [("stop", "Stop", True), ("terminate", "Terminate", False)])
def test_stop_runs_exit_handlers_and_terminate_does_not(srv: ServerProcess, action: str, strategy: str,
                                                        exit_runs: bool) -> None:
    name = submit(srv, f"{action}-", SHUTDOWN_RUN, onExit="cleanup")
    wait("the work node", lambda: (n := node(srv, name, "work")) and n["phase"] == "Running")
    answered = put(srv, name, action)
    assert answered.ok and answered.json()["spec"]["shutdown"] == strategy
    final = finished(srv, name)
    message = f"Stopped with strategy '{strategy}'"
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed" and final["status"]["message"] == message
    assert nodes["work"]["phase"] == "Failed" and nodes["work"]["message"] == message
    assert (f"{name}.onExit" in nodes) is exit_runs
    if exit_runs:
        assert nodes[f"{name}.onExit"]["phase"] == "Succeeded"
    again = put(srv, name, action)
    assert again.status_code == 409 and "cannot shutdown a completed workflow" in again.json()["message"]


def test_control_of_an_unknown_run_is_404(srv: ServerProcess) -> None:
    for action in ("suspend", "resume", "set", "stop", "terminate"):
        assert put(srv, "no-such-run", action).status_code == 404
