"""Write the contract's model bundle: ONNX (dynamic batch), safetensors weights, config, labels, preprocessing.

The ONNX graph has input ``input`` (NCHW float32, dynamic batch axis) and output ``logits``, opset
17. It is exported with the TorchScript-based exporter (``dynamo=False``), which needs no
onnxscript and gives the same small, clean graph on torch 2.11 and 2.13.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from aipipe.contract import CLASSES_FILE, MODEL_CONFIG, MODEL_ONNX, MODEL_WEIGHTS, PREPROCESS_FILE
from mlkit.model import save_weights

ONNX_OPSET = 17
INPUT_NAME = "input"
OUTPUT_NAME = "logits"


def plain_module(model: nn.Module) -> nn.Module:
    """The user module inside DDP / torch.compile wrappers."""
    inner = getattr(model, "_orig_mod", model)
    return getattr(inner, "module", inner)


def export_onnx(model: nn.Module, path: Path, image_size: int, opset: int = ONNX_OPSET) -> Path:
    """Export an eval-mode fp32 CPU copy of ``model`` to ONNX with a dynamic batch axis."""
    export_model = copy.deepcopy(plain_module(model)).to("cpu", torch.float32).eval()
    export_model = export_model.to(memory_format=torch.contiguous_format)  # type: ignore[call-overload]
    sample = torch.zeros(2, 3, image_size, image_size)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the exporter's deprecation notices are not actionable here
        torch.onnx.export(
            export_model, (sample,), str(path),
            input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
            dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}},
            opset_version=opset, dynamo=False,
        )
    return path


def onnx_max_abs_diff(model: nn.Module, onnx_path: Path, batch: torch.Tensor) -> float:
    """Largest |torch - onnxruntime| over the logits of ``batch`` (CPU, fp32)."""
    import onnxruntime as ort

    reference = copy.deepcopy(plain_module(model)).to("cpu", torch.float32).eval()
    with torch.no_grad():
        expected = reference(batch.float()).numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (got,) = session.run([OUTPUT_NAME], {INPUT_NAME: batch.float().numpy()})
    return float(abs(got - expected).max())


def write_model_bundle(dest: Path, model: nn.Module, config: Mapping[str, Any], classes: Sequence[str],
                       preprocess: Mapping[str, Any]) -> Path:
    """Write the five files of the contract's model bundle into ``dest`` and return it."""
    dest.mkdir(parents=True, exist_ok=True)
    save_weights(model, dest / MODEL_WEIGHTS)
    (dest / MODEL_CONFIG).write_text(json.dumps(dict(config), indent=2))
    (dest / CLASSES_FILE).write_text(json.dumps(list(classes)))
    (dest / PREPROCESS_FILE).write_text(json.dumps(dict(preprocess), indent=2))
    export_onnx(model, dest / MODEL_ONNX, int(preprocess["input_size"]))
    return dest
