"""Smoke runs of the GPU-side scripts in their CPU ``--quick`` modes (the real runs need a GPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str, out: Path) -> dict:
    env = {**os.environ, "AIPIPE_BENCH_OUT": str(out), "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run([sys.executable, script, "--quick", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (result,) = out.glob("*.json")
    return json.loads(result.read_text())


def test_train_bench_quick_writes_the_summary(tmp_path: Path) -> None:
    doc = _run("bench/train_bench.py", "--window-s", "1", out=tmp_path)
    assert doc["benchmark"] == "train"
    assert {"speedup_images_per_s", "data_wait_fraction", "ratio_to_gpu_resident_limit"} <= set(doc["summary"])
    assert [row["loop"] for row in doc["rows"]] == ["naive", "accelerated", "gpu_resident"]
    assert all(row["images_per_s"] > 0 for row in doc["rows"])


def test_gpu_check_quick_passes_its_cpu_checks(tmp_path: Path) -> None:
    doc = _run("tests/gpu/check_train_gpu.py", out=tmp_path)
    status = {row["check"]: row["status"] for row in doc["rows"]}
    assert status == {"amp_dtype": "pass", "prefetcher_overlap": "skipped", "gpu_data_wait": "skipped",
                      "train_loop": "pass", "ddp_nccl": "pass"}
    assert doc["summary"]["all_passed"] is True
