"""Model inspection: read an ONNX model's inputs, outputs, dtypes, shapes and layers; derive profiles.

The user provides no shapes: everything comes from the graph. Dynamic axes get optimization
profiles (min/opt/max): the batch axis from flags or the defaults 1/32/64, any other dynamic axis
from an explicit per-input override.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import onnx
from onnx import helper

from aipipe.errors import UserError

DEFAULT_BATCH_PROFILE = (1, 32, 64)
SKIPPED_OPS = frozenset({"Constant"})  # not counted as layers


@dataclass(frozen=True)
class TensorInfo:
    """A graph input or output: name, numpy dtype name, shape (an int, or the axis name when dynamic)."""

    name: str
    dtype: str
    shape: tuple[int | str, ...]

    @property
    def dynamic_axes(self) -> list[int]:
        return [i for i, d in enumerate(self.shape) if isinstance(d, str)]


@dataclass(frozen=True)
class Profile:
    """An optimization profile of one input: min/opt/max shapes."""

    min: tuple[int, ...]
    opt: tuple[int, ...]
    max: tuple[int, ...]


@dataclass(frozen=True)
class ModelInfo:
    """What inspection found: inputs, outputs, layers (node names, topological order), opset, profiles."""

    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    layers: tuple[str, ...]
    opset: int
    profiles: Mapping[str, Profile]

    @property
    def input(self) -> TensorInfo:
        return self.inputs[0]

    @property
    def output(self) -> TensorInfo:
        return self.outputs[0]

    @property
    def max_batch(self) -> int:
        return self.profiles[self.input.name].max[0]

    @property
    def sample_shape(self) -> tuple[int, ...]:
        """The input shape without the batch axis, at the profile's opt shape."""
        return self.profiles[self.input.name].opt[1:]


def load_onnx(path: Path) -> onnx.ModelProto:
    """Load and check an ONNX file; malformed files and unsupported ops are user errors."""
    try:
        model = onnx.load(str(path))
    except FileNotFoundError as exc:
        raise UserError("file not found", field=str(path)) from exc
    except Exception as exc:  # protobuf raises DecodeError and others for a malformed file
        raise UserError(f"not a valid ONNX model: {type(exc).__name__}: {exc}", field=str(path)) from exc
    check_model(model, str(path))
    return ensure_node_names(model)


def check_model(model: onnx.ModelProto, source: str = "onnx") -> None:
    """Reject models that are structurally invalid or use ops outside the standard ONNX domain."""
    if not model.graph.node:
        raise UserError("the ONNX graph has no nodes", field=source)
    opset = default_opset(model)
    for node in model.graph.node:
        domain = node.domain or ""
        if domain not in ("", "ai.onnx") or not onnx.defs.has(node.op_type, domain):
            where = f"{domain}::" if domain else ""
            raise UserError(f"unsupported op {where}{node.op_type} in node {node.name!r}: only standard ONNX "
                            f"ops (opset {opset}) can be converted", field=source)
    try:
        onnx.checker.check_model(model, full_check=False)
    except onnx.checker.ValidationError as exc:
        first = str(exc).strip().splitlines()[0]
        raise UserError(f"invalid ONNX model: {first}", field=source) from exc


def default_opset(model: onnx.ModelProto) -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    raise UserError("the model imports no standard ONNX opset", field="onnx")


def _tensor_info(value: onnx.ValueInfoProto) -> TensorInfo:
    tensor = value.type.tensor_type
    dims: list[int | str] = []
    for i, dim in enumerate(tensor.shape.dim):
        if dim.HasField("dim_value") and dim.dim_value > 0:
            dims.append(int(dim.dim_value))
        else:
            dims.append(dim.dim_param or f"{value.name}_dim{i}")
    dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type).name if tensor.elem_type else "undefined"
    return TensorInfo(value.name, dtype, tuple(dims))


def layer_names(model: onnx.ModelProto) -> tuple[str, ...]:
    """Node names in topological order (the graph's order, which ONNX requires to be topological)."""
    return tuple(n.name for n in model.graph.node if n.op_type not in SKIPPED_OPS)


def ensure_node_names(model: onnx.ModelProto) -> onnx.ModelProto:
    """Give unnamed nodes a stable name (``<op>_<index>``) so layers can be pinned by name."""
    seen: set[str] = set()
    for i, node in enumerate(model.graph.node):
        if not node.name or node.name in seen:
            node.name = f"{node.op_type}_{i}"
        seen.add(node.name)
    return model


