"""Runs through ``aipipe server``: Hera's WorkflowsService, raw watch/log streams, stop, restart."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import Any

import yaml
from hera.workflows import Container, Step, Steps, Workflow, WorkflowsService
from hera.workflows.models import Workflow as WorkflowModel

from aipipe.engine.store import RunStore
from aipipe.services.process import process_alive
from tests.server.conftest import REPO_ROOT, ServerProcess, start_server

NS = "argo"


def _hello(generate_name: str, script: str = "echo hello from hera") -> dict:
    return {"metadata": {"generateName": generate_name},
            "spec": {"entrypoint": "main", "templates": [
                {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", script]}}]}}


def _wait_phase(srv: ServerProcess, name: str, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        obj = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()
        if obj.get("status", {}).get("phase") in ("Succeeded", "Failed", "Error"):
            return obj
        time.sleep(0.2)
    raise AssertionError(f"{name} did not finish")


def test_hera_round_trip(server):
    service = WorkflowsService(host=server.url, namespace=NS, verify_ssl=False, token=server.token)
    with Workflow(generate_name="hera-", entrypoint="main", namespace=NS, workflows_service=service) as w:
        Container(name="say", image="alpine:3.20", command=["sh", "-c", "echo hi from hera"])
        with Steps(name="main"):
            Step(name="one", template="say")
    created = w.create()
    name = created.metadata.name
    assert name is not None and re.fullmatch(r"hera-[a-z0-9]{5}", name)
    got = service.get_workflow(name, namespace=NS)
    assert got.metadata.uid == created.metadata.uid
    assert name in [item.metadata.name for item in service.list_workflows(namespace=NS).items or []]
    w.name = name
    finished = w.wait(poll_interval=1)
    assert isinstance(finished, WorkflowModel) and finished.status is not None
    assert finished.status.phase == "Succeeded"
    assert any(n.display_name == "one" and n.phase == "Succeeded" for n in (finished.status.nodes or {}).values())


def test_watch_and_log_streams(server):
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}",
                            json={"workflow": _hello("stream-", "echo line one; echo line two")}, timeout=30)
    assert created.ok, created.text
    name = created.json()["metadata"]["name"]
    events = []
    with server.http.get(f"{server.url}/api/v1/workflow-events/{NS}",
                      params={"listOptions.fieldSelector": f"metadata.name={name}"}, stream=True, timeout=60) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            event = json.loads(line)["result"]
            events.append(event)
            if event["object"]["status"].get("phase") in ("Succeeded", "Failed", "Error"):
                break
    assert events[0]["type"] == "ADDED" and all(e["type"] == "MODIFIED" for e in events[1:])
    assert {e["object"]["metadata"]["name"] for e in events} == {name}
    assert events[-1]["object"]["status"]["phase"] == "Succeeded"
    versions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert versions == sorted(versions)
    with server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/log",
                      params={"logOptions.container": "main", "logOptions.follow": "true"}, stream=True,
                      timeout=60) as resp:
        entries = [json.loads(line)["result"] for line in resp.iter_lines() if line]
    assert [e["content"] for e in entries] == ["line one", "line two"]
    assert all(e["podName"].startswith(f"{name}") for e in entries)
    grep = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/log", params={"grep": "two"}, timeout=30)
    assert [json.loads(x)["result"]["content"] for x in grep.text.splitlines()] == ["line two"]


def test_stop_and_delete_through_the_api(server):
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json={"workflow": _hello("long-", "sleep 300")},
                            timeout=30).json()
    name = created["metadata"]["name"]
    deadline = time.monotonic() + 120
    while server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()["status"]["phase"] != \
            "Running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    stopped = server.http.put(f"{server.url}/api/v1/workflows/{NS}/{name}/stop", json={}, timeout=30)
    assert stopped.ok, stopped.text
    final = _wait_phase(server, name)
    assert final["status"]["phase"] == "Failed" and final["status"]["message"] == "Stopped with strategy 'Stop'"
    assert (server.home / "runs" / created["metadata"]["uid"]).is_dir()
    assert server.http.delete(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json() == {}
    assert server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).status_code == 404
    assert not (server.home / "runs" / created["metadata"]["uid"]).exists()


def test_restarted_server_continues_runs_of_a_killed_one(tmp_path):
    home = tmp_path / "home"
    first = start_server(home)
    marks = home / "store" / "markers"
    marks.mkdir(parents=True)
    (marks / "hold").write_text("")
    spec: dict[str, Any] = {"metadata": {"generateName": "restart-"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": "a", "template": "a"}], [{"name": "b", "template": "b"}]]},
        {"name": "a", "container": {"image": "x", "command": ["sh", "-c", f"echo run >> {marks}/a"]}},
        {"name": "b", "retryStrategy": {"limit": 1}, "container": {"image": "x", "command": [
            "sh", "-c", f"echo run >> {marks}/b; while [ -e {marks}/hold ]; do sleep 0.1; done"]}}]}}
    name = first.http.post(f"{first.url}/api/v1/workflows/{NS}", json={"workflow": spec}, timeout=30).json()[
        "metadata"]["name"]
    deadline = time.monotonic() + 120
    while not (marks / "b").exists():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    first.stop(signal.SIGKILL)
    (marks / "hold").unlink()
    second = start_server(home)
    try:
        final = _wait_phase(second, name)
        assert final["status"]["phase"] == "Succeeded"
        assert (marks / "a").read_text() == "run\n"
    finally:
        second.stop()


def test_aipipe_submit_to_the_server_reads_its_token_file(server, tmp_path):
    """No ARGO_TOKEN: the CLI finds the server's token in AIPIPE_HOME/server.token by itself."""
    path = tmp_path / "hello.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                                    **_hello("submitted-", "echo submitted")}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH")))),
           "AIPIPE_HOME": str(server.home)}
    env.pop("ARGO_TOKEN", None)
    result = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "submit", str(path), "--server", server.url,
                             "--wait"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    found = re.search(r"submitted (submitted-[a-z0-9]{5})", result.stdout)
    assert found, result.stdout
    name = found.group(1)
    assert _wait_phase(server, name)["status"]["phase"] == "Succeeded"


