"""Argo-style error shapes of ``aipipe server`` and its template / cron-workflow CRUD."""

from __future__ import annotations

from typing import Any

import requests

from tests.server.conftest import start_server

NS = "argo"
WT: dict[str, Any] = {"metadata": {"name": "echo-tpl"},
      "spec": {"templates": [{"name": "echo", "inputs": {"parameters": [{"name": "msg"}]},
                              "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.msg}}"]}}]}}


def _error(resp: requests.Response, status: int, code: int) -> str:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["code"] == code and isinstance(body["message"], str) and body["message"]
    return body["message"]


def test_error_shapes(server):
    url = server.url
    _error(server.http.get(f"{url}/api/v1/workflows/{NS}/nope", timeout=30), 404, 5)
    _error(server.http.post(f"{url}/api/v1/workflows/{NS}", data="{not json",
                           headers={"Content-Type": "application/json"}, timeout=30), 400, 3)
    message = _error(server.http.post(f"{url}/api/v1/workflows/{NS}",
                                   json={"workflow": {"metadata": {"name": "x"}, "spec": {"templates": "oops"}}},
                                   timeout=30), 400, 3)
    assert "workflow.spec.templates" in message
    _error(server.http.post(f"{url}/api/v1/workflows/{NS}", json={"workflow": {"spec": {}}}, timeout=30), 400, 3)
    created = server.http.post(f"{url}/api/v1/workflow-templates/{NS}", json={"template": WT}, timeout=30)
    assert created.ok, created.text
    assert "already exists" in _error(server.http.post(f"{url}/api/v1/workflow-templates/{NS}", json={"template": WT},
                                                    timeout=30), 409, 6)
    _error(server.http.get(f"{url}/api/v1/nothing-here", timeout=30), 404, 5)


def test_bearer_token(tmp_path):
    srv = start_server(tmp_path / "home", token="s3cret-token")
    try:
        url = f"{srv.url}/api/v1/workflows/{NS}"
        _error(requests.get(url, timeout=30), 401, 16)
        _error(requests.get(url, headers={"Authorization": "Bearer wrong"}, timeout=30), 401, 16)
        ok = requests.get(url, headers=srv.headers(), timeout=30)
        assert ok.status_code == 200 and ok.json()["items"] == []
    finally:
        srv.stop()


def test_workflow_template_crud_and_dry_run(server):
    base = f"{server.url}/api/v1/workflow-templates/{NS}"
    dry = server.http.post(base, json={"template": WT, "createOptions": {"dryRun": ["All"]}}, timeout=30)
    assert dry.ok, dry.text
    _error(server.http.get(f"{base}/echo-tpl", timeout=30), 404, 5)
    created = server.http.post(base, json={"template": WT}, timeout=30).json()
    assert created["metadata"]["uid"] and created["metadata"]["namespace"] == NS
    assert [t["metadata"]["name"] for t in server.http.get(base, timeout=30).json()["items"]] == ["echo-tpl"]
    changed = {**WT, "metadata": {"name": "echo-tpl", "labels": {"team": "ml"}}}
    updated = server.http.put(f"{base}/echo-tpl", json={"template": changed}, timeout=30).json()
    assert updated["metadata"]["labels"] == {"team": "ml"}
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]
    assert server.http.post(f"{base}/lint", json={"template": WT}, timeout=30).ok
    _error(server.http.post(base, json={"template": WT, "createOptions": {"dryRun": ["All"]}}, timeout=30), 409, 6)
    assert server.http.delete(f"{base}/echo-tpl", timeout=30).json() == {}
    _error(server.http.delete(f"{base}/echo-tpl", timeout=30), 404, 5)
    _error(server.http.put(f"{base}/echo-tpl", json={"template": changed}, timeout=30), 404, 5)


def test_cluster_templates_and_cron_workflows(server):
    cwt = server.http.post(f"{server.url}/api/v1/cluster-workflow-templates",
                        json={"template": {**WT, "metadata": {"name": "shared"}}}, timeout=30)
    assert cwt.ok and "namespace" not in cwt.json()["metadata"]
    assert server.http.get(f"{server.url}/api/v1/cluster-workflow-templates/shared", timeout=30).ok
    base = f"{server.url}/api/v1/cron-workflows/{NS}"
    cron: dict[str, Any] = {"metadata": {"name": "nightly"},
            "spec": {"schedules": ["0 3 * * *"], "workflowSpec": {"workflowTemplateRef": {"name": "echo-tpl"}}}}
    bad = {**cron, "spec": {**cron["spec"], "schedules": ["not a cron"]}}
    assert "not a cron" in _error(server.http.post(base, json={"cronWorkflow": bad}, timeout=30), 400, 3)
    created = server.http.post(base, json={"cronWorkflow": {**cron, "spec": {**cron["spec"], "workflowSpec": {
        "entrypoint": "main", "templates": [{"name": "main", "container": {"image": "a", "command": ["true"]}}]}}}},
        timeout=30)
    assert created.ok, created.text
    suspended = server.http.put(f"{base}/nightly/suspend", json={}, timeout=30).json()
    assert suspended["spec"]["suspend"] is True
    assert [c["metadata"]["name"] for c in server.http.get(base, timeout=30).json()["items"]] == ["nightly"]
    assert server.http.delete(f"{base}/nightly", timeout=30).ok
