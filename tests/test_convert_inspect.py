"""Model inspection: names, dtypes, shapes and profiles from the ONNX itself; clear errors on bad models."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import helper

from aipipe.errors import UserError
from mlkit.engine.inspect import Profile, inspect_model, load_onnx, module_scope, parse_profile, resolve_pins
from steps.convert_trt.fixtures import overflow_onnx_model


def test_inspection_finds_io_and_default_batch_profile():
    info = inspect_model(overflow_onnx_model(image_size=16), expected_input="input")
    assert (info.input.name, info.input.dtype, info.input.shape) == ("input", "float32", ("batch", 3, 16, 16))
    assert info.output.name == "logits"
    assert info.profiles["input"] == Profile((1, 3, 16, 16), (32, 3, 16, 16), (64, 3, 16, 16))
    assert info.max_batch == 64 and info.sample_shape == (3, 16, 16)
    assert info.layers[0] == "conv1" and len(info.layers) == 13


def test_batch_profile_from_flags_and_overrides():
    info = inspect_model(overflow_onnx_model(), batch=(2, 8, 16))
    assert info.profiles["input"].max == (16, 3, 16, 16)
    name, profile = parse_profile("input:1x3x16x16/4x3x16x16/8x3x16x16")
    assert inspect_model(overflow_onnx_model(), overrides={name: profile}).max_batch == 8
    with pytest.raises(UserError, match="batch profile"):
        inspect_model(overflow_onnx_model(), batch=(8, 4, 16))


def test_malformed_onnx_is_a_user_error(tmp_path: Path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\x08\x07garbage that is not a protobuf\xff\xff")
    with pytest.raises(UserError, match="not a valid ONNX model"):
        load_onnx(path)


def test_unsupported_op_is_a_user_error(tmp_path: Path):
    model = overflow_onnx_model()
    model.graph.node[1].op_type = "FancyCustomRelu"
    onnx.save(model, str(tmp_path / "model.onnx"))
    with pytest.raises(UserError, match="unsupported op FancyCustomRelu in node 'relu1'"):
        load_onnx(tmp_path / "model.onnx")


def test_mismatched_input_name_is_a_user_error():
    with pytest.raises(UserError, match="do not match the preprocessing spec's input_name 'image'") as err:
        inspect_model(overflow_onnx_model(), expected_input="image")
    assert err.value.field == "input_name"


def test_module_scopes_and_pin_resolution():
    legacy = helper.make_node("Conv", ["x", "w"], ["y"], "/stages/stages.0/stages.0.0/body/body.0/Conv")
    assert module_scope(legacy) == "stages.0.0.body.0"
    model = overflow_onnx_model()
    assert resolve_pins(model, ["l2norm"]) == ["l2norm"]
    with pytest.raises(UserError, match="matches no node"):
        resolve_pins(model, ["nope"])


def test_unnamed_nodes_get_stable_names(tmp_path: Path):
    model = overflow_onnx_model()
    for node in model.graph.node[:2]:
        node.name = ""
    onnx.save(model, str(tmp_path / "model.onnx"))
    names = [n.name for n in load_onnx(tmp_path / "model.onnx").graph.node]
    assert names[:3] == ["Conv_0", "Relu_1", "conv2"] and len(set(names)) == len(names)
