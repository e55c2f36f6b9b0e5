"""The classifier definitions, the model bundle round trip and the ONNX export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from aipipe.errors import UserError
from mlkit.export import onnx_max_abs_diff
from mlkit.fixtures import write_tiny_model_bundle
from mlkit.model import build_model, load_model_bundle, load_pretrained, save_weights

torch.set_num_threads(1)


def test_resnet50_has_the_standard_layout() -> None:
    model = build_model("resnet50", 1000)
    params = sum(p.numel() for p in model.parameters())
    assert params == 25_557_032


def test_resnet_tiny_runs_at_small_sizes() -> None:
    model = build_model("resnet_tiny", 4).eval()
    for size in (32, 48, 64):
        assert model(torch.rand(2, 3, size, size)).shape == (2, 4)


def test_unknown_arch_and_one_class_are_user_errors() -> None:
    with pytest.raises(UserError, match="unknown architecture"):
        build_model("vgg", 3)
    with pytest.raises(UserError, match="at least 2 classes"):
        build_model("resnet_tiny", 1)


def test_tiny_bundle_has_the_contract_files_and_round_trips(tmp_path: Path) -> None:
    bundle = write_tiny_model_bundle(tmp_path / "bundle", num_classes=3, image_size=32)
    names = sorted(p.name for p in bundle.iterdir())
    assert names == ["classes.json", "model.onnx", "model.safetensors", "model_config.json", "preprocess.json"]
    preprocess = json.loads((bundle / "preprocess.json").read_text())
    assert preprocess["input_size"] == 32 and preprocess["layout"] == "NCHW" and preprocess["input_name"] == "input"
    model, spec, classes = load_model_bundle(bundle)
    assert spec == preprocess and classes == ["class_0", "class_1", "class_2"]
    again, _, _ = load_model_bundle(bundle)
    x = torch.rand(4, 3, 32, 32)
    with torch.no_grad():
        assert torch.equal(model(x), again(x))
        assert model(x).std(dim=0).max() > 1e-3  # outputs depend on the input


def test_onnx_export_has_dynamic_batch_and_matches_torch(tmp_path: Path) -> None:
    bundle = write_tiny_model_bundle(tmp_path / "bundle", num_classes=5, image_size=40, seed=3)
    graph = onnx.load(str(bundle / "model.onnx"))
    onnx.checker.check_model(graph)
    assert max(op.version for op in graph.opset_import if op.domain in ("", "ai.onnx")) >= 17
    session = ort.InferenceSession(str(bundle / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input"]
    assert [o.name for o in session.get_outputs()] == ["logits"]
    assert isinstance(session.get_inputs()[0].shape[0], str)  # symbolic batch axis
    model, _, _ = load_model_bundle(bundle)
    for batch in (1, 7):
        x = torch.rand(batch, 3, 40, 40)
        assert onnx_max_abs_diff(model, bundle / "model.onnx", x) < 1e-4
    out = session.run(None, {"input": np.random.rand(3, 3, 40, 40).astype(np.float32)})[0]
    assert out.shape == (3, 5)


def test_bundle_missing_file_or_wrong_weights_is_a_user_error(tmp_path: Path) -> None:
    bundle = write_tiny_model_bundle(tmp_path / "bundle", num_classes=3)
    save_weights(build_model("resnet_tiny", 4), bundle / "model.safetensors")
    with pytest.raises(UserError, match="do not fit"):
        load_model_bundle(bundle)
    (bundle / "classes.json").unlink()
    with pytest.raises(UserError, match=r"missing classes\.json"):
        load_model_bundle(bundle)


def test_pretrained_loading_skips_a_different_head_and_refuses_pickled_code(tmp_path: Path) -> None:
    source = build_model("resnet_tiny", 10)
    torch.save({"model": source.state_dict()}, tmp_path / "weights.pt")
    target = load_pretrained(build_model("resnet_tiny", 3), tmp_path / "weights.pt")
    assert torch.equal(target.state_dict()["stem.0.weight"], source.state_dict()["stem.0.weight"])
    assert target.state_dict()["fc.weight"].shape == (3, 64)

    class Evil:
        def __reduce__(self):  # pragma: no cover - must never run
            return (print, ("pwned",))

    torch.save({"x": Evil()}, tmp_path / "evil.pt")
    with pytest.raises(UserError, match="tensor-only"):
        load_pretrained(build_model("resnet_tiny", 3), tmp_path / "evil.pt")
