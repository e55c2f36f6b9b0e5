"""ONNX mixed precision: every node cast to FP16 except a block list, FP32 inputs/outputs kept.

The artifact is the mixed-precision ONNX that TensorRT 11 (strongly typed) builds directly, and
that ONNX Runtime serves. ORT's CPU build has no FP16 kernels for most ops and silently runs them
in FP32 — so this backend serves and is never used to *judge* FP16 accuracy (see
:mod:`.onnx_reference` for that).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from mlkit.engine.backends.base import BuiltEngine, PrecisionPlan

FP16_FILE = "model_fp16.onnx"
FP32_FILE = "model.onnx"


def mark_outputs(model: onnx.ModelProto, tensors: Sequence[str]) -> onnx.ModelProto:
    """A copy whose graph also outputs ``tensors``, each with its inferred element type.

    Mark *after* any precision conversion: marking first would make the converter route the
    consumers through FP32 casts of the marked tensors and change the numerics being judged.
    """
    marked = copy.deepcopy(model)
    present = {o.name for o in marked.graph.output}
    wanted = [t for t in dict.fromkeys(tensors) if t not in present]
    if not wanted:
        return marked
    types = {v.name: v.type.tensor_type.elem_type for v in marked.graph.value_info}
    if any(t not in types for t in wanted):
        inferred = onnx.shape_inference.infer_shapes(marked)
        types.update({v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info})
    for name in wanted:
        marked.graph.output.append(helper.make_tensor_value_info(name, types.get(name, onnx.TensorProto.FLOAT), None))
    return marked


def mixed_precision(model: onnx.ModelProto, fp32_nodes: Collection[str], precision: str = "fp16") -> onnx.ModelProto:
    """The model with every node in FP16 except ``fp32_nodes``; inputs and outputs stay float32."""
    if precision == "fp32":
        return copy.deepcopy(model)
    if precision != "fp16":
        raise ValueError(f"ONNX mixed precision supports fp16 and fp32, not {precision!r}")
    from onnxconverter_common import float16

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clamping notices for tiny initializers
        return float16.convert_float_to_float16(copy.deepcopy(model), keep_io_types=True,
                                                node_block_list=list(fp32_nodes))


class OnnxRuntimeBackend:
    """Builds the (mixed-precision) ONNX file and runs it with ONNX Runtime."""

    name = "onnxruntime"

    def build(self, model: onnx.ModelProto, plan: PrecisionPlan, out_dir: Path) -> BuiltEngine:
        converted = mixed_precision(model, plan.fp32_layers, plan.precision)
        path = Path(out_dir) / (FP16_FILE if plan.precision == "fp16" else FP32_FILE)
        path.parent.mkdir(parents=True, exist_ok=True)
        onnx.save(converted, str(path))
        return BuiltEngine(self.name, path, plan.precision, {"fp32_layers": list(plan.fp32_layers)})

    def run(self, engine: BuiltEngine, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        import onnxruntime as ort

        session = ort.InferenceSession(str(engine.path), providers=["CPUExecutionProvider"])
        return [np.asarray(o, dtype=np.float32) for o in session.run(None, dict(inputs))]
