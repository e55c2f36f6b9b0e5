"""Stop (no orphans), resume after kill -9 of the driver, validation, and the compiled retrain pipeline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.errors import UserError
from tests.engine.conftest import EngineRun, nodes_by_display

REPO = Path(__file__).resolve().parents[2]


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_stop_kills_process_groups_and_fails_run(engine: EngineRun) -> None:
    wf = yaml.safe_load("""
metadata: {name: stop-me}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: a, template: sleeper}
      - {name: b, template: sleeper}
    - - {name: never, template: sleeper}
  - name: sleeper
    container:
      image: busybox
      command: [sh, -c, "sleep 41.5 & sleep 40.5"]
""")
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    started = time.monotonic()
    out = engine.run(wf, stop=stop)
    assert time.monotonic() - started < 10
    assert out["status"]["phase"] == "Failed" and out["status"]["message"] == "terminated by user"
    nodes = nodes_by_display(out)
    assert [n["phase"] for n in nodes["a"] + nodes["b"]] == ["Failed", "Failed"]
    assert all(n["message"] == "terminated by user" for n in nodes["a"] + nodes["b"])
    assert "never" not in nodes
    time.sleep(0.2)
    assert _processes_with("sleep 41.5") == [] and _processes_with("sleep 40.5") == []


GRACEFUL = """
import signal, sys, time
def on_term(*_):
    print("saved its work on SIGTERM", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term if sys.argv[1] == "save" else signal.SIG_IGN)
print("running", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _graceful_wf(mode: str, sleep_s: float) -> dict[str, Any]:
    return {"metadata": {"name": f"graceful-{mode}"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "python:3.12", "command": ["python3", "-c", GRACEFUL, mode,
                                                                           str(sleep_s)]}}]}}


def _stop_once_running(engine: EngineRun) -> threading.Event:
    stop = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + 20
        while "running" not in engine.log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()

    threading.Thread(target=watch, daemon=True).start()
    return stop


def test_stop_sends_sigterm_first_so_a_node_can_save_its_work(engine: EngineRun) -> None:
    """As Kubernetes deletes a pod: SIGTERM to the main process, which may end cleanly (a GPU process killed
    mid-kernel can stall an MPS server's other clients); the node still ends as stopped."""
    started = time.monotonic()
    out = engine.run(_graceful_wf("save", 41.25), stop=_stop_once_running(engine))
    assert time.monotonic() - started < 15
    assert "saved its work on SIGTERM" in engine.log_text()
    [node] = nodes_by_display(out)["graceful-save"]
    assert node["phase"] == "Failed" and node["message"] == "terminated by user"


def test_a_node_that_ignores_sigterm_is_killed_after_the_grace(engine: EngineRun,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from aipipe.engine import pod

    monkeypatch.setattr(pod, "STOP_GRACE_S", 1.5)
    started = time.monotonic()
    out = engine.run(_graceful_wf("ignore", 41.75), stop=_stop_once_running(engine))
    took = time.monotonic() - started
    assert 1.5 <= took < 15
    [node] = nodes_by_display(out)["graceful-ignore"]
    assert node["phase"] == "Failed" and node["message"] == "terminated by user"
    time.sleep(0.2)
    assert _processes_with("41.75") == []


DRIVER = """
import json, os, sys, yaml
from pathlib import Path
from aipipe.config import load_config
from aipipe.engine.context import default_context
from aipipe.engine.executor import WorkflowExecutor
home, state = Path(sys.argv[1]), Path(sys.argv[2])
def save(wf):
    tmp = state.with_suffix(".tmp")
    tmp.write_text(json.dumps(wf))
    os.replace(tmp, state)
wf = json.loads(state.read_text()) if state.exists() else yaml.safe_load(sys.stdin.read())
ctx = default_context(load_config(env={"AIPIPE_HOME": str(home)}), home / "runs" / "r", on_change=save)
out = WorkflowExecutor(wf, ctx).run()
print(out["status"]["phase"])
"""

RESUMABLE = """
metadata: {name: resume-me}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: a, template: mark, arguments: {parameters: [{name: id, value: a}]}}
    - - {name: b, template: slow-mark}
    - - {name: c, template: mark, arguments: {parameters: [{name: id, value: c}]}}
  - name: mark
    inputs: {parameters: [{name: id}]}
    container:
      image: busybox
      command: [sh, -c, "echo x >> MARKERS/{{inputs.parameters.id}}"]
  - name: slow-mark
    retryStrategy: {limit: 1}
    container:
      image: busybox
      command: [sh, -c, "echo x >> MARKERS/b-{{retries}}; [ -e MARKERS/slept ] || { touch MARKERS/slept; sleep 30.7; }"]
"""


def test_resume_after_kill_9_reruns_only_unfinished_nodes(tmp_path: Path) -> None:
    home, state = tmp_path / "home", tmp_path / "state.json"
    markers = home / "store" / "markers"  # under the storage root: the part of the home a node may write
    markers.mkdir(parents=True)
    manifest = RESUMABLE.replace("MARKERS", str(markers))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(home), str(state)], stdin=subprocess.PIPE,
                              env=env, text=True, start_new_session=True)
    assert driver.stdin is not None
    driver.stdin.write(manifest)
    driver.stdin.close()
    deadline = time.monotonic() + 20
    while not (markers / "b-0").exists():
        assert time.monotonic() < deadline, "node b never started"
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    saved = json.loads(state.read_text())
    phases = {n["displayName"]: n["phase"] for n in saved["status"]["nodes"].values()}
    assert phases["a"] == "Succeeded" and phases["b(0)"] == "Running"
    resumed = subprocess.run([sys.executable, "-c", DRIVER, str(home), str(state)], env=env, capture_output=True,
                             text=True, timeout=60, check=False)
    assert resumed.stdout.strip() == "Succeeded", resumed.stderr
    final = json.loads(state.read_text())
    nodes = nodes_by_display(final)
    # the interrupted attempt runs again as itself: no retry used, never marked Error
    assert nodes["b(0)"][0]["phase"] == "Succeeded" and "b(1)" not in nodes
    assert nodes["c"][0]["phase"] == "Succeeded"
    counts = {p.name: len(p.read_text().splitlines()) for p in markers.iterdir() if p.name != "slept"}
    assert counts == {"a": 1, "b-0": 2, "c": 1}
    assert _processes_with("sleep 30.7") == [], "the killed driver's node processes are gone"


