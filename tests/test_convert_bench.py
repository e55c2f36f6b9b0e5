"""Smoke test of bench/convert_bench.py --quick (CPU): it runs both variants and writes the summary keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_convert_bench_quick_writes_its_result(tmp_path: Path):
    env = {**os.environ, "AIPIPE_BENCH_OUT": str(tmp_path), "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "bench/convert_bench.py", "--quick"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = tmp_path.glob("convert_bench_quick_*.json")
    doc = json.loads(result.read_text())
    summary = doc["summary"]
    assert {"throughput_ratio_b64", "latency_ratio_b1", "memory_ratio", "median_abs_error",
            "debugger_evaluations"} <= set(summary)
    assert len(doc["rows"]) == 3 and summary["debugger_success"] is True  # fp32 (tf32 off), fp32 defaults, shipped
    assert summary["shipped_compiled"] is False and summary["engine_runtime"]["compile_mode"] is None  # CPU: uncompiled
    assert "throughput_ratio_vs_tf32" in summary and summary["shipped_ready_s"] > 0
    assert 0 < summary["median_abs_error"] <= 1e-3 and summary["top1_agreement"] >= 0.9
