"""The run store on its own: names, versions, changes, drivers, resources, logs, two processes."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid

import pytest

from aipipe.engine.service import formulate_retry
from aipipe.engine.store import CRON_WORKFLOW, WORKFLOW_TEMPLATE, RunStore
from aipipe.errors import ConflictError, NotFoundError

WF = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "demo-"},
      "spec": {"entrypoint": "main", "templates": [{"name": "main", "container": {"image": "x", "command": ["true"]}}]}}


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "engine.db")


def test_create_names_like_kubernetes_and_stamps_metadata(store):
    created = store.create_workflow(WF, "argo")
    meta = created["metadata"]
    assert re.fullmatch(r"demo-[a-z0-9]{5}", meta["name"])
    assert uuid.UUID(meta["uid"]).version == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"])
    assert meta["namespace"] == "argo" and meta["resourceVersion"].isdigit()
    assert created["status"]["phase"] == "Pending"
    assert meta["labels"]["workflows.argoproj.io/completed"] == "false"
    assert store.get_workflow("argo", meta["name"]) == created
    second = store.create_workflow(WF, "argo")
    assert second["metadata"]["name"] != meta["name"]


def test_explicit_name_conflicts(store):
    named = {**WF, "metadata": {"name": "fixed"}}
    store.create_workflow(named, "argo")
    with pytest.raises(ConflictError, match="already exists"):
        store.create_workflow(named, "argo")
    with pytest.raises(NotFoundError):
        store.get_workflow("argo", "missing")


def test_changes_feed_modified_and_deleted(store):
    created = store.create_workflow(WF, "argo")
    since = store.current_version()
    created["status"] = {"phase": "Succeeded"}
    version = store.save_workflow(created)
    saved = store.get_workflow("argo", created["metadata"]["name"])
    assert version > since and saved["metadata"]["resourceVersion"] == str(version)
    assert saved["metadata"]["labels"]["workflows.argoproj.io/phase"] == "Succeeded"
    assert saved["metadata"]["labels"]["workflows.argoproj.io/completed"] == "true"
    assert [(k, o["status"]["phase"]) for k, o in store.workflow_changes(since)] == [("MODIFIED", "Succeeded")]
    store.delete_workflow("argo", created["metadata"]["name"])
    assert [k for k, _ in store.workflow_changes(since)] == ["DELETED"]
    assert store.list_workflows("argo") == []


def test_claim_respects_live_driver_and_takes_over_dead_one(store):
    created = store.create_workflow(WF, "argo", driver_id="mine")
    uid = created["metadata"]["uid"]
    assert store.claim(uid, "mine")
    assert not store.claim(uid, "other")  # this process is alive and beating
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    store._conn().execute("UPDATE workflows SET driver_pid = ? WHERE uid = ?", (int(dead.stdout), uid))
    assert not store.driver(uid).is_alive()
    assert store.claim(uid, "other")
    store.request_stop(uid, "terminated by user")
    assert store.heartbeat(uid, "other") == "terminated by user"


def test_resources_crud(store):
    wt = {"metadata": {"name": "tpl"}, "spec": {"templates": []}}
    created = store.put_resource(WORKFLOW_TEMPLATE, wt, "argo", create_only=True)
    assert created["kind"] == WORKFLOW_TEMPLATE and created["metadata"]["uid"]
    with pytest.raises(ConflictError):
        store.put_resource(WORKFLOW_TEMPLATE, wt, "argo", create_only=True)
    updated = store.put_resource(WORKFLOW_TEMPLATE, {**wt, "spec": {"templates": [{"name": "a"}]}}, "argo")
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]
    assert store.get_resource(WORKFLOW_TEMPLATE, "tpl", "argo")["spec"]["templates"] == [{"name": "a"}]
    assert store.get_resource(WORKFLOW_TEMPLATE, "tpl", "other") is None
    with pytest.raises(NotFoundError):
        store.put_resource(CRON_WORKFLOW, {"metadata": {"name": "c"}}, "argo", must_exist=True)
    store.delete_resource(WORKFLOW_TEMPLATE, "tpl", "argo")
    assert store.list_resources(WORKFLOW_TEMPLATE) == []


def test_logs_written_by_another_process_are_read_here(store, tmp_path):
    created = store.create_workflow(WF, "argo")
    uid = created["metadata"]["uid"]
    script = (f"from aipipe.engine.store import RunStore\ns = RunStore({str(tmp_path / 'engine.db')!r})\n"
              f"for i in range(50): s.append_log({uid!r}, 'n1', f'line {{i}}\\n')\n")
    writer = subprocess.Popen([sys.executable, "-c", script])
    for i in range(50):
        store.append_log(uid, "n2", f"main {i}\n")
    assert writer.wait(60) == 0
    chunks = store.read_logs(uid)
    assert len(chunks) == 100
    assert [c.content for c in store.read_logs(uid, node_id="n1")] == [f"line {i}\n" for i in range(50)]
    assert store.read_logs(uid, after=chunks[-1].seq) == []


def test_formulate_retry_keeps_succeeded_and_drops_failed_leaves():
    nodes = {
        "wf": {"id": "wf", "name": "wf", "type": "DAG", "phase": "Failed", "children": ["wf-a", "wf-b"],
               "finishedAt": "x", "message": "child failed"},
        "wf-a": {"id": "wf-a", "name": "wf.a", "type": "Pod", "phase": "Succeeded", "children": ["wf-c"]},
        "wf-b": {"id": "wf-b", "name": "wf.b", "type": "Pod", "phase": "Failed", "children": []},
        "wf-c": {"id": "wf-c", "name": "wf.c", "type": "Pod", "phase": "Omitted", "children": []},
        "wf-x": {"id": "wf-x", "name": "wf.onExit", "type": "Pod", "phase": "Succeeded"},
    }
    workflow = {"metadata": {"name": "wf"}, "status": {"phase": "Failed", "message": "m", "finishedAt": "t",
                                                       "nodes": nodes}}
    retried = formulate_retry(workflow)
    assert set(retried["status"]["nodes"]) == {"wf", "wf-a"}  # the exit handler runs again
    root = retried["status"]["nodes"]["wf"]
    assert root["phase"] == "Running" and "finishedAt" not in root and root["children"] == ["wf-a"]
    assert retried["status"]["phase"] == "Running" and "message" not in retried["status"]
    assert retried["status"]["nodes"]["wf-a"]["children"] == []
    assert workflow["status"]["nodes"]["wf-b"]["phase"] == "Failed"  # the input is not changed
