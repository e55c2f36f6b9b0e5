"""TensorRT backend: runs only where `import tensorrt` works (never in our CI or on the GPU machine).

These are the one allowed skip of the convert tests: TensorRT cannot be installed here. The backend is
type-checked instead: `.venv/bin/mypy --config-file pyproject.toml mlkit/engine/backends/tensorrt.py`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from steps.convert_trt.convert import tensorrt_available

pytestmark = [pytest.mark.tensorrt,
              pytest.mark.skipif(not tensorrt_available(), reason="needs `import tensorrt` (not installable here)")]


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_tensorrt_engine_builds_runs_and_reuses_its_timing_cache(tmp_path: Path, precision: str):
    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.tensorrt import TIMING_CACHE_FILE, TensorRTBackend
    from steps.convert_trt.evaluators.onnx_reference import OnnxReferenceEvaluator
    from steps.convert_trt.fixtures import overflow_onnx_model

    model = overflow_onnx_model()
    backend = TensorRTBackend()
    engine = backend.build(model, PrecisionPlan(precision, ("l2norm",)), tmp_path)
    assert engine.path.name == "model.plan" and (tmp_path / TIMING_CACHE_FILE).stat().st_size > 0
    inputs = np.random.default_rng(0).random((4, 3, 16, 16)).astype(np.float32)
    (logits,) = backend.run(engine, {"input": inputs})
    reference = OnnxReferenceEvaluator(model).reference(inputs, ["logits"])["logits"]
    assert np.isfinite(logits).all()
    assert np.abs(logits - reference).max() < (1e-3 if precision == "fp32" else 5e-2)
    rebuilt = TensorRTBackend(timing_cache=tmp_path / TIMING_CACHE_FILE).build(
        model, PrecisionPlan(precision, ("l2norm",)), tmp_path / "again")
    assert rebuilt.path.is_file()


def test_tensorrt_runtime_loads_the_plan(tmp_path: Path):
    from mlkit.engine.runtime import load_engine
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    bundle = write_tiny_engine_bundle(tmp_path / "engine", backend="tensorrt", precision="fp16")
    runner = load_engine(bundle, device="cuda")
    assert runner.infer(np.zeros((2, 3, 32, 32), np.float32)).shape == (2, 3)
    runner.close()
