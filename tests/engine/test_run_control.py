"""Run control through the run store, as both drivers (``aipipe run``, ``aipipe server``) see it:
suspend/resume of a run and of ``suspend`` nodes, ``set`` of a node's outputs, stop vs terminate."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.config import load_config
from aipipe.engine.control import set_request
from aipipe.engine.service import EngineService
from aipipe.errors import ConflictError, UserError
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]


class Driven:
    """A stored run driven by ``EngineService.drive`` in a thread (as ``aipipe run`` does in-process)."""

    def __init__(self, service: EngineService, workflow: dict[str, Any]) -> None:
        self.service = service
        self.created = service.submit(workflow)
        self.name = self.created["metadata"]["name"]
        self.final: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._drive, daemon=True)
        self.thread.start()

    def _drive(self) -> None:
        self.final = self.service.drive(self.created)

    def stored(self) -> dict[str, Any]:
        return self.service.store.find_workflow(self.name)

    def node(self, display: str) -> dict[str, Any] | None:
        return next((n for n in (self.stored().get("status") or {}).get("nodes", {}).values()
                     if n["displayName"] == display), None)

    def wait(self, what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
        return wait_until(what, check, timeout, interval=0.1, detail=lambda: self.stored().get("status"))

    def finish(self, timeout: float = 60) -> dict[str, Any]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the run did not finish"
        assert self.final is not None
        return self.final

    def control(self, action: str, **fields: Any) -> dict[str, Any]:
        return self.service.control(self.name, None, {"action": action, **fields})


@pytest.fixture
def service(tmp_path: Path) -> Iterator[EngineService]:
    yield EngineService(load_config(env={"AIPIPE_HOME": str(tmp_path / "home")}))


def sh(name: str, script: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "container": {"image": "busybox", "command": ["sh", "-c", script]}, **extra}


def wf(prefix: str, templates: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": prefix},
            "spec": {"entrypoint": "main", "templates": templates, **spec}}


APPROVAL = wf("approve-", [
    {"name": "main", "steps": [[{"name": "approve", "template": "approve"}],
                               [{"name": "use", "template": "use", "arguments": {"parameters": [
                                   {"name": "v", "value": "{{steps.approve.outputs.parameters.answer}}"}]}}]]},
    {"name": "approve", "suspend": {},
     "outputs": {"parameters": [{"name": "answer", "valueFrom": {"supplied": {}}, "globalName": "approval"},
                                {"name": "level", "valueFrom": {"default": "low", "supplied": {}}}]}},
    {"name": "use", "inputs": {"parameters": [{"name": "v"}]},
     "container": {"image": "busybox", "command": ["echo", "got {{inputs.parameters.v}}"]}},
])


def test_suspend_node_waits_until_set_and_resumed(service: EngineService) -> None:
    run = Driven(service, APPROVAL)
    waiting = run.wait("the suspend node", lambda: (n := run.node("approve")) and n["phase"] == "Running" and n)
    assert waiting["type"] == "Suspend"
    assert waiting["outputs"]["parameters"][0] == {"name": "answer", "valueFrom": {"supplied": {}},
                                                   "globalName": "approval"}
    time.sleep(1.0)
    assert run.node("use") is None and run.stored()["status"]["phase"] == "Running"
    with pytest.raises(UserError, match="has not been set and does not have a default value"):
        run.control("resume")  # 'answer' has no default: Argo refuses to resume it blind
    with pytest.raises(UserError, match="node is not expecting output parameter 'nope'"):
        run.control("set", nodeFieldSelector="displayName=approve", outputParameters={"nope": "x"})
    with pytest.raises(UserError, match="no suspend nodes matching nodeFieldSelector: displayName=other"):
        run.control("set", nodeFieldSelector="displayName=other", outputParameters={"answer": "x"})
    answered = run.control("set", nodeFieldSelector="displayName=approve", outputParameters={"answer": "yes"})
    node = next(n for n in answered["status"]["nodes"].values() if n["displayName"] == "approve")
    assert node["phase"] == "Running" and node["outputs"]["parameters"][0] == {
        "name": "answer", "globalName": "approval", "value": "yes"}
    run.control("resume", nodeFieldSelector="displayName=approve")
    final = run.finish()
    assert final["status"]["phase"] == "Succeeded"
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert nodes["approve"]["phase"] == "Succeeded"
    assert nodes["approve"]["outputs"]["parameters"] == [{"name": "answer", "globalName": "approval", "value": "yes"},
                                                         {"name": "level", "value": "low"}]
    assert final["status"]["outputs"]["parameters"] == [{"name": "approval", "value": "yes"}]
    assert nodes["use"]["inputs"]["parameters"] == [{"name": "v", "value": "yes"}]


def test_set_phase_fails_a_suspend_node(service: EngineService) -> None:
    run = Driven(service, wf("gate-", [{"name": "main", "steps": [[{"name": "gate", "template": "gate"}],
                                                                  [{"name": "after", "template": "after"}]]},
                                       {"name": "gate", "suspend": {}}, sh("after", "true")]))
    run.wait("the gate", lambda: (n := run.node("gate")) and n["phase"] == "Running")
    with pytest.raises(UserError, match="Running is an invalid phase to set to"):
        set_request({"nodeFieldSelector": "displayName=gate", "phase": "Running"})
    run.control("set", nodeFieldSelector="displayName=gate", phase="Failed", message="rejected by a reviewer")
    final = run.finish()
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed"
    assert nodes["gate"]["phase"] == "Failed" and nodes["gate"]["message"] == "rejected by a reviewer"
    assert "after" not in nodes


def test_suspending_a_run_starts_nothing_new_until_resumed(service: EngineService) -> None:
    run = Driven(service, wf("pause-", [{"name": "main", "dag": {"tasks": [
        {"name": "first", "template": "slow"}, {"name": "second", "template": "quick", "depends": "first"}]}},
        sh("slow", "sleep 2"), sh("quick", "echo done")]))
    run.wait("the first task", lambda: (n := run.node("first")) and n["phase"] == "Running")
    suspended = run.control("suspend")
    assert suspended["spec"]["suspend"] is True
    run.wait("the first task to finish", lambda: (n := run.node("first")) and n["phase"] == "Succeeded", 30)
    assert run.stored()["spec"]["suspend"] is True  # the driver keeps it in the run it writes
    time.sleep(2.0)
    assert run.node("second") is None and run.stored()["status"]["phase"] == "Running"
    resumed = run.control("resume")
    assert "suspend" not in resumed["spec"]
    final = run.finish()
    assert final["status"]["phase"] == "Succeeded" and "suspend" not in final["spec"]
    assert {n["displayName"]: n["phase"] for n in final["status"]["nodes"].values()}["second"] == "Succeeded"
    with pytest.raises(UserError, match="cannot suspend completed workflows"):
        run.control("suspend")


def test_suspend_duration_still_ends_a_suspend_node(service: EngineService) -> None:
    run = Driven(service, wf("nap-", [{"name": "main", "steps": [[{"name": "nap", "template": "nap"}]]},
                                      {"name": "nap", "suspend": {"duration": "1s"}}]))
    final = run.finish(30)
    assert final["status"]["phase"] == "Succeeded"


def _exit_handler_run(service: EngineService) -> Driven:
    return Driven(service, wf("shutdown-", [
        {"name": "main", "dag": {"tasks": [{"name": "work", "template": "work"}]}},
        sh("work", "sleep 60"), sh("cleanup", "echo cleaned up")], onExit="cleanup"))


def test_stop_runs_the_exit_handler(service: EngineService) -> None:
    run = _exit_handler_run(service)
    run.wait("the work node", lambda: (n := run.node("work")) and n["phase"] == "Running")
    run.control("shutdown", strategy="Stop")
    final = run.finish()
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed"
    assert final["status"]["message"] == "Stopped with strategy 'Stop'"
    assert final["spec"]["shutdown"] == "Stop"
    assert nodes["work"]["phase"] == "Failed" and nodes["work"]["message"] == "Stopped with strategy 'Stop'"
    assert nodes[f"{run.name}.onExit"]["phase"] == "Succeeded"
    with pytest.raises(ConflictError, match="cannot shutdown a completed workflow"):
        run.control("shutdown", strategy="Terminate")


def _task_exit_handler_run(service: EngineService) -> Driven:
    """upstream's e2e stop-terminate.yaml: a DAG task with an exit handler, and the run's own."""
    return Driven(service, wf("hooked-", [
        {"name": "main", "dag": {"tasks": [{"name": "A", "template": "nap", "onExit": "bye"}]}},
        sh("nap", "sleep 60"), sh("bye", "echo bye")], onExit="bye"))


@pytest.mark.parametrize("strategy", ["Stop", "Terminate"])
def test_stop_runs_the_tasks_exit_handler_and_terminate_starts_none(service: EngineService, strategy: str) -> None:
    """As Argo's signals_test: a Stop still runs every exit handler; a Terminate creates none."""
    run = _task_exit_handler_run(service)
    run.wait("A running", lambda: (n := run.node("A")) and n["phase"] == "Running")
    run.control("shutdown", strategy=strategy)
    final = run.finish()
    nodes = {n["displayName"]: n["phase"] for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed" and nodes["A"] == "Failed"
    handlers = {nodes.get("A.onExit"), nodes.get(f"{run.name}.onExit")}
    assert handlers == ({"Succeeded"} if strategy == "Stop" else {None})


def test_the_run_stays_running_until_its_exit_handler_ends(service: EngineService) -> None:
    """Argo marks the run's phase only once the exit handler is done: a client polling for the final phase must
    not see one (without its message) while the handler still runs; ``workflow.status`` inside the handler,
    nested templates included, is the body's phase."""
    run = Driven(service, wf("slow-exit-", [
        {"name": "main", "dag": {"tasks": [{"name": "work", "template": "work"}]}},
        sh("work", "sleep 60"),
        {"name": "cleanup", "steps": [[{"name": "report", "template": "report"}]]},
        sh("report", "echo body {{workflow.status}}; sleep 2")], onExit="cleanup"))
    run.wait("the work node", lambda: (n := run.node("work")) and n["phase"] == "Running")
    run.control("shutdown", strategy="Stop")
    run.wait("the exit handler's step", lambda: (n := run.node("report")) and n["phase"] == "Running")
    assert run.stored()["status"]["phase"] == "Running"
    final = run.finish()
    assert final["status"]["phase"] == "Failed"
    assert final["status"]["message"] == "Stopped with strategy 'Stop'"
    report = next(n for n in final["status"]["nodes"].values() if n["displayName"] == "report")
    assert report["phase"] == "Succeeded" and report["outputs"]["result"] == "body Failed"


def test_terminate_skips_the_exit_handler(service: EngineService) -> None:
    run = _exit_handler_run(service)
    run.wait("the work node", lambda: (n := run.node("work")) and n["phase"] == "Running")
    run.control("shutdown", strategy="Terminate")
    final = run.finish()
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["phase"] == "Failed"
    assert final["status"]["message"] == "Stopped with strategy 'Terminate'"
    assert nodes["work"]["phase"] == "Failed" and nodes["work"]["message"] == "Stopped with strategy 'Terminate'"
    assert f"{run.name}.onExit" not in nodes


def test_resume_of_a_run_nobody_drives_changes_the_store(service: EngineService) -> None:
    created = service.submit(APPROVAL)
    name = created["metadata"]["name"]
    node = {"id": f"{name}-1", "name": f"{name}[0].approve", "displayName": "approve", "type": "Suspend",
            "phase": "Running", "outputs": {"parameters": [{"name": "answer",
                                                            "valueFrom": {"default": "ok", "supplied": {}}}]}}
    created["status"] = {"phase": "Running", "nodes": {node["id"]: node}}
    created["spec"]["suspend"] = True
    service.store.save_workflow(created)
    resumed = service.control(name, None, {"action": "resume"})
    stored = service.store.find_workflow(name)
    assert resumed["status"]["nodes"][node["id"]]["phase"] == "Succeeded"
    assert stored["status"]["nodes"][node["id"]]["outputs"]["parameters"] == [{"name": "answer", "value": "ok"}]
    assert "suspend" not in stored["spec"]


def test_a_suspended_run_can_still_be_stopped_and_its_exit_handler_runs(service: EngineService) -> None:
    run = Driven(service, wf("held-", [
        {"name": "main", "dag": {"tasks": [{"name": "first", "template": "quick"},
                                           {"name": "second", "template": "quick", "depends": "first"}]}},
        sh("quick", "sleep 1"), sh("cleanup", "echo bye")], onExit="cleanup", suspend=True))
    time.sleep(1.5)
    assert run.stored()["status"]["phase"] == "Running" and run.node("first") is None  # suspended from the start
    run.control("shutdown", strategy="Stop")
    final = run.finish()
    nodes = {n["displayName"]: n for n in final["status"]["nodes"].values()}
    assert final["status"]["message"] == "Stopped with strategy 'Stop'"
    assert nodes[f"{run.name}.onExit"]["phase"] == "Succeeded"
    # as Argo's operator walks a shut-down run: the pod node it reaches is created Failed, never started, and the
    # task depending on it is omitted
    assert (nodes["first"]["phase"], nodes["first"]["message"]) == ("Failed", "workflow shutdown with strategy: Stop")
    assert nodes["second"]["phase"] == "Omitted"


def test_terminate_fails_a_waiting_suspend_node_and_resubmit_clears_the_shutdown(service: EngineService) -> None:
    run = Driven(service, APPROVAL)
    run.wait("the suspend node", lambda: (n := run.node("approve")) and n["phase"] == "Running")
    run.control("shutdown", strategy="Terminate")
    final = run.finish()
    node = next(n for n in final["status"]["nodes"].values() if n["displayName"] == "approve")
    assert node["phase"] == "Failed" and node["message"] == "Stopped with strategy 'Terminate'"
    again = service.prepare_resubmit(run.name)
    assert "shutdown" not in again["spec"]
    retried = service.prepare_retry(run.name)
    assert "shutdown" not in retried["spec"]


def test_aipipe_run_in_another_process_sees_a_resume_through_the_store(tmp_path: Path) -> None:
    """``aipipe run`` drives in its own process; a resume asked through the store (as the server does) reaches it."""
    home = tmp_path / "home"
    path = tmp_path / "approve.yaml"
    path.write_text(yaml.safe_dump(APPROVAL))
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": os.pathsep.join(
        filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    env.pop("AIPIPE_CONFIG", None)
    proc = subprocess.Popen([sys.executable, "-m", "aipipe.cli.main", "run", str(path)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        service = EngineService(load_config(env={"AIPIPE_HOME": str(home)}))
        deadline = time.monotonic() + 60

        def waiting() -> dict[str, Any] | None:
            runs = service.store.list_workflows()
            nodes = (runs[0].get("status") or {}).get("nodes", {}) if runs else {}
            return next((runs[0] for n in nodes.values() if n["displayName"] == "approve"
                         and n["phase"] == "Running"), None)

        while (run := waiting()) is None:
            assert time.monotonic() < deadline and proc.poll() is None, "the suspend node never waited"
            time.sleep(0.2)
        name = run["metadata"]["name"]
        service.control(name, None, {"action": "set", "nodeFieldSelector": "displayName=approve",
                                     "outputParameters": {"answer": "from-elsewhere"}})
        service.control(name, None, {"action": "resume"})
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out
        final = service.store.find_workflow(name)
        use = next(n for n in final["status"]["nodes"].values() if n["displayName"] == "use")
        assert final["status"]["phase"] == "Succeeded"
        assert use["inputs"]["parameters"] == [{"name": "v", "value": "from-elsewhere"}]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
