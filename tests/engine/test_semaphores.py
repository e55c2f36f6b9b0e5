"""``synchronization`` semaphores read their limit from the local ConfigMap store and bind every engine process.

Real runs (script nodes print when their critical section starts and ends), a second engine in a real
subprocess, the ConfigMap changed on disk mid-run, a stop while a node waits.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.context import no_templates
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError
from tests.engine.concurrency import executor, in_thread, max_overlap, wait_for
from tests.engine.conftest import EngineRun

REPO_ROOT = Path(__file__).resolve().parents[2]
NS = "argo"  # the engine's default namespace (argo.namespace)


def critical(seconds: float, sync: dict[str, Any] | None = None) -> dict[str, Any]:
    """A script template that prints the start and end time of a ``seconds`` long critical section."""
    return {"name": "critical", **({"synchronization": sync} if sync else {}), "script": {
        "image": "python:alpine3.23", "command": ["python"],
        "source": f"import time\nstart = time.time()\ntime.sleep({seconds})\nprint(start, time.time())\n"}}


def semaphore(key: str, name: str = "limits", legacy: bool = False) -> dict[str, Any]:
    ref = {"configMapKeyRef": {"name": name, "key": key}}
    return {"semaphore": ref} if legacy else {"semaphores": [ref]}


def fan_out(name: str, width: int, seconds: float, sync: dict[str, Any] | None = None,
            **spec: Any) -> dict[str, Any]:
    steps = [{"name": f"n{i}", "template": "critical"} for i in range(width)]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", **spec, "templates": [
                {"name": "main", "steps": [steps]}, critical(seconds, sync)]}}


def set_limit(home: Path, key: str, value: str, name: str = "limits") -> None:
    folder = home / "configmaps" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / key).write_text(value + "\n")


def spans(wf: dict[str, Any]) -> list[tuple[float, float]]:
    out = [tuple(map(float, n["outputs"]["result"].split())) for n in wf["status"]["nodes"].values()
           if n["type"] == "Pod" and n["phase"] == "Succeeded"]
    return sorted((s, e) for s, e in out)










def waiting_nodes(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [n for c in list(changes) for n in c["status"]["nodes"].values()
            if str(n.get("message") or "").startswith("Waiting for")]


@pytest.mark.parametrize("limit", [1, 2])
def test_the_limit_bounds_parallel_nodes_and_waiters_show_argos_message(engine: EngineRun, limit: int) -> None:
    set_limit(engine.home, "template", str(limit))
    out = engine.run(fan_out("sem-fan", 3, 1.0, semaphore("template")))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert len(spans(out)) == 3 and max_overlap(spans(out)) == limit
    lock = f"{NS}/ConfigMap/limits/template"
    [first, *_] = waiting_nodes(engine.changes)
    assert first["message"] == f"Waiting for {lock} lock. Lock status: 0/{limit}"
    assert first["phase"] == "Pending" and first["synchronizationStatus"] == {"waiting": lock}
    seen = [c["status"].get("synchronization") for c in engine.changes if c["status"].get("synchronization")]
    holding = [h for s in seen for h in s["semaphore"].get("holding") or []]
    assert holding and all(h["semaphore"] == lock for h in holding)
    pod_ids = {n["id"] for n in out["status"]["nodes"].values() if n["type"] == "Pod"}
    assert {k.rsplit("/", 1)[1] for h in holding for k in h["holders"]} == pod_ids
    assert all(k.startswith(f"{NS}/sem-fan/") for h in holding for k in h["holders"])
    waiting = [w for s in seen for w in s["semaphore"].get("waiting") or []]
    assert waiting and len(waiting[0]["holders"]) == limit
    assert "synchronization" not in out["status"]  # all released at the end
    assert not any(n.get("synchronizationStatus") for n in out["status"]["nodes"].values())


def test_a_mutex_and_a_semaphore_in_one_block_are_taken_together(engine: EngineRun) -> None:
    set_limit(engine.home, "both", "2")
    sync = {**semaphore("both"), "mutexes": [{"name": "solo"}]}
    out = engine.run(fan_out("sem-both", 2, 0.6, sync))
    assert out["status"]["phase"] == "Succeeded" and max_overlap(spans(out)) == 1  # the mutex binds
    mutex = f"{NS}/Mutex/solo"
    [first, *_] = waiting_nodes(engine.changes)
    assert first["message"] == f"Waiting for {mutex} lock. Lock status: 0/1"
    seen = [c["status"]["synchronization"] for c in engine.changes if c["status"].get("synchronization")]
    holdings = [h for s in seen for h in (s.get("mutex") or {}).get("holding") or []]
    assert holdings and all(h["mutex"] == mutex and h["holder"].startswith(f"{NS}/sem-both/") for h in holdings)
    waits = [w for s in seen for w in (s.get("mutex") or {}).get("waiting") or []]
    assert waits and waits[0]["holder"] == holdings[0]["holder"]
    assert any((s.get("semaphore") or {}).get("holding") for s in seen)


def test_the_singular_semaphore_and_mutex_v4_removed_lock_nothing(engine: EngineRun) -> None:
    """Argo v4's CRD prunes the removed fields from a submitted spec, so the run is not locked by them."""
    set_limit(engine.home, "legacy", "1")
    sync = {**semaphore("legacy", legacy=True), "mutex": {"name": "legacy"}}
    out = engine.run(fan_out("sem-legacy", 2, 1.0, sync))
    assert out["status"]["phase"] == "Succeeded" and max_overlap(spans(out)) == 2
    assert not out["status"].get("synchronization")


