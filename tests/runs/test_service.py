"""The service layer in-process: validation before storing, stop without a driver, resubmit, orphans."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aipipe.config import load_config
from aipipe.engine.service import EngineService
from aipipe.errors import ConflictError, UserError
from tests.runs.conftest import shell, workflow


@pytest.fixture
def service(tmp_path):
    return EngineService(load_config(env={"AIPIPE_HOME": str(tmp_path / "home")}))


def _params(value: str) -> dict:
    wf = workflow("params-", "main", [shell("main", "echo {{workflow.parameters.who}}")])
    wf["spec"]["arguments"] = {"parameters": [{"name": "who", "value": value}]}
    return wf


def test_rejected_spec_is_never_stored(service):
    with pytest.raises(UserError):
        service.submit(workflow("bad-", "missing-entrypoint", [shell("main", "true")]))
    assert service.store.list_workflows() == []


def test_stop_without_a_live_driver_fails_the_run_at_once(service):
    created = service.submit(_params("x"))
    created["status"] = {"phase": "Running", "nodes": {created["metadata"]["name"]: {
        "id": created["metadata"]["name"], "name": created["metadata"]["name"], "type": "Steps",
        "phase": "Running"}}}
    service.store.save_workflow(created)
    stopped = service.stop(created["metadata"]["name"])
    assert stopped["status"]["phase"] == "Failed" and stopped["status"]["message"] == "terminated by user"
    assert all(n["phase"] == "Failed" for n in stopped["status"]["nodes"].values())


def test_orphans_and_driver_conflicts(service):
    created = service.submit(_params("x"), driver_id="this-process")
    assert service.orphaned() == []  # claimed by a live process (this one)
    with pytest.raises(ConflictError, match="being driven"):
        service.drive(created, driver_id="someone-else")
    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                                  text=True).stdout)
    service.store._conn().execute("UPDATE workflows SET driver_pid = ?", (dead_pid,))
    assert [w["metadata"]["name"] for w in service.orphaned()] == [created["metadata"]["name"]]


def test_resubmit_copies_the_spec_with_new_parameters(service):
    old = service.submit(_params("first"))
    new = service.prepare_resubmit(old["metadata"]["name"], parameters=["who=second"])
    assert new["metadata"]["name"].startswith(old["metadata"]["name"] + "-")
    assert new["metadata"]["labels"]["workflows.argoproj.io/resubmitted-from-workflow"] == old["metadata"]["name"]
    assert new["spec"]["arguments"]["parameters"] == [{"name": "who", "value": "second"}]
    with pytest.raises(UserError, match="name=value"):
        service.prepare_resubmit(old["metadata"]["name"], parameters=["oops"])


def test_submit_gives_the_run_its_workflow_metadata(service):
    """spec.workflowMetadata's labels, annotations and labelsFrom land on the stored run, as Argo's controller
    sets them on a new run."""
    wf = _params("birds-7")
    wf["spec"]["workflowMetadata"] = {"labels": {"team": "vision"}, "annotations": {"note": "nightly"},
                                      "labelsFrom": {"who": {"expression": "workflow.parameters.who"}}}
    stored = service.submit(wf)
    meta = service.store.get_workflow(stored["metadata"]["namespace"], stored["metadata"]["name"])["metadata"]
    assert meta["labels"]["team"] == "vision" and meta["labels"]["who"] == "birds-7"
    assert meta["annotations"]["note"] == "nightly"
