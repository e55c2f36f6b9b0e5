"""The machine's GPU pool: one lease table and queue for every engine process under one AIPIPE_HOME.

Real runs (script nodes print when they ran and the GPU they were given), second engines in real subprocesses,
``aipipe gpus`` and a real ``aipipe server``. The inventory is pinned in ``AIPIPE_HOME/gpus.json`` (the pool's
documented override), so these run on machines without a GPU.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.context import no_templates, pool_policy
from aipipe.engine.gpu import GpuInfo, GpuRequest, Inventory, Lease, detect_inventory
from aipipe.engine.gpupolicy import place
from aipipe.engine.gpupool import pool_report
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError
from tests.engine.concurrency import executor, finished, in_thread, max_overlap, other_driver, pin, wait_for

REPO_ROOT = Path(__file__).resolve().parents[2]
NS = "argo"
WAITING = re.compile(r"waiting for GPU \(queue position (\d+)\)")
SOURCE = ("import os, time\nstart = time.time()\ntime.sleep({seconds})\n"
          "print(start, time.time(), os.environ.get('CUDA_VISIBLE_DEVICES'), "
          "os.environ.get('AIPIPE_GPU_MEMORY_MB', '-'))\n")


def gpu_wf(name: str, width: int, seconds: float, limits: dict[str, Any], priority: int = 0) -> dict[str, Any]:
    steps = [{"name": f"n{i}", "template": "work"} for i in range(width)]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", "priority": priority, "templates": [
                {"name": "main", "steps": [steps]},
                {"name": "work", "script": {"image": "python:alpine3.23", "command": ["python"],
                                            "source": SOURCE.format(seconds=seconds),
                                            "resources": {"limits": limits}}}]}}


def ran(status: dict[str, Any]) -> list[tuple[float, float, str, str]]:
    """(start, end, CUDA_VISIBLE_DEVICES, AIPIPE_GPU_MEMORY_MB) of each node that succeeded, by start."""
    out = []
    for node in status["nodes"].values():
        if node["type"] == "Pod" and node["phase"] == "Succeeded":
            start, end, devices, memory = node["outputs"]["result"].split()
            out.append((float(start), float(end), devices, memory))
    return sorted(out)

def report(home: Path) -> dict[str, Any]:
    return pool_report(home, detect_inventory(home))


def waits(changes: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(node display name, queue position) of each waiting display the run went through."""
    return [(n["displayName"], int(m.group(1))) for c in list(changes) for n in c["status"]["nodes"].values()
            if n.get("phase") == "Pending" and (m := WAITING.fullmatch(str(n.get("message") or "")))]


def test_two_engine_processes_never_hold_one_gpu_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    proc = other_driver(home, gpu_wf("gpu-other", 2, 0.8, {"nvidia.com/gpu": 1}))
    wait_for(lambda: bool(report(home)["gpus"][0]["leases"]))
    changes: list[dict[str, Any]] = []
    mine = executor(home, gpu_wf("gpu-mine", 2, 0.8, {"nvidia.com/gpu": "1"}), changes).run()
    theirs = finished(proc)
    assert mine["status"]["phase"] == "Succeeded"
    spans = ran(mine["status"]) + ran(theirs)
    assert len(spans) == 4 and {s[2] for s in spans} == {"0"} and {s[3] for s in spans} == {"-"}
    assert max_overlap((s[0], s[1]) for s in spans) == 1
    assert waits(changes)  # my nodes showed their place in the queue while the other process held the GPU
    final = [n for n in mine["status"]["nodes"].values() if n["type"] == "Pod"]
    assert all(not WAITING.fullmatch(str(n.get("message") or "")) for n in final)
    assert report(home)["gpus"][0]["leases"] == [] and report(home)["queue"] == []