def derive_profiles(inputs: Sequence[TensorInfo], batch: Sequence[int] = DEFAULT_BATCH_PROFILE,
                    overrides: Mapping[str, Profile] | None = None) -> dict[str, Profile]:
    """Profiles for every input: axis 0 when dynamic takes ``batch``; other dynamic axes need an override."""
    lo, opt, hi = (int(v) for v in batch)
    if not 1 <= lo <= opt <= hi:
        raise UserError(f"batch profile must satisfy 1 <= min <= opt <= max, got {lo}/{opt}/{hi}",
                        field="batch-profile")
    overrides = dict(overrides or {})
    profiles: dict[str, Profile] = {}
    for info in inputs:
        if info.name in overrides:
            profiles[info.name] = overrides[info.name]
            continue
        others = [a for a in info.dynamic_axes if a != 0]
        if others:
            raise UserError(f"input {info.name!r} has dynamic axes {others} besides the batch; give its "
                            "min/opt/max shapes with --profile", field="profile")
        shapes = [tuple(int(v) if isinstance(d, str) else d for d in info.shape) for v in (lo, opt, hi)]
        profiles[info.name] = Profile(*shapes)  # a static batch gives min = opt = max
    return profiles


def parse_profile(text: str) -> tuple[str, Profile]:
    """Parse ``NAME:MIN/OPT/MAX`` with shapes like ``1x3x224x224``."""
    name, sep, shapes = text.partition(":")
    parts = shapes.split("/")
    if not sep or not name or len(parts) != 3:
        raise UserError(f"expected NAME:MINxSHAPE/OPTxSHAPE/MAXxSHAPE, got {text!r}", field="profile")
    try:
        dims = [tuple(int(v) for v in p.split("x")) for p in parts]
    except ValueError as exc:
        raise UserError(f"shape dimensions must be integers: {text!r}", field="profile") from exc
    return name, Profile(*dims)


def inspect_model(model: onnx.ModelProto, *, expected_input: str | None = None,
                  batch: Sequence[int] = DEFAULT_BATCH_PROFILE,
                  overrides: Mapping[str, Profile] | None = None) -> ModelInfo:
    """Inspect a checked model; ``expected_input`` (from the preprocessing spec) must be its input name."""
    initializers = {i.name for i in model.graph.initializer}
    inputs = tuple(_tensor_info(v) for v in model.graph.input if v.name not in initializers)
    outputs = tuple(_tensor_info(v) for v in model.graph.output)
    if len(inputs) != 1:
        raise UserError(f"a classifier engine takes exactly one input, the model has {[i.name for i in inputs]}",
                        field="onnx")
    if expected_input is not None and inputs[0].name != expected_input:
        raise UserError(f"model input names {[i.name for i in inputs]} do not match the preprocessing spec's "
                        f"input_name {expected_input!r}", field="input_name")
    for info in (*inputs, *outputs):
        if info.dtype != "float32":
            raise UserError(f"tensor {info.name!r} is {info.dtype}; the engine expects float32 inputs and outputs",
                            field="onnx")
    if len(inputs[0].shape) != 4:
        raise UserError(f"input {inputs[0].name!r} has shape {list(inputs[0].shape)}; expected NCHW (4 axes)",
                        field="onnx")
    return ModelInfo(inputs, outputs, layer_names(model), default_opset(model),
                     derive_profiles(inputs, batch, overrides))


def module_scope(node: onnx.NodeProto) -> str:
    """The dotted path of the torch module a node was exported from (``""`` = the top module).

    Reads the dynamo exporter's ``pkg.torch.onnx.name_scopes`` metadata, or the TorchScript
    exporter's node names (``/stages/stages.0/stages.0.0/body/body.0/Conv``).
    """
    for prop in node.metadata_props:
        if prop.key == "pkg.torch.onnx.name_scopes":
            scopes = [s.strip(" '\"") for s in prop.value.strip("[]").split(",")][:-1]  # last = the op
            return scopes[-1] if scopes else ""  # each scope is a full module path
    if not node.name.startswith("/"):
        return ""
    path = ""
    last = ""
    for part in node.name.strip("/").split("/")[:-1]:
        nested = bool(last) and part.startswith(last + ".")  # "stages.0" under "stages" extends the path
        path = path + part[len(last):] if nested else ".".join(p for p in (path, part) if p)
        last = part
    return path


def resolve_pins(model: onnx.ModelProto, pins: Sequence[str]) -> list[str]:
    """Node names a list of pins selects: a node's own name, or every node inside a pinned module path."""
    names = [n.name for n in model.graph.node]
    scopes = {n.name: module_scope(n) for n in model.graph.node}
    chosen: list[str] = []
    for pin in pins:
        inside = [n for n in names if scopes[n] == pin or scopes[n].startswith(pin + ".")]
        matches = [pin] if pin in scopes else inside
        if not matches:
            raise UserError(f"pinned layer {pin!r} matches no node of the model", field="FP32_LAYERS_FOR_FP16")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen
