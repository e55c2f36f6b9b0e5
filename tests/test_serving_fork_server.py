"""GPU replicas fork from a server that imported torch once (without CUDA); a killed one forks again from it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from steps.deploy.server import RunningServer, ServerConfig, launch
from steps.deploy.server.preload import COMPILER_ENTRY, SERVER_ENTRY, TORCH_ENTRY, modules_for

pytestmark = pytest.mark.timeout(300)


def test_preload_follows_the_engine() -> None:
    assert modules_for({"backend": "onnxruntime"}) == [SERVER_ENTRY]
    assert modules_for({"backend": "pytorch", "runtime": {"compile_mode": None}}) == [SERVER_ENTRY, TORCH_ENTRY]
    assert modules_for({"backend": "pytorch", "runtime": {"compile_mode": "default"}}) == [
        SERVER_ENTRY, TORCH_ENTRY, COMPILER_ENTRY]


def _replica(srv: RunningServer) -> dict[str, Any]:
    return dict(srv.get_json("/v1/info")[1]["gpu_processes"][0])


def test_replica_forks_from_the_preloaded_server_and_is_replaced_after_a_kill(tmp_path: Path) -> None:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    bundle = write_tiny_engine_bundle(tmp_path / "engine", backend="pytorch", max_batch=4)
    srv = launch(ServerConfig(engine_dir=str(bundle), port=0, cpu_workers=1, gpu_procs=1, device="cpu"))
    try:
        info = srv.get_json("/v1/info")[1]
        assert info["fork_server"]["preload"] == [SERVER_ENTRY, TORCH_ENTRY]
        assert info["fork_server"]["start_s"] > 0 and "error" not in info["fork_server"]
        first = info["gpu_processes"][0]
        forked = first["info"]["fork_server"]
        assert forked["server_pid"] not in (srv.pid, first["pid"]), forked
        assert forked["modules"] == 4 and forked["failed"] == {}, forked
        assert forked["cuda_initialized_in_server"] is False
        assert set(first["info"]["phases"]) >= {"load_s", "first_call_s", "warmup_s"}

        os.kill(first["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = _replica(srv)
            if now["generation"] > first["generation"] and now["ready"]:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"replica not replaced: {now}")
        assert now["pid"] != first["pid"] and now["restarts"] == 1
        assert now["info"]["fork_server"] == forked  # forked again from the same server: no imports paid again
        assert srv.get_json("/readyz")[0] == 200
    finally:
        assert srv.stop() == 0
    with pytest.raises(ProcessLookupError):  # the fork server left with its supervisor
        for _ in range(50):
            os.kill(forked["server_pid"], 0)
            time.sleep(0.1)
