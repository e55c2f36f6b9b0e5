"""The official ``argo-workflows`` SDK's typed calls, unmodified (``_check_return_type`` on), against a real
``aipipe server``: its models refuse ``null`` where Argo's server omits a field, so these pass only when
the answers are shaped as Argo's (Go ``omitempty``, ``spec.arguments`` always there)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import argo_workflows
import pytest
from argo_workflows.api import workflow_service_api
from argo_workflows.model.container import Container
from argo_workflows.model.io_argoproj_workflow_v1alpha1_artifact import IoArgoprojWorkflowV1alpha1Artifact
from argo_workflows.model.io_argoproj_workflow_v1alpha1_outputs import IoArgoprojWorkflowV1alpha1Outputs
from argo_workflows.model.io_argoproj_workflow_v1alpha1_template import IoArgoprojWorkflowV1alpha1Template
from argo_workflows.model.io_argoproj_workflow_v1alpha1_workflow import IoArgoprojWorkflowV1alpha1Workflow
from argo_workflows.model.io_argoproj_workflow_v1alpha1_workflow_create_request import (
    IoArgoprojWorkflowV1alpha1WorkflowCreateRequest,
)
from argo_workflows.model.io_argoproj_workflow_v1alpha1_workflow_spec import IoArgoprojWorkflowV1alpha1WorkflowSpec
from argo_workflows.model.object_meta import ObjectMeta

from tests.server.conftest import ServerProcess
from tests.server.test_sse_streams import assert_no_nulls

NS = "argo"


@pytest.fixture
def api(server: ServerProcess) -> Iterator[workflow_service_api.WorkflowServiceApi]:
    config = argo_workflows.Configuration(host=server.url)
    config.api_key["BearerToken"] = server.token
    config.api_key_prefix["BearerToken"] = "Bearer"
    with argo_workflows.ApiClient(config) as client:
        yield workflow_service_api.WorkflowServiceApi(client)


def _workflow(script: str) -> IoArgoprojWorkflowV1alpha1Workflow:
    template = IoArgoprojWorkflowV1alpha1Template(
        name="main", container=Container(image="alpine", command=["sh", "-c", script]),
        outputs=IoArgoprojWorkflowV1alpha1Outputs(artifacts=[
            IoArgoprojWorkflowV1alpha1Artifact(name="out", path="/tmp/out.txt")]))
    return IoArgoprojWorkflowV1alpha1Workflow(
        metadata=ObjectMeta(generate_name="sdk-"),
        spec=IoArgoprojWorkflowV1alpha1WorkflowSpec(entrypoint="main", templates=[template]))


def _wait(api: workflow_service_api.WorkflowServiceApi, name: str, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = api.get_workflow(NS, name)
        if got.get("status") and got.status.get("phase") in ("Succeeded", "Failed", "Error"):
            return got
        time.sleep(0.3)
    raise AssertionError(f"{name} did not finish")


def test_typed_create_get_list_watch_delete(api: workflow_service_api.WorkflowServiceApi,
                                            server: ServerProcess) -> None:
    body = IoArgoprojWorkflowV1alpha1WorkflowCreateRequest(workflow=_workflow("echo typed > /tmp/out.txt"))
    created = api.create_workflow(NS, body)
    assert isinstance(created, IoArgoprojWorkflowV1alpha1Workflow)
    name = created.metadata.name
    assert name.startswith("sdk-")
    finished = _wait(api, name)
    assert isinstance(finished, IoArgoprojWorkflowV1alpha1Workflow)
    assert finished.status.phase == "Succeeded"
    node = finished.status.nodes[name]
    assert node.outputs.artifacts[0].name == "out"
    assert finished.status.artifact_repository_ref.default is True
    listed = api.list_workflows(NS)
    assert name in [w.metadata.name for w in listed.items]
    watched = api.watch_workflows(NS, list_options_field_selector=f"metadata.name={name}",
                                  list_options_timeout_seconds="1")
    assert watched.result.object.metadata.uid == finished.metadata.uid
    api.delete_workflow(NS, name)
    after = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30)
    assert after.status_code == 404


def test_typed_calls_on_a_failed_run(api: workflow_service_api.WorkflowServiceApi) -> None:
    """A failed node carries a message and no outputs file: still no null anywhere."""
    created = api.create_workflow(NS, IoArgoprojWorkflowV1alpha1WorkflowCreateRequest(
        workflow=_workflow("echo boom >&2; exit 3")))
    finished = _wait(api, created.metadata.name)
    assert finished.status.phase in ("Failed", "Error")
    assert finished.status.message
    assert api.list_workflows(NS).items


def test_raw_answers_have_no_nulls_and_always_arguments(server: ServerProcess) -> None:
    body = {"workflow": {"metadata": {"generateName": "raw-"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "alpine", "command": ["true"]},
         "outputs": {"parameters": []}}]}}}
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json=body, timeout=30)
    assert created.ok, created.text
    assert_no_nulls(created.json())
    assert created.json()["spec"]["arguments"] == {}
    assert "parameters" not in created.json()["spec"]["templates"][0]["outputs"]  # an empty slice is omitted
    listed = server.http.get(f"{server.url}/api/v1/workflows/{NS}", timeout=30)
    assert_no_nulls(listed.json())
    assert all(item["spec"]["arguments"] == {} for item in listed.json()["items"])
    empty = server.http.get(f"{server.url}/api/v1/workflows/other-ns", timeout=30)
    assert empty.json()["items"] == []
