"""Preemption in the embedded engine, with real runs on a pinned (synthetic) GPU inventory.

A low-priority training-like script node checkpoints its step counter on SIGTERM into the run's volume claim and
resumes from it; a high-priority run in another engine process needs its GPU room. The low node must be told to
go, wait as "preempted, requeued", run again from its checkpoint and succeed, with its retries untouched; a node
that is not marked preemptible must never be stopped.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from aipipe.engine.gpu import detect_inventory
from aipipe.engine.gpupool import pool_report
from tests.engine.concurrency import executor, finished, in_thread, other_driver, pin, wait_for

NS = "argo"
STEPS = 40
TRAIN = f"""
import json, os, signal, sys, time
state, log = "/ckpt/step", "/ckpt/attempts"
step = int(open(state).read()) if os.path.exists(state) else 0
first = step
with open(log, "a") as fh:
    fh.write(f"start {{step}} {{time.time()}}\\n")
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(time.time()))
while step < {STEPS}:
    time.sleep(0.1)
    step += 1
    if stop:
        with open(state + ".tmp", "w") as fh:
            fh.write(str(step))
        os.replace(state + ".tmp", state)  # the checkpoint: atomic
        with open(log, "a") as fh:
            fh.write(f"stopped {{step}} {{time.time()}}\\n")
        sys.exit(143)
print(json.dumps({{"first": first, "step": step, "end": time.time(), "log": open(log).read().split("\\n")[:-1]}}))
"""
URGENT = "import json, time\nstart = time.time()\ntime.sleep(1.0)\nprint(json.dumps([start, time.time()]))\n"
PREEMPTED_WAIT = re.compile(r"preempted, requeued; waiting for GPU \(queue position (\d+)\)")


def workflow(name: str, source: str, priority: int, memory_mb: int, annotations: dict[str, str],
             claim: bool) -> dict[str, Any]:
    work: dict[str, Any] = {
        "name": "work", "metadata": {"annotations": annotations}, "retryStrategy": {"limit": 2},
        "script": {"image": "python:alpine3.23", "command": ["python"], "source": source,
                   "resources": {"limits": {"nvidia.com/gpu": 1, "nvidia.com/gpumem": memory_mb}},
                   **({"volumeMounts": [{"name": "ckpt", "mountPath": "/ckpt"}]} if claim else {})}}
    spec: dict[str, Any] = {"entrypoint": "main", "priority": priority,
                            "templates": [{"name": "main", "steps": [[{"name": "train", "template": "work"}]]}, work]}
    if claim:
        spec["volumeClaimTemplates"] = [{"metadata": {"name": "ckpt"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name}, "spec": spec}


def leases(home: Any) -> list[dict[str, Any]]:
    return pool_report(home, detect_inventory(home))["gpus"][0]["leases"]


def pod(status: dict[str, Any]) -> dict[str, Any]:
    [node] = [n for n in status["nodes"].values() if n["type"] == "Pod"]
    return node


def retries(status: dict[str, Any]) -> int:
    """How many attempts the step's Retry node made."""
    [node] = [n for n in status["nodes"].values() if n["type"] == "Retry"]
    return len(node.get("children") or [])


def run_low_then_urgent(home: Any, annotations: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any],
                                                                         list[dict[str, Any]]]:
    """The low run starts and gets some steps done; then the urgent run arrives from another engine process."""
    pin(home, 81920)
    changes: list[dict[str, Any]] = []
    low = in_thread(executor(home, workflow("low", TRAIN, 0, 61440, annotations, True), changes).run)
    wait_for(lambda: any(lease["run"] == f"{NS}/low" for lease in leases(home)))
    time.sleep(1.0)  # some steps done
    urgent = other_driver(home, workflow("urgent", URGENT, 5, 61440, {}, False))
    thread, box = low
    thread.join(90)
    return box["out"]["status"], finished(urgent), changes


def test_a_preemptible_low_priority_node_is_requeued_and_resumes_from_its_checkpoint(tmp_path: Any) -> None:
    home = tmp_path / "home"
    low, urgent, changes = run_low_then_urgent(home, {"aipipe.dev/preemptible": "true",
                                                      "aipipe.dev/preemption-grace-seconds": "10"})
    assert low["phase"] == "Succeeded", low
    out = json.loads(pod(low)["outputs"]["result"])
    starts = [line.split() for line in out["log"] if line.startswith("start")]
    stops = [line.split() for line in out["log"] if line.startswith("stopped")]
    assert len(starts) == 2 and len(stops) == 1, out["log"]
    assert out["first"] == int(stops[0][1]) > 0 and out["step"] == STEPS  # resumed where it checkpointed
    urgent_start, urgent_end = json.loads(pod(urgent)["outputs"]["result"])
    assert float(stops[0][2]) <= urgent_start < urgent_end <= float(starts[1][2])  # it went first, alone
    assert retries(low) == 1  # a requeue, not a retry
    messages = [str(pod(c["status"]).get("message") or "") for c in changes if c["status"].get("nodes")
                and any(n["type"] == "Pod" for n in c["status"]["nodes"].values())]
    assert "preempted, requeued" in messages
    assert any(PREEMPTED_WAIT.fullmatch(m) for m in messages)  # the node said why it waited
    assert not pod(low).get("message")
    assert leases(home) == []


def test_a_node_not_marked_preemptible_is_never_stopped(tmp_path: Any) -> None:
    home = tmp_path / "home"
    low, urgent, _ = run_low_then_urgent(home, {})
    assert low["phase"] == "Succeeded", low
    out = json.loads(pod(low)["outputs"]["result"])
    assert out["first"] == 0 and out["step"] == STEPS and len(out["log"]) == 1  # one attempt, never signalled
    urgent_start, _ = json.loads(pod(urgent)["outputs"]["result"])
    assert urgent_start >= out["end"]  # the urgent run waited for it
    assert retries(low) == 1


STUBBORN = f"""
import json, os, signal, time
log = "/ckpt/attempts"
with open(log, "a") as fh:
    fh.write(f"start 0 {{time.time()}}\\n")

def noted(*_):
    with open(log, "a") as fh:
        fh.write(f"term 0 {{time.time()}}\\n")

signal.signal(signal.SIGTERM, noted)  # it does not stop: SIGKILL ends it after the grace
for _ in range({STEPS}):
    time.sleep(0.1)
print(json.dumps({{"first": 0, "step": {STEPS}, "end": time.time(), "log": open(log).read().split("\\n")[:-1]}}))
"""


def test_a_node_that_ignores_sigterm_is_killed_after_its_grace_and_runs_again(tmp_path: Any) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    low = in_thread(executor(home, workflow("stubborn", STUBBORN, 0, 61440, {
        "aipipe.dev/preemptible": "true", "aipipe.dev/preemption-grace-seconds": "2"}, True), []).run)
    wait_for(lambda: any(lease["run"] == f"{NS}/stubborn" for lease in leases(home)))
    urgent = finished(other_driver(home, workflow("urgent", URGENT, 5, 61440, {}, False)))
    low[0].join(90)
    status = low[1]["out"]["status"]
    assert status["phase"] == "Succeeded", status
    log = [line.split() for line in json.loads(pod(status)["outputs"]["result"])["log"]]
    assert [entry[0] for entry in log] == ["start", "term", "start"], log
    urgent_start, _ = json.loads(pod(urgent)["outputs"]["result"])
    assert 2.0 <= urgent_start - float(log[1][2]) < 4.0  # SIGKILL came when the grace was over, not before
    assert retries(status) == 1
