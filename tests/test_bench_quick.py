"""Smoke runs of bench/engine_bench.py and bench/serve_bench.py in their ``--quick`` modes (CPU).

Each must run to completion and write a result JSON with the shared keys and the issue's summary keys.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
RESULT_KEYS = {"benchmark", "machine", "host", "date", "commit", "rows", "summary"}


def run_quick(script: str, benchmark: str, out: Path, timeout_s: float) -> dict[str, Any]:
    """Run ``script --quick`` with results going to ``out``; returns the one JSON document it wrote."""
    env = {**os.environ, "AIPIPE_BENCH_OUT": str(out), "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, script, "--quick"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = out.glob(f"{benchmark}_*.json")
    doc = json.loads(result.read_text())
    assert set(doc) >= RESULT_KEYS and doc["benchmark"] == benchmark and doc["rows"]  # (+ how the run was set up)
    return doc


@pytest.mark.timeout(240)
def test_engine_bench_quick_writes_its_result(tmp_path: Path) -> None:
    doc = run_quick("bench/engine_bench.py", "engine_bench_quick", tmp_path, timeout_s=180)
    summary = doc["summary"]
    assert summary["quick"] is True
    assert summary["overhead_ms_per_node"] > 0 and summary["fanout_200_seconds"] > 0
    assert [row["case"] for row in doc["rows"]] == ["sequential steps x10 (true)", "withItems x200, parallelism 8"]
    assert summary["fanout_200_seconds"] == round(doc["rows"][1]["engine_s"], 3)


@pytest.mark.timeout(420)
def test_serve_bench_quick_writes_its_result(tmp_path: Path) -> None:
    doc = run_quick("bench/serve_bench.py", "serve_bench_quick", tmp_path, timeout_s=360)
    summary = doc["summary"]
    assert doc["errors"] == [] and doc["plan"]["cpu_workers"] >= 1
    assert doc["host"]["cpu_model"] and doc["host"]["cpu_cores"] >= 1 and doc["host"]["cpu_threads_per_core"] >= 1
    packing_key = f"packing_ratio_{summary['packing_services']}"  # packing_ratio_4 in the full run, 2 in --quick
    for key in ("qps_fp16_c8", "p99_ms_fp16_c8", "qps_ratio_vs_naive_copies", "qps_ratio_vs_naive",
                "fp16_over_fp32_qps", "front_ceiling_qps", "cpu_ms_per_request", "p50_ms_fp16_c1", packing_key):
        assert math.isfinite(summary[key]) and summary[key] > 0, (key, summary[key])
    configs = {row["config"] for row in doc["rows"]}
    assert {"a-naive", "f-front-ceiling", "ours-fp32-worker", "ours-fp32-replica", "ours-fp16-worker",
            "ours-fp16-replica", "d-one-service"} <= configs
    assert any(c.startswith("a-peer-x") for c in configs)
    assert any(row.get("open_loop") and row["offered_qps"] > 0 for row in doc["rows"])
    closed = [row for row in doc["rows"] if row["config"].startswith("ours-") and not row.get("open_loop")
              and row["concurrency"] > 1]
    assert closed and all(row["mean_batch"] >= 1 and row["replica_cpu_ms_per_request"] > 0 for row in closed)
    packed = [row for row in doc["rows"] if row["config"].startswith("d-")]
    assert packed and all(row["cpu_ms_per_request"] > 0 and row["cores_busy"] > 0 for row in packed)
    # the load generator's own CPU is on every closed-loop row: whether it, not the server, was the limit
    assert all(0 < row["client_cores_busy"] <= row["client_procs"] + 0.2 for row in closed + packed)
    assert all("gpu_busy_pct" in row for row in packed)  # NaN without NVML (this CPU run)
    assert all(row["sm_percent"] == 100 for row in packed)  # memory caps only unless --packing-sm-percent


def test_serve_bench_refuses_an_sm_share_without_mps() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for extra in ([], ["--mps", "--packing-sm-percent", "0"]):
        proc = subprocess.run([sys.executable, "bench/serve_bench.py", "--quick", "--packing-sm-percent", "25", *extra],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "--packing-sm-percent needs --mps" in proc.stderr, proc.stderr[-2000:]


def test_sm_share_sets_the_mps_percentage_for_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.serve_bench import MPS_PERCENT_ENV, sm_share

    monkeypatch.setenv(MPS_PERCENT_ENV, "60")
    with sm_share(25):
        assert os.environ[MPS_PERCENT_ENV] == "25"
    assert os.environ[MPS_PERCENT_ENV] == "60"
    monkeypatch.delenv(MPS_PERCENT_ENV)
    with sm_share(None):
        assert MPS_PERCENT_ENV not in os.environ
    assert MPS_PERCENT_ENV not in os.environ
