"""Triggers on a real ``aipipe server``: Argo's event endpoint with the WorkflowEventBindings cron/ emits,
and the CronWorkflow controller running inside the server (with its suspend/resume routes)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import requests

from aipipe.config import load_config
from cron import label_studio_webhook
from tests.server.conftest import ServerProcess, start_server

NS = "argo"
BINDINGS = f"/api/v1/workflow-event-bindings/{NS}"
EVENTS = f"/api/v1/events/{NS}/label-studio"


def stand_in_template(server: ServerProcess, name: str = "aipipe-retrain") -> None:
    """A short template in place of the retrain pipeline, with its ``project`` parameter."""
    template: dict[str, Any] = {"metadata": {"name": name}, "spec": {
        "entrypoint": "main", "arguments": {"parameters": [{"name": "project", "value": "1"}]},
        "templates": [{"name": "main", "container": {"image": "alpine", "command": [
            "sh", "-c", "echo retrain project {{workflow.parameters.project}}"]}}]}}
    response = server.http.post(f"{server.url}/api/v1/workflow-templates/{NS}", json={"template": template}, timeout=30)
    assert response.ok, response.text


def apply_binding(server: ServerProcess, binding: dict[str, Any]) -> None:
    response = server.http.post(f"{server.url}{BINDINGS}", json={"workflowEventBinding": binding}, timeout=30)
    assert response.ok, response.text


def runs(server: ServerProcess, selector: str = "workflows.argoproj.io/workflow-event-binding") -> list[dict]:
    response = server.http.get(f"{server.url}/api/v1/workflows/{NS}",
                               params={"listOptions.labelSelector": selector}, timeout=30)
    assert response.ok, response.text
    return list(response.json()["items"] or [])


def settle(server: ServerProcess, expected: int, wait: float = 3.0) -> list[dict]:
    """The runs once ``expected`` exist; then ``wait`` more seconds for any extra one to show."""
    deadline = time.monotonic() + 60
    while len(runs(server)) < expected and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(wait)
    return runs(server)


def annotation_event(annotation_id: int, project: int = 4, action: str = "ANNOTATION_CREATED") -> dict[str, Any]:
    return {"action": action, "annotation": {"id": annotation_id, "result": []},
            "project": {"id": project, "title": f"project {project}"}, "task": {"id": annotation_id}}


def post(server: ServerProcess, body: Any, path: str = EVENTS, **kwargs: Any) -> requests.Response:
    return server.http.post(f"{server.url}{path}", json=body, timeout=30, **kwargs)


def test_label_studio_binding_counts_new_annotations_across_a_restart(tmp_path: Path) -> None:
    server = start_server(tmp_path / "home")
    try:
        stand_in_template(server)
        binding = label_studio_webhook.event_binding(load_config(env={"AIPIPE_MIN_NEW_ANNOTATIONS": "3"}, path=None))
        apply_binding(server, binding)
        listed = server.http.get(f"{server.url}{BINDINGS}", timeout=30).json()
        assert [b["metadata"]["name"] for b in listed["items"]] == [binding["metadata"]["name"]]
        assert listed["items"][0]["spec"] == binding["spec"]

        assert post(server, annotation_event(1)).json() == {}
        assert post(server, annotation_event(2)).ok
        assert post(server, annotation_event(2, action="ANNOTATION_UPDATED")).ok  # the same annotation again
        assert post(server, annotation_event(7, project=5)).ok  # another project counts apart
        assert settle(server, 0) == []
        assert post(server, annotation_event(3)).ok  # the third new one of project 4
        (run,) = settle(server, 1)
        assert run["spec"]["workflowTemplateRef"] == {"name": "aipipe-retrain"}
        assert run["spec"]["arguments"]["parameters"] == [{"name": "project", "value": "4"}]
        assert run["metadata"]["labels"]["aipipe.io/trigger"] == "webhook"
        assert post(server, annotation_event(3)).ok  # a repeated delivery starts nothing
        assert len(settle(server, 1)) == 1
        assert post(server, annotation_event(4)).ok
        assert post(server, annotation_event(5)).ok
        assert len(settle(server, 1)) == 1
    finally:
        server.stop()
    server = start_server(tmp_path / "home")  # the count (2 of 3) and the seen ids survive the restart
    try:
        assert post(server, annotation_event(5)).ok
        assert len(settle(server, 1)) == 1
        assert post(server, annotation_event(6)).ok
        assert len(settle(server, 2)) == 2
    finally:
        server.stop()


def test_event_endpoint_refuses_bad_tokens_and_malformed_payloads(server: ServerProcess) -> None:
    stand_in_template(server)
    apply_binding(server, label_studio_webhook.event_binding(load_config(env={"AIPIPE_MIN_NEW_ANNOTATIONS": "1"},
                                                                         path=None)))
    bad = requests.post(f"{server.url}{EVENTS}", json=annotation_event(1), timeout=30,
                        headers={"Authorization": "Bearer not-the-token"})
    assert bad.status_code == 401
    assert requests.post(f"{server.url}{EVENTS}", json=annotation_event(1), timeout=30).status_code == 401
    for body, field in ((annotation_event(1) | {"annotation": {"id": "one"}}, "payload.annotation.id"),
                        (annotation_event(1) | {"project": None}, "payload.project"),
                        ({"Records": [{"s3": {"bucket": {"name": "b"}}}]}, "payload.Records[0].s3.object.key"),
                        ({"Records": []}, "payload.Records")):
        response = post(server, body)
        assert response.status_code == 400, response.text
        assert field in response.json()["message"]
    broken = server.http.post(f"{server.url}{EVENTS}", data=b'{"action": ', timeout=30,
                              headers={"Content-Type": "application/json"})
    assert broken.status_code == 400
    assert settle(server, 0, wait=2.0) == []
    assert post(server, annotation_event(1)).ok  # the good one, after all that, starts one run
    assert len(settle(server, 1)) == 1


def test_binding_selector_metadata_and_generic_events(server: ServerProcess) -> None:
    """Argo's documented example: a selector over payload, metadata (X- headers) and discriminator."""
    stand_in_template(server, "greeter")
    apply_binding(server, {"metadata": {"name": "hello"}, "spec": {
        "event": {"selector": 'payload.message != "" && metadata["x-argo-e2e"] == ["true"] && '
                              'discriminator == "my-discriminator"'},
        "submit": {"workflowTemplateRef": {"name": "greeter"},
                   "arguments": {"parameters": [{"name": "project", "valueFrom": {"event": "payload.message"}}]}}}})
    path = f"/api/v1/events/{NS}/my-discriminator"
    assert post(server, {"message": "hi"}, path).ok  # no X-Argo-E2E header: no match
    assert post(server, {"message": "hi"}, f"/api/v1/events/{NS}/other", headers={"X-Argo-E2E": "true"}).ok
    assert settle(server, 0, wait=2.0) == []
    assert post(server, {"message": "hi"}, path, headers={"X-Argo-E2E": "true"}).ok
    (run,) = settle(server, 1)
    assert run["metadata"]["labels"]["workflows.argoproj.io/workflow-template"] == "greeter"
    assert run["spec"]["arguments"]["parameters"] == [{"name": "project", "value": "hi"}]
    bad = server.http.post(f"{server.url}{BINDINGS}", json={"metadata": {"name": "broken"},
                                                          "spec": {"event": {"selector": "payload.x =="}}}, timeout=30)
    assert bad.status_code == 400 and "spec.event.selector" in bad.json()["message"]


