"""Smoke runs of bench/pool_bench.py, bench/colocate_bench.py and tests/gpu/check_gpu_watchdog.py in their
``--quick`` modes (CPU, pinned synthetic gpus.json, real embedded-engine runs).

The bench must pack its trainings through the pool, run the preemption scenario (the low run stopped once and resumed
from its checkpoint with no step run twice) and write its result JSON with the issue's summary keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(240)
def test_pool_bench_quick_writes_its_result(tmp_path: Path) -> None:
    env = {**os.environ, "AIPIPE_BENCH_OUT": str(tmp_path), "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    env.pop("AIPIPE_GPU_USAGE_FILE", None)
    proc = subprocess.run([sys.executable, "bench/pool_bench.py", "--quick"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = tmp_path.glob("pool_bench_quick_*.json")
    doc = json.loads(result.read_text())
    assert {"benchmark", "machine", "host", "date", "commit", "rows", "summary"} <= set(doc)
    summary = doc["summary"]
    assert summary["quick"] is True and summary["runs"] == 2
    assert summary["packed_speedup"] > 0 and summary["packed_train_speedup"] > 0 and summary["naive_speedup"] > 0
    assert summary["preempted_attempts"] == 2  # it was preempted once and ran again
    assert summary["preempted_lost_steps"] == 0  # checkpointed at SIGTERM: no step run twice
    assert summary["preempted_final_step"] == doc["plan"]["low_steps"] and summary["urgent_first_step"] == 0
    assert summary["preempted_weights_max_abs_diff"] == 0.0  # resumed == uninterrupted, deterministic algorithms
    assert summary["usage_source"] == "none" and summary["max_over_cap_mb"] is None  # no GPU readings on CPU
    assert [row["config"].split(" ")[0] for row in doc["rows"]] == ["sequential", "packed", "naive:", "preemption:"]


@pytest.mark.timeout(120)
def test_the_gpu_watchdog_check_passes_in_its_quick_mode() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("AIPIPE_GPU_USAGE_FILE", None)
    env.pop("OUT", None)
    proc = subprocess.run([sys.executable, "tests/gpu/check_gpu_watchdog.py", "--quick"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=100)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads(proc.stdout.split("summary:", 1)[1])
    assert summary["ok"] is True and summary["source"] == "AIPIPE_GPU_USAGE_FILE"
    assert summary["fine_over_cap_mb"] < 0 and summary["peaks_mb"]["watchdog[0].hog"] > 4096


@pytest.mark.timeout(300)
def test_colocate_bench_quick_serves_beside_a_training_through_the_pool(tmp_path: Path) -> None:
    env = {**os.environ, "AIPIPE_BENCH_OUT": str(tmp_path), "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    env.pop("AIPIPE_GPU_USAGE_FILE", None)
    proc = subprocess.run([sys.executable, "bench/colocate_bench.py", "--quick"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    (result,) = tmp_path.glob("colocate_bench_quick_*.json")
    doc = json.loads(result.read_text())
    configs = [row["config"] for row in doc["rows"]]
    assert configs == ["ours, time-sliced: closed loop c=4 (probe)", "ours, time-sliced: service alone",
                       "ours, time-sliced: service beside the training", "ours, time-sliced: service alone again",
                       "peer, time-sliced: service alone, by hand",
                       "peer, time-sliced: service beside the training, both by hand",
                       "peer, time-sliced: service alone again, by hand"]
    rows = dict(zip(configs, doc["rows"], strict=True))
    alone = [row for config, row in rows.items() if "alone" in config]
    assert all(row["errors"] == 0 for row in alone)  # alone, half the probe's rate: all served
    assert all(row["requests"] > 0 for config, row in rows.items() if "beside" in config)
    summary = doc["summary"]
    assert summary["sharing"] == ["time-sliced"]  # no MPS daemon on CPU
    assert summary["training_steps_per_s_time_sliced"] > 0 and summary["peer_training_steps_per_s_time_sliced"] > 0
    assert summary["offered_qps_time_sliced"] > 0
    for key, who in (("colocated_p99_ratio_time_sliced", "ours"), ("peer_p99_ratio_time_sliced", "peer")):
        beside = rows[f"{who}, time-sliced: service beside the training" + (", both by hand" if who == "peer" else "")]
        # a ratio, or no p99 to take one from: on a busy 2-core host every request beside the training can fail
        assert summary[key] > 0 or beside["errors"] == beside["requests"], (key, beside)
    assert summary["serving_over_cap_mb_time_sliced"] is None  # no readings on CPU
    assert summary["training_over_cap_mb_time_sliced"] is None
