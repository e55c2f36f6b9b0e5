"""stepkit keeps PyTorch within the GPU memory the embedded engine granted (``AIPIPE_GPU_MEMORY_MB``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aipipe.errors import UserError
from aipipe.stepkit import apply_gpu_memory_cap, memory_fraction

REPO = Path(__file__).resolve().parents[1]
GIB = 2**30


def test_the_fraction_is_the_cap_over_the_gpus_memory() -> None:
    assert memory_fraction(20480, 80 * GIB) == 0.25
    assert memory_fraction(1024, 141 * GIB) == pytest.approx(1 / 141)
    assert memory_fraction(200_000, 80 * GIB) == 1.0  # never more than the GPU
    with pytest.raises(ValueError):
        memory_fraction(0, 80 * GIB)


def test_no_cap_or_no_cuda_sets_nothing() -> None:
    assert apply_gpu_memory_cap({}) == []
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA machine: tests/gpu/check_gpu_share.py checks the cap there")
    assert apply_gpu_memory_cap({"AIPIPE_GPU_MEMORY_MB": "1024"}) == []


def test_a_bad_cap_is_one_clear_error() -> None:
    with pytest.raises(UserError, match="AIPIPE_GPU_MEMORY_MB"):
        apply_gpu_memory_cap({"AIPIPE_GPU_MEMORY_MB": "lots"})
    step = subprocess.run([sys.executable, "-c", "from aipipe.stepkit import run_step; run_step('demo', lambda: 0)"],
                          env={**os.environ, "AIPIPE_GPU_MEMORY_MB": "lots", "PYTHONPATH": str(REPO)}, cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert step.returncode == 2 and "AIPIPE_GPU_MEMORY_MB: must be a positive number" in step.stderr
    assert "Traceback" not in step.stderr
