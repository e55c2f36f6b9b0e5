"""A node's compute share on this machine: MPS where a daemon's control pipe is there, time-slicing otherwise.

Real runs on a pinned inventory; the MPS daemon is stood for by its control FIFO, which is all the engine looks
for (the node talks to the daemon itself).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.engine.concurrency import executor, pin

SOURCE = ("import json, os\nprint(json.dumps({k: os.environ.get(k) for k in ('CUDA_VISIBLE_DEVICES', "
          "'AIPIPE_GPU_MEMORY_MB', 'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE', 'CUDA_MPS_PIPE_DIRECTORY')}))\n")


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
                   "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": None, "CUDA_MPS_PIPE_DIRECTORY": None}
    assert any(m.startswith("GPU compute share 30%: time-slicing") for m in messages), messages


def test_with_an_mps_control_pipe_the_node_gets_its_thread_percentage(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    pin(home, 81920)
    pipe = tmp_path / "mps"
    pipe.mkdir()
    os.mkfifo(pipe / "control")
    monkeypatch.setenv("CUDA_MPS_PIPE_DIRECTORY", str(pipe))
    env, messages = run(home, "mps")
    assert env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "30" and env["CUDA_MPS_PIPE_DIRECTORY"] == str(pipe)
    assert "GPU compute share 30%: MPS (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30)" in messages