def test_memory_shares_pack_onto_one_gpu_and_a_third_waits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    changes: list[dict[str, Any]] = []
    thread, box = in_thread(executor(home, gpu_wf("gpu-shares", 3, 2.0, {"nvidia.com/gpu": 1,
                                                                         "nvidia.com/gpumem": 32768}),
                                     changes).run)
    wait_for(lambda: len(report(home)["queue"]) == 1 and len(report(home)["gpus"][0]["leases"]) == 2)
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    shown = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "gpus", "-o", "json"], env=env, cwd=REPO_ROOT,
                           capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(shown.stdout)
    [gpu] = seen["gpus"]
    assert gpu["memoryMiB"] == 81920 and gpu["grantedMiB"] == 65536 and gpu["freeMiB"] == 16384
    assert [lease["share"] for lease in gpu["leases"]] == ["32768 MiB", "32768 MiB"]
    assert all(lease["run"] == f"{NS}/gpu-shares" for lease in gpu["leases"])
    [waiter] = seen["queue"]
    assert waiter["position"] == 1 and waiter["request"] == "32768 MiB" and waiter["run"] == f"{NS}/gpu-shares"
    thread.join(60)
    out = box["out"]
    assert out["status"]["phase"] == "Succeeded"
    spans = ran(out["status"])
    assert {s[2] for s in spans} == {"0"} and {s[3] for s in spans} == {"32768"}
    assert max_overlap((s[0], s[1]) for s in spans) == 2 and spans[2][0] >= min(spans[0][1], spans[1][1])
    seen_waits = waits(changes)  # three nodes ask at once: under load one may stand further back for a moment
    assert seen_waits and seen_waits[-1][1] == 1  # the one left over waits first in line until a share frees


def test_higher_priority_waiters_go_first_across_processes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    holder = in_thread(executor(home, gpu_wf("gpu-holder", 1, 1.5, {"nvidia.com/gpu": 1}), []).run)
    wait_for(lambda: bool(report(home)["gpus"][0]["leases"]))
    low_changes: list[dict[str, Any]] = []
    low = in_thread(executor(home, gpu_wf("gpu-low", 1, 0.3, {"nvidia.com/gpu": 1}, priority=0), low_changes).run)
    wait_for(lambda: [w["run"] for w in report(home)["queue"]] == [f"{NS}/gpu-low"])
    high = other_driver(home, gpu_wf("gpu-high", 1, 0.3, {"nvidia.com/gpu": 1}, priority=5))
    wait_for(lambda: [w["run"] for w in report(home)["queue"]] == [f"{NS}/gpu-high", f"{NS}/gpu-low"])
    outs = {}
    for name, (thread, box) in {"holder": holder, "low": low}.items():
        thread.join(60)
        outs[name] = box["out"]["status"]
    outs["high"] = finished(high)
    [(_, holder_end, *_)] = ran(outs["holder"])
    [(high_start, high_end, *_)] = ran(outs["high"])
    [(low_start, *_)] = ran(outs["low"])
    assert holder_end <= high_start < high_end <= low_start
    seen = [pos for _, pos in waits(low_changes)]
    shown = [pos for i, pos in enumerate(seen) if i == 0 or seen[i - 1] != pos]
    assert shown[:2] == [1, 2]  # its node's message follows its place: the high-priority waiter went ahead of it
    assert not WAITING.fullmatch(str(next(n for n in outs["low"]["nodes"].values() if n["type"] == "Pod")
                                     .get("message") or ""))


