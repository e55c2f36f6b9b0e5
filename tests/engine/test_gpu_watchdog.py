"""The GPU pool's over-cap watchdog in real engine runs, on a pinned (synthetic) GPU inventory.

No GPU here: the readings come through the documented test seam ``AIPIPE_GPU_USAGE_FILE`` (``PID MIB`` lines),
which the steps write themselves into the run's volume claim, so the engine's real sampling of the node's process
tree, its stop (SIGTERM, then SIGKILL) and the node's message are what is tested.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.gpu import detect_inventory
from aipipe.engine.gpupool import pool_report
from aipipe.engine.gpuwatch import USAGE_FILE_ENV, Watchdog, file_usage, over_cap_message, tree_pids
from aipipe.errors import UserError
from aipipe.stepkit import allocator_mb, apply_gpu_memory_cap
from tests.engine.concurrency import executor, pin

CAP = 1000
SAY = ("import os, subprocess, sys, time\n"
       "def say(mib, pid=None):\n"
       "    with open('/gpu/usage', 'a') as fh:\n"
       "        fh.write(f'{pid or os.getpid()} {mib}\\n')\n")
HOG = SAY + """
say(100)
time.sleep(1.0)
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
say(600, helper.pid)  # each under the cap, together over it: the tree counts
say(600)
time.sleep(30)
print("not stopped")
"""
FINE = SAY + """
say(900)
time.sleep(3.0)
print("done within its share")
"""
IGNORES_TERM = SAY + """
import signal
signal.signal(signal.SIGTERM, lambda *_: None)
say(5000)
time.sleep(30)
"""


def workflow(name: str, nodes: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    templates = [{"name": node, "script": {"image": "python:alpine3.23", "command": ["python"], "source": source,
                                           "resources": {"limits": limits},
                                           "volumeMounts": [{"name": "gpu", "mountPath": "/gpu"}]}}
                 for node, (source, limits) in nodes.items()]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main",
                     "volumeClaimTemplates": [{"metadata": {"name": "gpu"}, "spec": {
                         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}],
                     "templates": [{"name": "main", "steps": [[{"name": n, "template": n} for n in nodes]]},
                                   *templates]}}


def share(mib: int) -> dict[str, Any]:
    return {"nvidia.com/gpu": 1, "nvidia.com/gpumem": mib}


def run(home: Path, wf: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], float]:
    pin(home, 81920)
    name = wf["metadata"]["name"]
    monkeypatch.setenv(USAGE_FILE_ENV, str(home / "runs" / name / "volumes" / "gpu" / "usage"))
    start = time.monotonic()
    status = executor(home, wf, []).run()["status"]
    return status, time.monotonic() - start


def pods(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["displayName"]: n for n in status["nodes"].values() if n["type"] == "Pod"}


def test_a_node_over_its_share_is_stopped_with_the_message_while_its_neighbour_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    status, took = run(home, workflow("over", {"hog": (HOG, share(CAP)), "fine": (FINE, share(CAP))}), monkeypatch)
    nodes = pods(status)
    assert nodes["hog"]["phase"] == "Failed"
    assert nodes["hog"]["message"] == over_cap_message(1200, CAP)
    assert nodes["fine"]["phase"] == "Succeeded", nodes["fine"]
    assert nodes["fine"]["outputs"]["result"] == "done within its share"
    assert took < 20  # stopped, not slept out
    assert status["phase"] == "Failed"
    assert pool_report(home, detect_inventory(home))["gpus"][0]["leases"] == []  # memory given back


def test_a_node_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    status, took = run(tmp_path / "home", workflow("stubborn", {"hog": (IGNORES_TERM, share(CAP))}), monkeypatch)
    assert pods(status)["hog"]["message"] == over_cap_message(5000, CAP)
    assert took < 20


def test_whole_gpus_and_nodes_within_their_share_are_not_watched(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    whole = SAY + "say(70000)\ntime.sleep(1.5)\nprint('whole GPU: all its memory')\n"
    status, _ = run(tmp_path / "home", workflow("inside", {"whole": (whole, {"nvidia.com/gpu": 1}),
                                                            "fine": (FINE, share(CAP))}), monkeypatch)
    assert status["phase"] == "Succeeded", status
    assert {n: p["phase"] for n, p in pods(status).items()} == {"whole": "Succeeded", "fine": "Succeeded"}


def test_the_reading_of_a_tree_sums_its_processes_and_only_theirs(tmp_path: Path) -> None:
    usage = tmp_path / "usage"
    usage.write_text("10 300\n11 400\n12 9000\n10 650\nnot a line\n")
    read = file_usage(usage)()
    assert read == {10: 650, 11: 400, 12: 9000}  # a later line for a pid replaces an earlier one
    dog = Watchdog(1000)
    assert dog.sample(read, [11]) is None and dog.sample(read, [10, 11, 99]) == 1050 and dog.peak_mb == 1050
    assert Watchdog(1050).sample(read, [10, 11]) is None  # at the cap is within it
    assert file_usage(tmp_path / "absent")() == {}


def test_the_process_tree_holds_the_children_of_children() -> None:
    inner = 0
    outer = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                              "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
                              "print(p.pid, flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert outer.stdout is not None
        inner = int(outer.stdout.readline())
        found = tree_pids(outer.pid)
        assert {outer.pid, inner} <= found and os.getpid() not in found
    finally:
        if inner:
            os.kill(inner, signal.SIGKILL)
        outer.kill()
        outer.wait()


def test_the_allocator_leaves_room_for_the_cuda_context_within_the_share() -> None:
    assert allocator_mb(8192) == 8192 - 1024  # the default allowance (AIPIPE_GPU_CONTEXT_MB)
    assert allocator_mb(1000) == 500 and allocator_mb(8192, 0) == 8192  # at most half the share
    with pytest.raises(UserError, match="AIPIPE_GPU_CONTEXT_MB"):
        apply_gpu_memory_cap({"AIPIPE_GPU_MEMORY_MB": "4096", "AIPIPE_GPU_CONTEXT_MB": "lots"})
