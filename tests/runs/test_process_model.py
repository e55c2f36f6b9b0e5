"""The driving process: kill -9 then ``--resume``, Ctrl-C, and stop, terminate, suspend, resume from elsewhere."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from aipipe.engine.store import RunStore
from aipipe.services.process import process_alive
from tests.runs.conftest import shell, workflow


def _wait_for(path: Path, proc, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():  # written by a shell: wait for its content too
        if proc.poll() is not None:
            raise AssertionError(f"aipipe exited {proc.returncode} early:\n{proc.stdout.read()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear")
        time.sleep(0.1)


def _pid_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _the_run(engine) -> dict:
    runs = RunStore.from_home(engine.home).list_workflows()
    assert len(runs) == 1
    return runs[0]


def test_kill_9_then_resume_never_reruns_succeeded_nodes(engine):
    marks = engine.markers
    (marks / "hold").write_text("")
    mark = {"name": "mark", "inputs": {"parameters": [{"name": "id"}]},
            "container": {"image": "alpine", "command": ["sh", "-c",
                                                         f"echo run >> {marks}/{{{{inputs.parameters.id}}}}"]}}
    hold = shell("hold", f"echo run >> {marks}/b; while [ -e {marks}/hold ]; do sleep 0.1; done",
                 retryStrategy={"limit": 2})
    path = engine.write_workflow("resume.yaml", workflow("resume-", "main", [
        {"name": "main", "dag": {"tasks": [
            {"name": "a", "template": "mark", "arguments": {"parameters": [{"name": "id", "value": "a"}]}},
            {"name": "b", "template": "hold", "dependencies": ["a"]},
            {"name": "c", "template": "mark", "dependencies": ["b"],
             "arguments": {"parameters": [{"name": "id", "value": "c"}]}}]}},
        mark, hold]))
    driver = engine.popen("run", str(path))
    _wait_for(marks / "b", driver)
    driver.send_signal(signal.SIGKILL)
    driver.wait(30)
    name = _the_run(engine)["metadata"]["name"]
    assert _the_run(engine)["status"]["phase"] == "Running"
    (marks / "hold").unlink()
    resumed = engine.run("run", "--resume", name)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    final = json.loads(engine.run("get", name, "-o", "json").stdout)
    assert final["status"]["phase"] == "Succeeded"
    assert (marks / "a").read_text() == "run\n"  # succeeded before the kill: never re-run
    assert (marks / "c").read_text() == "run\n"
    assert (marks / "b").read_text().count("run") == 2  # its process died with the driver: retried once
    again = engine.run("run", "--resume", name)
    assert again.returncode == 2 and "already finished" in again.stderr


def _sleeper(engine, name: str) -> Path:
    marks = engine.markers
    return engine.write_workflow(f"{name}.yaml", workflow(f"{name}-", "main", [
        {"name": "main", "steps": [[{"name": "sleep", "template": "sleep"}]]},
        shell("sleep", f"echo $$$$ > {marks}/{name}.pid; exec sleep 300")]))


def test_ctrl_c_kills_children_and_fails_the_run(engine):
    driver = engine.popen("run", str(_sleeper(engine, "ctrlc")))
    pid_file = engine.markers / "ctrlc.pid"
    _wait_for(pid_file, driver)
    time.sleep(0.2)
    child = int(pid_file.read_text())
    driver.send_signal(signal.SIGINT)
    assert driver.wait(120) == 1
    assert _pid_gone(child), f"node process {child} outlived the run"
    status = _the_run(engine)["status"]
    assert status["phase"] == "Failed" and status["message"] == "terminated by user"


def test_stop_from_another_process(engine):
    driver = engine.popen("run", str(_sleeper(engine, "stopme")))
    pid_file = engine.markers / "stopme.pid"
    _wait_for(pid_file, driver)
    child = int(pid_file.read_text())
    name = _the_run(engine)["metadata"]["name"]
    stopped = engine.run("stop", name)
    assert stopped.returncode == 0 and "Stopped with strategy 'Stop'" in stopped.stdout
    assert driver.wait(120) == 1
    assert _pid_gone(child)
    assert _the_run(engine)["status"]["message"] == "Stopped with strategy 'Stop'"


def test_stop_after_the_driver_was_killed_kills_what_it_left_behind(engine):
    """kill -9 of the driver takes the node's whole tree with it (the node's supervisor, a subreaper, sees
    the driver go and ends every descendant); `aipipe stop` then ends the orphaned run."""
    marks = engine.markers
    path = engine.write_workflow("orphan.yaml", workflow("orphan-", "main", [
        {"name": "main", "steps": [[{"name": "sleep", "template": "sleep"}]]},
        shell("sleep", f"echo $$$$ > {marks}/leader.pid; sleep 300 & echo $! > {marks}/orphan.pid; wait")]))
    driver = engine.popen("run", str(path))
    _wait_for(marks / "orphan.pid", driver)
    time.sleep(0.2)
    leader, background = int((marks / "leader.pid").read_text()), int((marks / "orphan.pid").read_text())
    driver.send_signal(signal.SIGKILL)
    driver.wait(120)
    assert _pid_gone(leader), "the node's process outlived its driver"
    assert _pid_gone(background), f"background process {background} outlived the driver"
    name = _the_run(engine)["metadata"]["name"]
    stopped = engine.run("terminate", name)
    assert stopped.returncode == 0 and "Stopped with strategy 'Terminate'" in stopped.stdout
    assert _the_run(engine)["status"]["phase"] == "Failed"


def test_suspend_and_resume_from_another_process(engine):
    """`aipipe suspend` holds back the next step, `aipipe resume` lets it and a waiting suspend node go on."""
    marks = engine.markers
    (marks / "hold").write_text("")
    path = engine.write_workflow("approve.yaml", workflow("approve-", "main", [
        {"name": "main", "steps": [[{"name": "hold", "template": "hold"}], [{"name": "approve", "template": "gate"}],
                                   [{"name": "after", "template": "after"}]]},
        shell("hold", f"echo up > {marks}/held; while [ -e {marks}/hold ]; do sleep 0.1; done"),
        {"name": "gate", "suspend": {}},
        shell("after", f"echo done > {marks}/after")]))
    driver = engine.popen("run", str(path))
    _wait_for(marks / "held", driver)
    name = _the_run(engine)["metadata"]["name"]
    suspended = engine.run("suspend", name)
    assert suspended.returncode == 0 and "suspended" in suspended.stdout
    (marks / "hold").unlink()
    time.sleep(2)  # the hold step ends; nothing new may start while the run is suspended
    nodes = _the_run(engine)["status"]["nodes"].values()
    assert not any(n["displayName"] == "approve" for n in nodes)
    assert engine.run("resume", name).returncode == 0  # the run goes on and waits in the suspend node
    deadline = time.monotonic() + 60
    while not any(n["displayName"] == "approve" and n["phase"] == "Running"
                  for n in _the_run(engine)["status"]["nodes"].values()):
        assert time.monotonic() < deadline and driver.poll() is None
        time.sleep(0.2)
    assert engine.run("resume", name, "--node-field-selector", "displayName=approve").returncode == 0
    assert driver.wait(120) == 0
    assert (marks / "after").read_text().strip() == "done"
    assert _the_run(engine)["status"]["phase"] == "Succeeded"
