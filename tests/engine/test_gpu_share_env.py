"""A node's GPU share on this machine: MPS where a daemon's control socket is there, time-slicing otherwise.

Real runs on a pinned inventory; the MPS daemon is stood for by its ``control`` socket (a FIFO on older drivers),
which is all the engine looks for (the node talks to the daemon itself, through the pipe folder its mount view
must show it).
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.gpu import GpuRequest, detect_inventory
from aipipe.engine.gpupool import pool_report
from aipipe.engine.gpushare import mps_folders, node_env, sharing_note
from tests.engine.concurrency import executor, pin

SOURCE = ("import json, os\nenv = {k: os.environ.get(k) for k in ('CUDA_VISIBLE_DEVICES', 'AIPIPE_GPU_MEMORY_MB', "
          "'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE', 'CUDA_MPS_PIPE_DIRECTORY', 'CUDA_MPS_PINNED_DEVICE_MEM_LIMIT')}\n"
          "pipe = env['CUDA_MPS_PIPE_DIRECTORY']\n"
          "env['sees_control'] = bool(pipe) and os.path.exists(os.path.join(pipe, 'control'))\n"
          "env['pipe_writable'] = bool(pipe) and os.access(pipe, os.W_OK)\n"
          "print(json.dumps(env))\n")


def share_wf(name: str) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "work", "templates": [
                {"name": "work", "script": {"image": "python:alpine3.23", "command": ["python"], "source": SOURCE,
                                            "resources": {"limits": {"nvidia.com/gpu": 1, "nvidia.com/gpumem": 4096,
                                                                     "nvidia.com/gpucores": 30}}}}]}}


def run(home: Path, name: str) -> tuple[dict[str, Any], list[str]]:
    """The node's environment and the messages it showed."""
    changes: list[dict[str, Any]] = []
    out = executor(home, share_wf(name), changes).run()
    assert out["status"]["phase"] == "Succeeded", out["status"]
    [node] = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    messages = [str(n.get("message") or "") for c in changes for n in c["status"].get("nodes", {}).values()
                if n["type"] == "Pod"]
    return json.loads(node["outputs"]["result"]), messages


def test_without_an_mps_daemon_the_share_is_time_sliced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    monkeypatch.setenv("CUDA_MPS_PIPE_DIRECTORY", str(tmp_path / "no-daemon"))
    env, messages = run(home, "sliced")
    assert env == {"CUDA_VISIBLE_DEVICES": "0", "AIPIPE_GPU_MEMORY_MB": "4096",
                   "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": None, "CUDA_MPS_PIPE_DIRECTORY": None,
                   "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT": None, "sees_control": False, "pipe_writable": False}
    assert any(m.startswith("GPU compute share 30%: time-slicing") for m in messages), messages
    assert pool_report(home, detect_inventory(home))["sharing"] == {"mode": "time-slicing", "pipe": None}


@pytest.mark.parametrize("control", ["socket", "fifo"])
def test_under_an_mps_daemon_the_node_is_its_client_within_its_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     control: str) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    pipe = tmp_path / "mps"  # under /tmp, which is the node's own: the engine shows it the host's folder
    pipe.mkdir()
    with socket.socket(socket.AF_UNIX) as listener:
        if control == "socket":  # what nvidia-cuda-mps-control makes today
            listener.bind(str(pipe / "control"))
        else:
            os.mkfifo(pipe / "control")
        monkeypatch.setenv("CUDA_MPS_PIPE_DIRECTORY", str(pipe))
        env, messages = run(home, f"mps-{control}")
        assert pool_report(home, detect_inventory(home))["sharing"] == {"mode": "mps", "pipe": str(pipe)}
    assert env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "30" and env["CUDA_MPS_PIPE_DIRECTORY"] == str(pipe)
    assert env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] == "0=4096M"
    assert env["sees_control"] and not env["pipe_writable"]
    assert ("GPU shared through MPS: 30% of the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), memory pinned at 4096 MiB "
            "(CUDA_MPS_PINNED_DEVICE_MEM_LIMIT)") in messages


def test_a_whole_gpu_node_joins_the_mps_daemon_too() -> None:
    """A node outside MPS would be time-sliced against the daemon's server, so even a whole GPU gets the pipe."""
    env = node_env("0,1", GpuRequest(count=2), "/run/mps")
    assert env == {"CUDA_VISIBLE_DEVICES": "0,1", "CUDA_MPS_PIPE_DIRECTORY": "/run/mps"}
    assert sharing_note(GpuRequest(count=2), "/run/mps") == "GPU shared through MPS"
    shared = node_env("0,1", GpuRequest(count=2, memory_mb=2048), "/run/mps")
    assert shared["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] == "0=2048M,1=2048M"
    assert mps_folders(shared) == ("/run/mps",) and mps_folders(node_env("0", GpuRequest(count=1), None)) == ()
