"""A rolling restart (SIGHUP) under load: replicas restart one at a time, the service stays ready, nothing fails."""

from __future__ import annotations

from pathlib import Path

from bench.replica_restart import measure_rolling_restart
from steps.convert_trt.fixtures import write_tiny_engine_bundle


def test_rolling_restart_under_load_fails_no_request(tmp_path: Path):
    bundle = write_tiny_engine_bundle(tmp_path / "engine", backend="onnxruntime", max_batch=8)
    result = measure_rolling_restart(bundle, replicas=2, workers=1, concurrency=4, device="cpu", timeout_s=60)
    assert result["restarted"], result
    assert result["requests_during_restart"] > 0 and result["failed_during_restart"] == 0, result
    assert result["readyz_not_ready"] == 0 and result["readyz_polls"] >= 1, result
    assert all(isinstance(s, float) and s > 0 for s in result["replica_ready_s"]), result
