"""kill -9 of the driver at a chosen moment, then a fresh driver resumes from the stored state and reaches what one
uninterrupted driver reaches: hooks an earlier driver fired are run again, a run whose deadline passed while no
driver ran still ends the nodes that were running and decides their dependants, and a finished group's daemon serves
again."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.engine.conftest import nodes_by_display
from tests.engine.test_lifecycle import DRIVER, REPO

Phases = dict[str, str]


def _phases(state: Path) -> Phases:
    try:
        saved = json.loads(state.read_text())
    except (OSError, ValueError):
        return {}
    return {n["displayName"]: n["phase"] for n in saved["status"]["nodes"].values()}


def crash_then_resume(tmp_path: Path, manifest: str, crash_when: Callable[[Phases], bool],
                      pause: float = 0.0) -> dict[str, Any]:
    """Drive ``manifest`` until the stored node phases satisfy ``crash_when``, SIGKILL the driver, wait ``pause``
    seconds, resume it with a new driver; the final workflow."""
    home, state = tmp_path / "home", tmp_path / "state.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(home), str(state)], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, env=env, text=True, start_new_session=True)
    assert driver.stdin is not None
    driver.stdin.write(manifest)
    driver.stdin.close()
    deadline = time.monotonic() + 30
    while not crash_when(_phases(state)):
        assert driver.poll() is None, f"the run ended before the crash point: {_phases(state)}"
        assert time.monotonic() < deadline, f"never reached the crash point: {_phases(state)}"
        time.sleep(0.02)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    time.sleep(pause)
    resumed = subprocess.run([sys.executable, "-c", DRIVER, str(home), str(state)], env=env, capture_output=True,
                             text=True, timeout=60, check=False)
    assert resumed.returncode == 0, resumed.stderr
    final: dict[str, Any] = json.loads(state.read_text())
    return final


HOOKED_STEPS = """
metadata: {name: hooked}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: build
        template: quick
        hooks:
          done:
            expression: steps["build"].status == "Succeeded"
            template: notify
            arguments: {parameters: [{name: what, value: "built"}]}
    - - {name: ship, template: slow}
  - name: quick
    container: {image: busybox, command: ["true"]}
  - name: slow
    container: {image: busybox, command: [sleep, "1"]}
  - name: notify
    inputs: {parameters: [{name: what}]}
    container: {image: busybox, command: [sh, -c, "sleep 1.5; echo {{inputs.parameters.what}}"]}
"""


def test_a_hook_left_running_by_a_dead_driver_runs_again_with_its_inputs(tmp_path: Path) -> None:
    """The build's step group had ended when the driver died, so no walk reaches the hook's owner again; the hook's
    stored node (template, inputs) is what runs it again."""
    out = crash_then_resume(tmp_path, HOOKED_STEPS,
                            lambda p: p.get("build.hooks.done") == "Running" and p.get("[0]") == "Succeeded")
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    nodes = nodes_by_display(out)
    [hook] = nodes["build.hooks.done"]
    assert hook["phase"] == "Succeeded" and hook["outputs"]["result"] == "built"
    assert all(n["phase"] == "Succeeded" for n in out["status"]["nodes"].values())


DEADLINED_DAG = """
metadata: {name: deadlined}
spec:
  entrypoint: main
  activeDeadlineSeconds: 2
  templates:
  - name: main
    dag:
      tasks:
      - {name: long, template: nap}
      - {name: after, template: nap, depends: long}
  - name: nap
    container: {image: busybox, command: [sleep, "5"]}
"""


def test_a_deadline_that_passed_while_no_driver_ran_ends_the_running_task_and_omits_its_dependant(
        tmp_path: Path) -> None:
    out = crash_then_resume(tmp_path, DEADLINED_DAG, lambda p: p.get("long") == "Running", pause=2.2)
    assert out["status"]["phase"] == "Failed"
    nodes = nodes_by_display(out)
    assert nodes["long"][0]["phase"] == "Failed" and nodes["long"][0]["message"] == "Step exceeded its deadline"
    assert nodes["after"][0]["phase"] == "Omitted"
    assert not [n for n in out["status"]["nodes"].values() if n["phase"] in ("Running", "Pending")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


DAEMON_STEPS = """
metadata: {name: served}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: server, template: server}
    - - {name: warm-up, template: nap}
    - - {name: client, template: client, arguments: {parameters: [{name: ip, value: "{{steps.server.ip}}"}]}}
  - name: server
    daemon: true
    container:
      image: python:3-alpine
      command: [python3, -c]
      args: ["import http.server as h; h.HTTPServer(('127.0.0.1', PORT), h.SimpleHTTPRequestHandler).serve_forever()"]
      readinessProbe: {httpGet: {path: /, port: PORT}}
  - name: nap
    container: {image: busybox, command: [sleep, "1"]}
  - name: client
    inputs: {parameters: [{name: ip}]}
    container:
      image: python:3-alpine
      command: [python3, -c, "import urllib.request as u; print(u.urlopen('http://{{inputs.parameters.ip}}:PORT/').status)"]
"""


def test_a_daemon_of_a_finished_step_group_serves_again_after_a_resume(tmp_path: Path) -> None:
    """The daemon died with the driver; the group that started it had ended and is kept, so the resumed driver
    starts the daemon again (as the same node) before the steps that reach it."""
    out = crash_then_resume(tmp_path, DAEMON_STEPS.replace("PORT", str(_free_port())),
                            lambda p: p.get("server") == "Running" and p.get("warm-up") == "Running")
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    nodes = nodes_by_display(out)
    assert nodes["client"][0]["outputs"]["result"] == "200"
    assert [n["phase"] for n in nodes["server"]] == ["Succeeded"]
