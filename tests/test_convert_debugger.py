"""The FP16 precision debugger on CPU: real-FP16 reference evaluator, strategies, interventions, config reuse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mlkit.engine.backends.base import PrecisionPlan
from mlkit.engine.backends.onnx_fp16 import OnnxRuntimeBackend, mixed_precision
from mlkit.engine.inspect import load_onnx
from steps.convert_trt.comparator import Tolerance, compare
from steps.convert_trt.config import PrecisionConfig
from steps.convert_trt.debugger.loop import debug_precision
from steps.convert_trt.evaluators.onnx_reference import OnnxReferenceEvaluator
from steps.convert_trt.fixtures import overflow_onnx_model

TOL = Tolerance(atol=1e-2, rtol=1e-2, stat="mean")


@pytest.fixture(scope="module")
def overflow() -> tuple[OnnxReferenceEvaluator, np.ndarray]:
    inputs = np.random.default_rng(1).random((8, 3, 16, 16)).astype(np.float32)
    return OnnxReferenceEvaluator(overflow_onnx_model()), inputs


@pytest.fixture(scope="module")
def resnet_like(tmp_path_factory: pytest.TempPathFactory) -> tuple[OnnxReferenceEvaluator, np.ndarray]:
    from mlkit.fixtures import write_tiny_model_bundle

    bundle = write_tiny_model_bundle(tmp_path_factory.mktemp("model"), image_size=32)
    inputs = np.random.default_rng(2).random((8, 3, 32, 32)).astype(np.float32)
    return OnnxReferenceEvaluator(load_onnx(bundle / "model.onnx")), inputs


def test_cpu_evaluator_reproduces_the_fp16_overflow_that_onnxruntime_hides(overflow, tmp_path: Path):
    evaluator, inputs = overflow
    fp16 = evaluator.run(PrecisionPlan("fp16"), inputs, ["norm", "logits"])
    assert np.isinf(fp16["norm"]).any(), "the real-FP16 evaluator must overflow in the sum of squares"
    reference = evaluator.reference(inputs, ["logits"])["logits"]
    assert not compare("logits", fp16["logits"], reference, TOL).passed
    # the numerics trap: ORT's CPU build runs the same FP16 model effectively in FP32 and stays finite
    backend = OnnxRuntimeBackend()
    engine = backend.build(evaluator.model, PrecisionPlan("fp16"), tmp_path)
    assert engine.path.name == "model_fp16.onnx"
    (ort_logits,) = backend.run(engine, {"input": inputs})
    assert np.isfinite(ort_logits).all()
    assert compare("logits", ort_logits, reference, TOL).passed


@pytest.mark.parametrize("strategy", ["linear", "bisect"])
def test_debugger_pins_the_overflowing_layer(overflow, strategy):
    evaluator, inputs = overflow
    result = debug_precision(evaluator, inputs, TOL, strategy=strategy, max_evaluations=10)
    report = result.report
    assert result.success, report["reason"]
    assert list(result.plan.fp32_layers) in (["l2norm"], evaluator.parents("l2norm"))
    assert report["error_before"]["logits"]["passed"] is False
    assert report["error_after"]["logits"]["passed"] is True
    assert report["error_after"]["logits"]["abs_error"] <= TOL.atol
    assert report["fp16_share"] >= 0.9
    assert report["evaluations"] <= 10
    assert report["layers_total"] == len(evaluator.layers) == 13


def test_resnet_like_model_converts_with_zero_pins(resnet_like):
    evaluator, inputs = resnet_like
    result = debug_precision(evaluator, inputs, TOL)
    assert result.success
    assert result.plan.fp32_layers == ()
    assert result.report["fp16_share"] == 1.0
    assert result.report["evaluations"] == 1


def test_budget_exhaustion_gives_up_with_a_report(overflow):
    evaluator, inputs = overflow
    result = debug_precision(evaluator, inputs, TOL, strategy="bisect", max_evaluations=2)
    assert not result.success
    assert "budget" in result.report["reason"]
    assert result.report["evaluations"] == 2


def test_written_config_reproduces_the_plan(overflow, tmp_path: Path):
    evaluator, inputs = overflow
    found = debug_precision(evaluator, inputs, TOL)
    path = tmp_path / "precision_config.json"
    path.write_text(found.config.to_json())
    reused = PrecisionConfig.from_json(path.read_text(), str(path))
    assert reused == found.config
    assert set(reused.to_dict()) >= {"FP32_LAYERS_FOR_FP16", "TRT_EXCLUDE_TACTIC", "atol", "rtol", "check-error-stat"}
    again = mixed_precision(evaluator.model, reused.fp32_layers)
    assert again.SerializeToString() == mixed_precision(evaluator.model, found.plan.fp32_layers).SerializeToString()
    values = evaluator.run(PrecisionPlan("fp16", reused.fp32_layers), inputs, ["logits"])
    reference = evaluator.reference(inputs, ["logits"])
    assert compare("logits", values["logits"], reference["logits"], TOL).passed


def test_comparator_statistics():
    ref = np.array([1.0, 2.0, 3.0, 100.0])
    cand = ref + np.array([0.0, 0.0, 0.0, 10.0])
    assert compare("t", cand, ref, Tolerance(0.1, 0.01, "median")).passed
    assert not compare("t", cand, ref, Tolerance(0.1, 0.01, "max")).passed
    assert not compare("t", np.array([1.0, np.inf]), np.array([1.0, 2.0]), Tolerance(1e9, 1e9, "median")).passed


def test_pytorch_evaluator_catches_the_overflow_in_half_precision():
    import torch

    from steps.convert_trt.evaluators.torch_evaluator import TorchEvaluator
    from steps.convert_trt.fixtures import overflow_torch_model

    torch.set_num_threads(1)
    evaluator = TorchEvaluator(overflow_torch_model(), device="cpu", batch=8)
    inputs = np.random.default_rng(1).random((8, 3, 16, 16)).astype(np.float32)
    half = evaluator.run(PrecisionPlan("fp16"), inputs, ["l2norm"])["l2norm"]
    assert np.isinf(half).any(), "PyTorch half must overflow in the sum of squares"
    result = debug_precision(evaluator, inputs, TOL)
    assert result.success, result.report["reason"]
    assert list(result.plan.fp32_layers) in (["l2norm"], evaluator.parents("l2norm"))
    assert result.report["fp16_share"] >= 0.9 and result.report["evaluations"] <= 10
