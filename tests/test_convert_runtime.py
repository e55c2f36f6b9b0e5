"""The serving runtime: load_engine over engine bundles of each CPU backend, against the source model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from aipipe.errors import UserError
from mlkit.engine.buckets import batch_buckets
from mlkit.engine.runtime import load_engine
from steps.convert_trt.fixtures import write_tiny_engine_bundle

torch.set_num_threads(1)


@pytest.mark.parametrize(("backend", "precision", "atol"),
                         [("onnxruntime", "fp32", 1e-5), ("onnxruntime", "fp16", 2e-2),
                          ("pytorch", "fp32", 1e-5), ("pytorch", "fp16", 2e-2)])
def test_engine_bundle_runs_and_matches_the_source_model(tmp_path: Path, backend: str, precision: str, atol: float):
    from mlkit.model import load_model_bundle

    bundle = write_tiny_engine_bundle(tmp_path / "engine", backend=backend, precision=precision, max_batch=4)
    manifest = json.loads((bundle / "engine.json").read_text())
    assert {"precision_config.json", "classes.json", "preprocess.json", manifest["file"]} <= {
        p.name for p in bundle.iterdir()}
    assert (manifest["backend"], manifest["precision"]) == (backend, precision)
    runner = load_engine(bundle, device="cpu")
    assert (runner.input_name, runner.input_shape, runner.max_batch) == ("input", (3, 32, 32), 4)
    batch = np.random.default_rng(0).random((6, 3, 32, 32)).astype(np.float32)  # over max_batch: chunked
    logits = runner.infer(batch)
    runner.close()
    assert logits.shape == (6, 3) and logits.dtype == np.float32
    # the source model: the same weights the fixture's model bundle holds
    source_dir = tmp_path / "source"
    from mlkit.fixtures import write_tiny_model_bundle

    model, _, _ = load_model_bundle(write_tiny_model_bundle(source_dir, image_size=32))
    with torch.no_grad():
        expected = model(torch.from_numpy(batch)).numpy()
    assert np.abs(logits - expected).max() <= atol


def test_bad_batches_and_bundles_are_refused(tmp_path: Path):
    bundle = write_tiny_engine_bundle(tmp_path / "engine")
    runner = load_engine(bundle, device="cpu")
    with pytest.raises(ValueError, match=r"expected a batch of shape \(N, 3, 32, 32\)"):
        runner.infer(np.zeros((1, 3, 16, 16), np.float32))
    with pytest.raises(UserError, match=r"engine\.json missing"):
        load_engine(tmp_path, device="cpu")
    with pytest.raises(UserError, match="unknown device"):
        load_engine(bundle, device="tpu")


def test_pytorch_backend_pins_run_in_fp32(tmp_path: Path):
    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.torch_backend import TorchBackend
    from mlkit.engine.inspect import load_onnx
    from mlkit.fixtures import write_tiny_model_bundle

    model_bundle = write_tiny_model_bundle(tmp_path / "model", image_size=32)
    onnx_model = load_onnx(model_bundle / "model.onnx")
    backend = TorchBackend(model_bundle)
    # an ONNX node name and a module path both resolve to modules of the torch model
    plan = PrecisionPlan("fp16", ("/fc/Gemm", "stages.0.0.body"))
    engine = backend.build(onnx_model, plan, tmp_path / "engine")
    assert engine.manifest["fp32_modules"] == ["fc", "stages.0.0.body"]
    batch = np.random.default_rng(0).random((2, 3, 32, 32)).astype(np.float32)
    (logits,) = backend.run(engine, {"input": batch})
    assert logits.dtype == np.float32 and logits.shape == (2, 3) and np.isfinite(logits).all()


def test_precision_plan_keeps_pinned_modules_fp32():
    from mlkit.engine.backends.torch_backend import apply_precision_plan
    from mlkit.model import build_model

    model = apply_precision_plan(build_model("resnet_tiny", 3).eval(), "fp16", ["fc"])
    seen = {}
    model.fc.register_forward_hook(lambda _m, args, out: seen.update(input=args[0].dtype, output=out.dtype))
    assert model.fc.weight.dtype == torch.float32 and model.stem[0].weight.dtype == torch.float16
    with torch.no_grad():
        logits = model(torch.rand(1, 3, 32, 32, dtype=torch.float16))
    assert seen["input"] == torch.float32 and logits.dtype == torch.float16
    with pytest.raises(UserError, match="not a module"):
        apply_precision_plan(build_model("resnet_tiny", 3), "fp16", ["nope"])


@pytest.mark.parametrize("max_batch", [1, 3, 8, 9, 32, 64, 100, 128, 256])
def test_batch_buckets_bound_the_padding(max_batch: int):
    """Every batch size runs in a bucket at most 3 rows larger up to 32 and at most a quarter larger above."""
    buckets = batch_buckets(max_batch)
    assert buckets == sorted(set(buckets)) and buckets[0] == 1 and buckets[-1] == max_batch
    for rows in range(1, max_batch + 1):
        padded = next(size for size in buckets if size >= rows) - rows
        assert padded <= 3 if rows <= 32 else 4 * padded <= rows, (rows, padded)