def test_a_killed_drivers_lease_is_reclaimed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    proc = other_driver(home, gpu_wf("gpu-doomed", 1, 4.0, {"nvidia.com/gpu": 1}))
    wait_for(lambda: bool(report(home)["gpus"][0]["leases"]))
    assert [lease["run"] for lease in report(home)["gpus"][0]["leases"]] == [f"{NS}/gpu-doomed"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    # a node process being forked at that moment holds the owner's flock until its exec (moments)
    wait_for(lambda: report(home)["gpus"][0]["leases"] == [], 2.0)
    started = time.time()
    out = executor(home, gpu_wf("gpu-next", 1, 0.1, {"nvidia.com/gpu": 1}), []).run()
    assert out["status"]["phase"] == "Succeeded"
    [(start, _, devices, _)] = ran(out["status"])
    assert devices == "0" and start - started < 3.5  # it did not wait for the dead driver's node to end


@pytest.mark.parametrize("limits, field, words", [
    ({"nvidia.com/gpu": "0.5"}, "resources.limits.nvidia.com/gpu", "nvidia.com/gpumem: <MiB>"),
    ({"nvidia.com/gpu": 1, "nvidia.com/gpumem": "lots"}, "resources.limits.nvidia.com/gpumem", "whole number"),
    ({"nvidia.com/gpu": 0, "nvidia.com/gpumem": 1024}, "resources.limits.nvidia.com/gpu", "drop one of them"),
    ({"nvidia.com/gpu": 1, "nvidia.com/gpucores": 150}, "resources.limits.nvidia.com/gpucores", "from 1 to 100"),
])
def test_requests_the_engine_cannot_honour_are_refused_at_submit(limits: dict[str, Any], field: str,
                                                                 words: str) -> None:
    with pytest.raises(UserError) as caught:
        validate_workflow(gpu_wf("gpu-bad", 1, 0.1, limits), no_templates)
    assert caught.value.field == f"spec.templates[1].script.{field}"
    assert words in str(caught.value)


def test_placement_is_best_fit_and_whole_gpus_need_empty_ones() -> None:
    inventory = Inventory((GpuInfo(0, 81920), GpuInfo(1, 40960), GpuInfo(2, 0)), "test")
    assert place(inventory, [], GpuRequest(1, 30000)) == [Lease(1, 30000)]
    assert place(inventory, [Lease(1, 30000)], GpuRequest(1, 30000)) == [Lease(0, 30000)]
    assert place(inventory, [Lease(0, 30000)], GpuRequest(2, None)) == [Lease(1, None), Lease(2, None)]
    assert place(inventory, [Lease(0, 30000), Lease(1, None), Lease(2, None)], GpuRequest(1, 60000)) is None
    assert place(inventory, [Lease(0, 1)], GpuRequest(3, None)) is None


def test_the_server_shows_the_pool_and_refuses_half_a_gpu(tmp_path: Path) -> None:
    from tests.server.conftest import start_server

    home = tmp_path / "home"
    pin(home, 40960, 81920)
    server = start_server(home)
    try:
        api = f"{server.url}/api/v1/workflows/{NS}"
        refused = server.http.post(f"{api}/lint", json={"workflow": gpu_wf("srv-half", 1, 0.1,
                                                                           {"nvidia.com/gpu": "0.5"})}, timeout=30)
        assert refused.status_code == 400 and "nvidia.com/gpumem" in refused.json()["message"], refused.text
        wf = gpu_wf("srv-gpus", 3, 3.0, {"nvidia.com/gpu": 1})
        assert server.http.post(api, json={"workflow": wf}, timeout=30).status_code == 200
        route = f"{server.url}/api/v1/aipipe/gpus"
        seen: dict[str, Any] = {}

        def busy() -> bool:
            seen.update(server.http.get(route, timeout=30).json())
            return sum(len(g["leases"]) for g in seen["gpus"]) == 2 and len(seen["queue"]) == 1

        wait_for(busy)
        assert [(g["index"], g["memoryMiB"], g["wholeGranted"]) for g in seen["gpus"]] == [(0, 40960, True),
                                                                                          (1, 81920, True)]
        assert {lease["run"] for g in seen["gpus"] for lease in g["leases"]} == {f"{NS}/srv-gpus"}
        assert seen["queue"][0]["request"] == "1 GPU"
        node = seen["queue"][0]["node"]


        def shown() -> tuple[str, str]:  # the pool shows the queued node before the stored run may have it
            record = server.http.get(f"{api}/srv-gpus", timeout=30).json()["status"].get("nodes", {}).get(node) or {}
            return record.get("phase", ""), record.get("message") or ""

        wait_for(lambda: shown() == ("Pending", "waiting for GPU (queue position 1)"), 2.5)  # its next look
        assert requests_without_token(route) == 401
    finally:
        server.stop()


def requests_without_token(url: str) -> int:
    import requests

    return requests.get(url, timeout=30).status_code


@pytest.mark.parametrize("placement, devices", [("binpack", {"0"}), ("spread", {"0", "1"})])
def test_placement_packs_shares_or_spreads_them(placement: str, devices: set[str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    pin(home, 81920, 81920)
    monkeypatch.setenv("AIPIPE_GPU_PLACEMENT", placement)
    out = executor(home, gpu_wf(f"gpu-{placement}", 2, 1.0, {"nvidia.com/gpumem": 8192,
                                                               "nvidia.com/gpucores": 20}), []).run()
    assert out["status"]["phase"] == "Succeeded", out["status"]
    spans = ran(out["status"])
    assert max_overlap((s[0], s[1]) for s in spans) == 2 and {s[2] for s in spans} == devices


@pytest.mark.parametrize("env, field", [({"AIPIPE_GPU_AGING_S": "soon"}, "AIPIPE_GPU_AGING_S"),
                                        ({"AIPIPE_GPU_AGING_S": "-5"}, "AIPIPE_GPU_AGING_S"),
                                        ({"AIPIPE_GPU_PLACEMENT": "tight"}, "AIPIPE_GPU_PLACEMENT")])
def test_bad_pool_settings_name_the_variable(env: dict[str, str], field: str) -> None:
    with pytest.raises(UserError) as caught:
        pool_policy(env)
    assert caught.value.field == field
    assert pool_policy({}) == (300.0, "binpack")