def test_ctrl_c_on_the_server_leaves_its_runs_resumable_and_kills_their_processes(tmp_path):
    """Like a crash: the node's process ends, the run stays Running with no driver, for the next start."""
    home = tmp_path / "home"
    srv = start_server(home)
    marks = home / "store" / "markers"
    marks.mkdir(parents=True)
    spec = _hello("sleepy-", f"echo $$$$ > {marks}/pid; exec sleep 300")
    name = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}", json={"workflow": spec}, timeout=30).json()[
        "metadata"]["name"]
    deadline = time.monotonic() + 120
    while not (marks / "pid").exists() or not (marks / "pid").read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    child = int((marks / "pid").read_text())
    assert srv.stop(signal.SIGINT) == 0
    deadline = time.monotonic() + 10
    while process_alive(child):
        assert time.monotonic() < deadline, f"node process {child} outlived the server"
        time.sleep(0.1)
    store = RunStore.from_home(home)
    run = store.get_workflow(NS, name)
    assert run["status"]["phase"] == "Running" and not run["status"].get("message")
    assert store.driver(run["metadata"]["uid"]) is None
    assert [w["metadata"]["name"] for w in store.unfinished_workflows()] == [name]


def test_submit_from_a_workflow_template(server):
    template = {"metadata": {"name": "greeter"}, "spec": {
        "entrypoint": "main", "arguments": {"parameters": [{"name": "who", "value": "nobody"}]},
        "templates": [{"name": "main", "container": {"image": "alpine", "command": [
            "sh", "-c", "echo hello {{workflow.parameters.who}}"]}}]}}
    assert server.http.post(f"{server.url}/api/v1/workflow-templates/{NS}", json={"template": template}, timeout=30).ok
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}/submit", timeout=30, json={
        "resourceKind": "WorkflowTemplate", "resourceName": "greeter",
        "submitOptions": {"parameters": ["who=aipipe"], "labels": "team=ml"}})
    assert created.ok, created.text
    obj = created.json()
    assert obj["metadata"]["name"].startswith("greeter-") and obj["metadata"]["labels"]["team"] == "ml"
    assert obj["spec"]["workflowTemplateRef"] == {"name": "greeter"}
    assert _wait_phase(server, obj["metadata"]["name"])["status"]["phase"] == "Succeeded"
    logs = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{obj['metadata']['name']}/log", timeout=30)
    assert [json.loads(line)["result"]["content"] for line in logs.text.splitlines()] == ["hello aipipe"]
    missing = server.http.post(f"{server.url}/api/v1/workflows/{NS}/submit", timeout=30,
                            json={"resourceKind": "WorkflowTemplate", "resourceName": "nope"})
    assert missing.status_code == 404 and missing.json()["code"] == 5
