"""Argo's ArchivedWorkflowService on a real ``aipipe server``: finished runs of the run store, through the
official SDK's typed calls (``argo_workflows.api.ArchivedWorkflowServiceApi``) and plain HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import argo_workflows
import pytest
from argo_workflows.api.archived_workflow_service_api import ArchivedWorkflowServiceApi
from argo_workflows.exceptions import ApiException
from argo_workflows.model.io_argoproj_workflow_v1alpha1_resubmit_archived_workflow_request import (
    IoArgoprojWorkflowV1alpha1ResubmitArchivedWorkflowRequest as ResubmitRequest,
)
from argo_workflows.model.io_argoproj_workflow_v1alpha1_retry_archived_workflow_request import (
    IoArgoprojWorkflowV1alpha1RetryArchivedWorkflowRequest as RetryRequest,
)

from tests.server.conftest import ServerProcess, start_server

NS = "argo"
ARCHIVING = "workflows.argoproj.io/workflow-archiving-status"
FINISHED = ("Succeeded", "Failed", "Error")


def _create(srv: ServerProcess, name: str, script: str, labels: dict[str, str], namespace: str = NS) -> str:
    resp = srv.http.post(f"{srv.url}/api/v1/workflows/{namespace}", timeout=30, json={"workflow": {
        "metadata": {"name": name, "labels": labels}, "spec": {"entrypoint": "main", "templates": [
            {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", script]}}]}}})
    assert resp.ok, resp.text
    return str(resp.json()["metadata"]["uid"])


def _get(srv: ServerProcess, name: str, namespace: str = NS) -> dict[str, Any]:
    resp = srv.http.get(f"{srv.url}/api/v1/workflows/{namespace}/{name}", timeout=30)
    assert resp.ok, resp.text
    return dict(resp.json())


def _wait(srv: ServerProcess, name: str, namespace: str = NS) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        workflow = _get(srv, name, namespace)
        if workflow["status"].get("phase") in FINISHED:
            return workflow
        time.sleep(0.2)
    raise AssertionError(f"{name} did not finish")


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """ok (Succeeded, app=web), broken (Failed, app=batch), other/elsewhere (Succeeded), slow (Running)."""
    server = start_server(tmp_path_factory.mktemp("archive") / "home")
    try:
        _create(server, "ok", "echo fine", {"app": "web"})
        _create(server, "broken", "echo bad; exit 3", {"app": "batch"})
        _create(server, "elsewhere", "true", {"app": "web"}, namespace="other")
        _create(server, "slow", "sleep 60", {"app": "slow"})
        for name, namespace in (("ok", NS), ("broken", NS), ("elsewhere", "other")):
            _wait(server, name, namespace)
        yield server
    finally:
        server.stop()


@pytest.fixture
def api(srv: ServerProcess) -> ArchivedWorkflowServiceApi:
    cfg = argo_workflows.Configuration(host=srv.url)
    cfg.api_key["BearerToken"] = srv.token
    cfg.api_key_prefix["BearerToken"] = "Bearer"
    return ArchivedWorkflowServiceApi(argo_workflows.ApiClient(cfg))


def test_list_holds_the_finished_runs_only(api: ArchivedWorkflowServiceApi) -> None:
    listed = api.list_archived_workflows(namespace=NS)
    assert {w.metadata.name for w in listed.items} == {"ok", "broken"}
    for item in listed.items:
        assert item.metadata.labels[ARCHIVING] == "Persisted"
        assert item.status.phase in FINISHED and item.status.finished_at
        assert "nodes" not in item.status.to_dict()  # the list carries no node graph, as Argo's archive list
    every = api.list_archived_workflows()
    assert {w.metadata.name for w in every.items} == {"ok", "broken", "elsewhere"}


def test_list_filters_and_pages(api: ArchivedWorkflowServiceApi, srv: ServerProcess) -> None:
    def names(**kwargs: Any) -> set[str]:
        return {w.metadata.name for w in api.list_archived_workflows(**kwargs).items or []}

    assert names(list_options_label_selector="app in (web)") == {"ok", "elsewhere"}
    assert names(list_options_label_selector="app notin (web),workflows.argoproj.io/phase=Failed") == {"broken"}
    assert names(namespace=NS, name_prefix="br") == {"broken"}
    assert names(list_options_field_selector="metadata.name=ok") == {"ok"}
    contains = srv.http.get(f"{srv.url}/api/v1/archived-workflows", timeout=30, params={
        "listOptions.fieldSelector": "metadata.name=ro", "nameFilter": "Contains"})  # not in the SDK 6.7
    assert {w["metadata"]["name"] for w in contains.json()["items"]} == {"broken"}
    first = api.list_archived_workflows(list_options_limit="2")
    assert len(first.items) == 2 and first.metadata._continue
    rest = api.list_archived_workflows(list_options_limit="2", list_options_continue=first.metadata._continue)
    assert len(rest.items) == 1 and not rest.metadata.get("_continue")
    assert {w.metadata.name for w in first.items + rest.items} == {"ok", "broken", "elsewhere"}
    resp = srv.http.get(f"{srv.url}/api/v1/archived-workflows", params={"namespace": "Not_A_Namespace"}, timeout=30)
    assert resp.status_code == 400 and "namespace" in resp.json()["message"]


def test_get_by_uid(api: ArchivedWorkflowServiceApi, srv: ServerProcess) -> None:
    uid = _get(srv, "broken")["metadata"]["uid"]
    got = api.get_archived_workflow(uid)
    assert got.metadata.name == "broken" and got.status.phase == "Failed"
    assert got.metadata.labels[ARCHIVING] == "Persisted" and got.status.nodes  # the whole run
    assert api.get_archived_workflow(uid, namespace=NS, name="broken").metadata.uid == uid
    for bad in ({"namespace": "other"}, {"name": "ok"}):
        with pytest.raises(ApiException) as caught:
            api.get_archived_workflow(uid, **bad)
        assert caught.value.status == 404
    running = _get(srv, "slow")
    assert running["status"]["phase"] not in FINISHED
    for uid_ in (running["metadata"]["uid"], "no-such-uid"):
        resp = srv.http.get(f"{srv.url}/api/v1/archived-workflows/{uid_}", timeout=30)
        assert resp.status_code == 404 and resp.json()["code"] == 5


def test_label_keys_and_values(api: ArchivedWorkflowServiceApi, srv: ServerProcess) -> None:
    keys = api.list_archived_workflow_label_keys().items
    assert "app" in keys and "workflows.argoproj.io/phase" in keys and keys == sorted(keys)
    assert api.list_archived_workflow_label_values(list_options_label_selector="app").items == ["batch", "web"]
    assert api.list_archived_workflow_label_values(list_options_label_selector="app", namespace="other").items \
        == ["web"]
    for selector in ("app=web", "app,team", "", "app in (web"):
        resp = srv.http.get(f"{srv.url}/api/v1/archived-workflows-label-values",
                            params={"listOptions.labelSelector": selector}, timeout=30)
        assert resp.status_code == 400 and "listOptions.labelSelector" in resp.json()["message"], resp.text


def test_retry_and_resubmit(api: ArchivedWorkflowServiceApi, srv: ServerProcess) -> None:
    broken = _get(srv, "broken")
    uid = broken["metadata"]["uid"]
    retried = api.retry_archived_workflow(uid, RetryRequest(namespace=NS, uid=uid))
    assert retried.metadata.uid == uid and retried.status.phase in ("Running", "Pending")
    again = _wait(srv, "broken")
    assert again["status"]["phase"] == "Failed" and again["status"]["finishedAt"] >= broken["status"]["finishedAt"]
    resubmitted = api.resubmit_archived_workflow(uid, ResubmitRequest(namespace=NS))
    new_name = resubmitted.metadata.name
    assert new_name.startswith("broken-") and new_name != "broken"
    assert resubmitted.metadata.labels["workflows.argoproj.io/resubmitted-from-workflow"] == "broken"
    assert _wait(srv, new_name)["status"]["phase"] == "Failed"
    assert srv.http.delete(f"{srv.url}/api/v1/workflows/{NS}/{new_name}", timeout=30).ok
    resp = srv.http.put(f"{srv.url}/api/v1/archived-workflows/{uid}/retry", json={"namespace": "other"}, timeout=30)
    assert resp.status_code == 400 and "namespace" in resp.json()["message"]
    ok_uid = _get(srv, "ok")["metadata"]["uid"]
    resp = srv.http.put(f"{srv.url}/api/v1/archived-workflows/{ok_uid}/retry", json={}, timeout=30)
    assert resp.status_code == 400 and "Succeeded" in resp.json()["message"]  # only Failed/Error runs retry


def test_delete(api: ArchivedWorkflowServiceApi, srv: ServerProcess) -> None:
    uid = _create(srv, "doomed", "true", {"app": "doomed"})
    _wait(srv, "doomed")
    assert not api.delete_archived_workflow(uid)  # ArchivedWorkflowDeletedResponse: {}
    assert srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/doomed", timeout=30).status_code == 404
    with pytest.raises(ApiException) as caught:
        api.delete_archived_workflow(uid)
    assert caught.value.status == 404
    slow_uid = _get(srv, "slow")["metadata"]["uid"]
    assert srv.http.delete(f"{srv.url}/api/v1/archived-workflows/{slow_uid}", timeout=30).status_code == 404
    assert _get(srv, "slow")["status"]["phase"] not in FINISHED  # a running run is not archived: untouched
