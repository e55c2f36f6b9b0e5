"""Test fixtures other parts use: a complete engine bundle built from the train step's tiny model bundle."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper
from torch import nn

from aipipe.contract import MODEL_ONNX
from mlkit.engine.backends.base import Backend, PrecisionPlan
from mlkit.engine.backends.onnx_fp16 import OnnxRuntimeBackend
from mlkit.engine.backends.torch_backend import TorchBackend
from mlkit.engine.inspect import inspect_model, load_onnx

from .bundle import write_engine_bundle
from .config import PrecisionConfig


def write_tiny_engine_bundle(dest: Path, *, backend: str = "onnxruntime", precision: str = "fp32",
                             num_classes: int = 3, image_size: int = 32, max_batch: int = 64,
                             compile_mode: str | None = None) -> Path:
    """Write a contract engine bundle (engine.json, engine file, precision_config.json, classes, preprocess).

    Built with this step's own backends from ``mlkit.fixtures.write_tiny_model_bundle`` (a
    randomly initialised resnet_tiny); no FP32 pins. ``backend``: onnxruntime | pytorch | tensorrt
    (the last only where ``import tensorrt`` works). ``compile_mode``: torch.compile mode of a pytorch engine.
    """
    from mlkit.fixtures import write_tiny_model_bundle

    with tempfile.TemporaryDirectory(prefix="aipipe-tiny-model-") as tmp:
        model_bundle = write_tiny_model_bundle(Path(tmp), num_classes=num_classes, image_size=image_size)
        model = load_onnx(model_bundle / MODEL_ONNX)
        info = inspect_model(model, expected_input="input", batch=(1, min(32, max_batch), max_batch))
        builder: Backend
        if backend == "onnxruntime":
            builder = OnnxRuntimeBackend()
        elif backend == "pytorch":
            # a compiled engine is compiled here, on the device it will run on
            device = "cuda" if compile_mode and torch.cuda.is_available() else "cpu"
            builder = TorchBackend(model_bundle, device=device, compile_mode=compile_mode,
                                   input_shape=info.sample_shape, max_batch=info.max_batch)
        elif backend == "tensorrt":
            from mlkit.engine.backends.tensorrt import TensorRTBackend

            builder = TensorRTBackend(profiles=info.profiles)
        else:
            raise ValueError(f"fixture backend must be onnxruntime, pytorch or tensorrt, got {backend!r}")
        engine = builder.build(model, PrecisionPlan(precision), Path(tmp) / "engine")
        return write_engine_bundle(Path(dest), engine=engine, info=info, config=PrecisionConfig(),
                                   model_bundle=model_bundle, model_version="1")


def overflow_onnx_model(image_size: int = 16, num_classes: int = 3, seed: int = 0) -> onnx.ModelProto:
    """A small CNN with one layer that overflows FP16: ``ReduceL2`` (a sum of squares) of large activations.

    Activations reach a few hundred, so their channel-wise sum of squares exceeds FP16's 65504 while the
    layer's output (its square root) and every other tensor stay well inside the FP16 range.
    The overflowing node is named ``l2norm``. 13 layers, input ``input`` NCHW, output ``logits``.
    """
    rng = np.random.default_rng(seed)

    def weight(name: str, *shape: int, scale: float) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    c = 16
    inits = [weight("w1", c, 3, 3, 3, scale=18.0), weight("w2", c, c, 3, 3, scale=0.3),
             weight("w3", c, c, 3, 3, scale=0.3), weight("w4", c, c, 3, 3, scale=0.3),
             weight("fc_w", num_classes, c, scale=1.0), weight("fc_b", num_classes, scale=0.1),
             numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")]

    def conv(x: str, w: str, y: str, name: str) -> onnx.NodeProto:
        return helper.make_node("Conv", [x, w], [y], name, kernel_shape=[3, 3], pads=[1, 1, 1, 1])

    nodes = [
        conv("input", "w1", "c1", "conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
        conv("r1", "w2", "c2", "conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], "relu2"),
        helper.make_node("ReduceL2", ["r2", "axes"], ["norm"], "l2norm", keepdims=1),
        helper.make_node("Div", ["r2", "norm"], ["unit"], "normalize"),
        conv("unit", "w3", "c3", "conv3"),
        helper.make_node("Relu", ["c3"], ["r3"], "relu3"),
        conv("r3", "w4", "c4", "conv4"),
        helper.make_node("Relu", ["c4"], ["r4"], "relu4"),
        helper.make_node("GlobalAveragePool", ["r4"], ["pooled"], "pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], "flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], "fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "overflow_cnn",
        [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["batch", 3, image_size, image_size])],
        [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, ["batch", num_classes])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def overflow_torch_model(num_classes: int = 3, seed: int = 0) -> nn.Module:
    """The PyTorch twin of :func:`overflow_onnx_model`: module ``l2norm``'s sum of squares overflows FP16."""

    class L2Norm(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.pow(2).sum(dim=1, keepdim=True).sqrt()

    class OverflowNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            c = 16
            self.conv1, self.relu1 = nn.Conv2d(3, c, 3, padding=1, bias=False), nn.ReLU()
            self.conv2, self.relu2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.ReLU()
            self.l2norm = L2Norm()
            self.conv3, self.relu3 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.ReLU()
            self.conv4, self.relu4 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.ReLU()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(c, num_classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            r2 = self.relu2(self.conv2(self.relu1(self.conv1(x))))
            y = self.relu4(self.conv4(self.relu3(self.conv3(r2 / self.l2norm(r2)))))
            return self.fc(torch.flatten(self.pool(y), 1))

    generator = torch.Generator().manual_seed(seed)
    model = OverflowNet()
    with torch.no_grad():
        for conv, scale in ((model.conv1, 18.0), (model.conv2, 0.3), (model.conv3, 0.3), (model.conv4, 0.3)):
            conv.weight.copy_(torch.randn(conv.weight.shape, generator=generator) * scale)
    return model.eval()