def test_two_engine_processes_share_one_semaphore(engine: EngineRun) -> None:
    set_limit(engine.home, "shared", "1")
    other = fan_out("sem-other", 1, 2.0, semaphore("shared"))
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from aipipe.config import load_config
        from aipipe.engine.context import default_context
        from aipipe.engine.executor import WorkflowExecutor
        home = Path({str(engine.home)!r})
        ctx = default_context(load_config(env={{"AIPIPE_HOME": str(home)}}), home / "runs" / "other")
        out = WorkflowExecutor(json.loads(sys.argv[1]), ctx).run()
        print(json.dumps(out["status"]))
    """)
    env = {**os.environ, "AIPIPE_HOME": str(engine.home), "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script, json.dumps(other)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT)
    slot = engine.home / "locks" / "semaphores" / NS / "limits" / "shared" / "0"
    wait_for(lambda: slot.exists() and slot.read_text().startswith(f"{NS}/sem-other/"))  # it holds the only slot
    mine = engine.run(fan_out("sem-mine", 1, 0.2, semaphore("shared")))
    stdout, stderr = proc.communicate(timeout=60)
    theirs = json.loads(stdout.strip().splitlines()[-1])
    assert proc.returncode == 0 and theirs["phase"] == "Succeeded", stderr
    assert mine["status"]["phase"] == "Succeeded"
    [(_, their_end)] = spans({"status": theirs})
    [(my_start, _)] = spans(mine)
    assert my_start >= their_end
    [first, *_] = waiting_nodes(engine.changes)
    assert first["message"] == f"Waiting for {NS}/ConfigMap/limits/shared lock. Lock status: 0/1"
    waits = [w for c in engine.changes for w in
             ((c["status"].get("synchronization") or {}).get("semaphore") or {}).get("waiting") or []]
    assert any(w["holders"] and w["holders"][0].startswith(f"{NS}/sem-other/") for w in waits)


def test_raising_the_limit_in_the_config_map_lets_waiters_in_at_once(engine: EngineRun) -> None:
    set_limit(engine.home, "grow", "1")
    thread, box = in_thread(lambda: engine.run(fan_out("sem-grow", 3, 2.0, semaphore("grow"))))
    wait_for(lambda: len(waiting_nodes(engine.changes)) >= 2)
    set_limit(engine.home, "grow", "3")
    thread.join(60)
    out = box["out"]
    assert out["status"]["phase"] == "Succeeded"
    assert max_overlap(spans(out)) >= 2  # with the old limit of 1 they could never overlap


@pytest.mark.parametrize(("value", "why"), [(None, "not found"), ("many", "not an integer"), ("0", "is 0")])
def test_an_unreadable_limit_errors_the_node_with_argos_message(engine: EngineRun, value: str | None,
                                                                 why: str) -> None:
    if value is not None:
        set_limit(engine.home, "broken", value, name=f"cm-{why.replace(' ', '-')}")
    name = f"cm-{why.replace(' ', '-')}"
    out = engine.run(fan_out("sem-broken", 1, 0.1, semaphore("broken", name=name)))
    [pod] = [n for n in out["status"]["nodes"].values() if n["displayName"] == "n0"]
    assert pod["phase"] == "Error"
    assert pod["message"].startswith(f"failed to initialize semaphore {NS}/ConfigMap/{name}/broken with limit")
    assert why in pod["message"]
    assert out["status"]["phase"] in ("Failed", "Error")
    assert "result" not in (pod.get("outputs") or {})  # nothing ran


def test_stop_while_waiting_ends_the_run_and_frees_every_slot(engine: EngineRun) -> None:
    set_limit(engine.home, "stop", "1")
    stop = threading.Event()
    began = time.monotonic()
    thread, box = in_thread(lambda: engine.run(fan_out("sem-stop", 2, 30.0, semaphore("stop")), stop=stop))
    wait_for(lambda: bool(waiting_nodes(engine.changes)))
    stop.set()
    thread.join(30)
    out = box["out"]
    assert time.monotonic() - began < 25  # neither the holder's 30 s nor the wait ran on
    assert out["status"]["phase"] == "Failed"
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert {n["phase"] for n in pods} == {"Failed"}
    assert not any(n.get("synchronizationStatus") for n in pods)
    assert "synchronization" not in out["status"]
    slot = engine.home / "locks" / "semaphores" / NS / "limits" / "stop" / "0"
    fd = os.open(slot, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if anyone still held it
    finally:
        os.close(fd)


def test_a_workflow_level_semaphore_queues_whole_workflows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    set_limit(home, "workflow", "1")
    sync = {"synchronization": semaphore("workflow")}
    first_changes: list[dict[str, Any]] = []
    second_changes: list[dict[str, Any]] = []
    first = executor(home, fan_out("wf-first", 1, 1.5, **sync), first_changes, "first")
    second = executor(home, fan_out("wf-second", 1, 0.2, **sync), second_changes, "second")
    t1, box1 = in_thread(first.run)
    wait_for(lambda: any(n.get("type") == "Pod" for c in first_changes for n in c["status"]["nodes"].values()))
    t2, box2 = in_thread(second.run)
    t1.join(60)
    t2.join(60)
    assert box1["out"]["status"]["phase"] == box2["out"]["status"]["phase"] == "Succeeded"
    assert max_overlap(spans(box1["out"]) + spans(box2["out"])) == 1
    pending = [c["status"] for c in second_changes if c["status"].get("phase") == "Pending"]
    lock = f"{NS}/ConfigMap/limits/workflow"
    assert pending and pending[0]["message"] == f"Waiting for {lock} lock. Lock status: 0/1"
    assert pending[0]["synchronization"]["semaphore"]["waiting"] == [
        {"semaphore": lock, "holders": [f"{NS}/wf-first"]}]
    assert not pending[0]["nodes"]  # nothing of the waiting workflow ran
    held = [c["status"]["synchronization"] for c in first_changes if c["status"].get("synchronization")]
    assert held[0] == {"semaphore": {"holding": [{"semaphore": lock, "holders": [f"{NS}/wf-first"]}]}}


def test_a_missing_config_map_fails_a_workflow_level_semaphore(engine: EngineRun) -> None:
    out = engine.run(fan_out("wf-missing", 1, 0.1, synchronization=semaphore("absent", name="nowhere")))
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"].startswith(
        f"Failed to acquire the synchronization lock. failed to initialize semaphore {NS}/ConfigMap/nowhere/absent "
        "with limit")
    assert not out["status"]["nodes"]


@pytest.mark.parametrize(("sync", "field"), [
    ({"semaphores": [{"database": {"key": "gpu"}}]}, "semaphores[0].database"),
    ({"mutexes": [{"name": "m", "database": True}]}, "mutexes[0].database"),
    ({"semaphores": [{"configMapKeyRef": {"name": "limits"}}]}, "semaphores[0].configMapKeyRef.key"),
])
def test_locks_the_engine_cannot_take_are_refused_at_submit(sync: dict[str, Any], field: str) -> None:
    wf = fan_out("refused", 1, 0.1, sync)
    with pytest.raises(UserError) as caught:
        validate_workflow(wf, no_templates)
    assert caught.value.field == f"templates.critical.synchronization.{field}"
    if "database" in field:
        assert "synchronization database" in str(caught.value)
    at_workflow = fan_out("refused", 1, 0.1, synchronization=sync)
    with pytest.raises(UserError) as caught:
        validate_workflow(at_workflow, no_templates)
    assert caught.value.field == f"spec.synchronization.{field}"


def test_config_map_semaphores_pass_submit() -> None:
    validate_workflow(fan_out("ok", 1, 0.1, semaphore("k")), no_templates)
    validate_workflow(fan_out("ok", 1, 0.1, semaphore("k"), synchronization=semaphore("w")), no_templates)


def test_higher_priority_waiters_go_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    set_limit(home, "queue", "1")
    sync = {"synchronization": semaphore("queue")}
    changes: dict[str, list[dict[str, Any]]] = {"holder": [], "low": [], "high": []}
    runs = {"holder": executor(home, fan_out("q-holder", 1, 1.5, **sync), changes["holder"], "holder"),
            "low": executor(home, fan_out("q-low", 1, 0.2, **sync, priority=0), changes["low"], "low"),
            "high": executor(home, fan_out("q-high", 1, 0.2, **sync, priority=5), changes["high"], "high")}

    def pending(name: str) -> bool:
        return any(c["status"].get("phase") == "Pending" for c in changes[name])

    threads = {"holder": in_thread(runs["holder"].run)}
    wait_for(lambda: any(c["status"].get("synchronization") for c in changes["holder"]))
    threads["low"] = in_thread(runs["low"].run)  # created first, queued first
    wait_for(lambda: pending("low"))
    threads["high"] = in_thread(runs["high"].run)
    wait_for(lambda: pending("high"))
    outs = {}
    for name, (thread, box) in threads.items():
        thread.join(60)
        outs[name] = box["out"]
        assert outs[name]["status"]["phase"] == "Succeeded"
    [(high_start, high_end)] = spans(outs["high"])
    [(low_start, _)] = spans(outs["low"])
    assert spans(outs["holder"])[0][1] <= high_start < high_end <= low_start


def test_the_server_lints_and_runs_semaphores(tmp_path: Path) -> None:
    from tests.server.conftest import start_server

    home = tmp_path / "home"
    set_limit(home, "workflow", "1")
    server = start_server(home)
    try:
        api = f"{server.url}/api/v1/workflows/{NS}"
        sync = {"synchronization": semaphore("workflow")}
        database = fan_out("srv-db", 1, 0.1, {"semaphores": [{"database": {"key": "gpu"}}]})
        refused = server.http.post(f"{api}/lint", json={"workflow": database}, timeout=30)
        assert refused.status_code == 400, refused.text
        assert "synchronization.semaphores[0].database" in refused.json()["message"]
        assert "synchronization database" in refused.json()["message"]
        first, second = fan_out("srv-first", 1, 1.5, **sync), fan_out("srv-second", 1, 0.2, **sync)
        linted = server.http.post(f"{api}/lint", json={"workflow": first}, timeout=30)
        assert linted.status_code == 200, linted.text
        for wf in (first, second):
            created = server.http.post(api, json={"workflow": wf}, timeout=30)
            assert created.status_code == 200, created.text
        seen: dict[str, dict[str, Any]] = {}
        messages: set[str] = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(seen) < 2:
            for name in ("srv-first", "srv-second"):
                status = server.http.get(f"{api}/{name}", timeout=30).json().get("status") or {}
                messages.add(str(status.get("message")))
                if status.get("phase") in ("Succeeded", "Failed", "Error"):
                    seen[name] = {"status": status}
            time.sleep(0.1)
        assert {s["status"]["phase"] for s in seen.values()} == {"Succeeded"}, seen
        assert f"Waiting for {NS}/ConfigMap/limits/workflow lock. Lock status: 0/1" in messages
        assert max_overlap(spans(seen["srv-first"]) + spans(seen["srv-second"])) == 1
    finally:
        server.stop()