def test_server_schedules_cron_workflows_and_suspend_takes_effect(server: ServerProcess) -> None:
    """The controller inside the server: a schedule every 2 s (croniter's seconds field, for speed)."""
    cron: dict[str, Any] = {"metadata": {"name": "often"}, "spec": {
        "schedules": ["* * * * * */2"], "timezone": "UTC", "concurrencyPolicy": "Allow",
        "successfulJobsHistoryLimit": 10,
        "workflowSpec": {"entrypoint": "main", "templates": [
            {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", "echo tick"]}}]}}}
    base = f"{server.url}/api/v1/cron-workflows/{NS}"
    assert server.http.post(base, json={"cronWorkflow": cron}, timeout=30).ok

    def spawned() -> list[dict]:
        return runs(server, "workflows.argoproj.io/cron-workflow=often")

    deadline = time.monotonic() + 60
    while len(spawned()) < 2 and time.monotonic() < deadline:
        time.sleep(0.3)
    assert len(spawned()) >= 2
    assert server.http.put(f"{base}/often/suspend", timeout=30).json()["spec"]["suspend"] is True
    time.sleep(1.5)  # a tick in flight may still land
    before = len(spawned())
    time.sleep(5)
    assert len(spawned()) == before
    status = server.http.get(f"{base}/often", timeout=30).json()["status"]
    assert status["lastScheduledTime"].endswith("Z") and status["succeeded"] + len(status["active"]) >= 1
    assert server.http.put(f"{base}/often/resume", timeout=30).ok
    deadline = time.monotonic() + 30
    while len(spawned()) <= before and time.monotonic() < deadline:
        time.sleep(0.3)
    assert len(spawned()) > before