def test_validation_rejects_before_running(engine: EngineRun) -> None:
    wf = yaml.safe_load("""
metadata: {name: bad}
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: t, depends: b}
      - {name: b, template: t, depends: a}
  - name: t
    container: {image: busybox, command: ["true"]}
""")
    with pytest.raises(UserError, match="cycle"):
        engine.run(wf)
    assert not engine.changes
    wf["spec"]["templates"][0]["dag"]["tasks"][0]["depends"] = "zz"
    with pytest.raises(UserError, match="'zz' not defined"):
        engine.run(wf)
    wf["spec"]["templates"][0]["dag"]["tasks"][0]["depends"] = "b"
    wf["spec"]["templates"][0]["dag"]["tasks"][1].pop("depends")
    wf["spec"]["templates"][1] = {"name": "t", "resource": {"action": "create"}}
    with pytest.raises(UserError, match="resource templates are not supported"):
        engine.run(wf)


def test_unknown_prefix_passes_through_and_inputs_enum(engine: EngineRun) -> None:
    wf = yaml.safe_load("""
metadata: {name: literal}
spec:
  entrypoint: main
  arguments: {parameters: [{name: color, value: purple}]}
  templates:
  - name: main
    inputs:
      parameters:
      - {name: color, enum: [red, green]}
    container: {image: busybox, command: [echo, "{{custom.variable}} {{inputs.parameters.color}}"]}
""")
    out = engine.run(wf)  # an input's enum is the UI's (argo-workflows#6959): a value outside it still runs
    assert out["status"]["nodes"]["literal"]["outputs"]["result"] == "{{custom.variable}} purple"


def test_compiled_retrain_pipeline_is_runnable(engine: EngineRun) -> None:
    """The compiled pipeline validates, and its steps image maps to this repo's venv with the repo importable."""
    from aipipe.compile.compiler import compile_pipeline
    from aipipe.config import load_config
    from aipipe.engine.context import dict_templates, engine_settings
    from aipipe.engine.validate import validate_workflow

    cfg = load_config(env=engine.env)
    compiled = compile_pipeline(REPO / "pipelines" / "retrain.py", cfg)
    validate_workflow(compiled.workflow, dict_templates(compiled.templates))
    runtime = engine_settings(cfg).images.resolve(str(cfg.get("kubernetes.steps_image")))
    assert runtime.env["PYTHONPATH"] == str(REPO)
    assert runtime.search_path().split(":")[0] == str(Path(sys.executable).parent)


def test_on_change_before_process_start(engine: EngineRun) -> None:
    wf: dict[str, Any] = yaml.safe_load("""
metadata: {name: feed}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: busybox, command: ["true"]}
""")
    engine.run(wf)
    running = [c for c in engine.changes if c["status"]["nodes"].get("feed", {}).get("phase") == "Running"]
    assert running, "the node is persisted as Running before its process ends"
    assert engine.changes[-1]["status"]["phase"] == "Succeeded"
    assert engine.changes[-1]["status"]["progress"] == "1/1"


def test_retry_keeps_succeeded_nodes(engine: EngineRun, tmp_path: Path) -> None:
    from aipipe.engine.nodes import reset_for_retry

    flag = tmp_path / "home" / "store" / "fixed"  # the storage root: where a node may write in the home
    log = tmp_path / "home" / "store" / "runs.log"
    wf = yaml.safe_load(f"""
metadata: {{name: retry-me}}
spec:
  entrypoint: main
  onExit: bye
  templates:
  - name: main
    steps:
    - - {{name: first, template: ok}}
    - - {{name: second, template: flaky}}
  - name: ok
    container: {{image: busybox, command: [sh, -c, "echo first >> {log}"]}}
  - name: flaky
    container: {{image: busybox, command: [sh, -c, "echo second >> {log}; test -f {flag}"]}}
  - name: bye
    container: {{image: busybox, command: [sh, -c, "echo bye >> {log}"]}}
""")
    (tmp_path / "home" / "store").mkdir(parents=True, exist_ok=True)
    first = engine.run(wf)
    assert first["status"]["phase"] == "Failed"
    flag.write_text("")
    second = engine.run(reset_for_retry(first))
    assert second["status"]["phase"] == "Succeeded"
    assert log.read_text().split() == ["first", "second", "bye", "second", "bye"]
