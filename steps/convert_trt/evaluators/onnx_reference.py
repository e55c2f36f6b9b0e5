"""A real-FP16 evaluator for the debugger on CPU: ``onnx.reference.ReferenceEvaluator``.

The reference runtime computes each op with numpy in the tensor's own dtype, so an FP16 node
really rounds and overflows in FP16 (unlike ONNX Runtime's CPU build, which silently upcasts).
The FP32 reference outputs come from ONNX Runtime (exact FP32, fast).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

from mlkit.engine.backends.base import PrecisionPlan
from mlkit.engine.backends.onnx_fp16 import mark_outputs, mixed_precision
from mlkit.engine.inspect import SKIPPED_OPS


class OnnxReferenceEvaluator:
    """Evaluates mixed-precision variants of one ONNX model with every requested tensor marked as output."""

    name = "onnx-reference"
    supports_tactics = False

    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self.input_name = next(i.name for i in model.graph.input
                               if i.name not in {t.name for t in model.graph.initializer})
        nodes = [n for n in model.graph.node if n.op_type not in SKIPPED_OPS]
        self.layers: list[str] = [n.name for n in nodes]
        self._outputs = {n.name: [o for o in n.output if o] for n in nodes}
        producer = {o: n.name for n in nodes for o in n.output}
        self._parents = {n.name: list(dict.fromkeys(producer[i] for i in n.input if i in producer)) for n in nodes}
        self.final_outputs: list[str] = [o.name for o in model.graph.output]

    def outputs_of(self, layer: str) -> list[str]:
        return list(self._outputs[layer])

    def parents(self, layer: str) -> list[str]:
        return list(self._parents[layer])

    def tactics_of(self, layer: str) -> list[str]:
        return []

    def reference(self, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]:
        """FP32 values of ``tensors`` (ONNX Runtime, CPU)."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(mark_outputs(self.model, tensors).SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        values = session.run(list(tensors), {self.input_name: inputs.astype(np.float32)})
        return {name: np.asarray(v, dtype=np.float32) for name, v in zip(tensors, values, strict=True)}

    def run(self, plan: PrecisionPlan, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]:
        """Values of ``tensors`` under ``plan``, computed with real FP16 arithmetic."""
        from onnx.reference import ReferenceEvaluator

        candidate = mark_outputs(mixed_precision(self.model, plan.fp32_layers, plan.precision), tensors)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            values = ReferenceEvaluator(candidate).run(list(tensors), {self.input_name: inputs.astype(np.float32)})
        return {name: np.asarray(v).astype(np.float32) for name, v in zip(tensors, values, strict=True)}
