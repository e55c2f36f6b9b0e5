"""TensorRT backend, written against the official Python API (``import tensorrt``).

- TensorRT 10.x (weakly typed): FP16 builder flag, the pinned layers set to FP32 precision and
  FP32 output types under ``OBEY_PRECISION_CONSTRAINTS`` (or ``PREFER_…``); excluded tactics are dropped from the
  editable timing cache so those layers are timed again.
- TensorRT 11.x (strongly typed networks only): the network is parsed from the mixed-precision
  ONNX (:func:`.onnx_fp16.mixed_precision`), whose casts carry the precision plan.
- A timing cache file is read before and written after each build, so rebuilds reuse timings; the
  engine is serialized to ``model.plan``.

NOT EXECUTED HERE: TensorRT cannot be installed in our build/test environments or on the GPU
machine. The 10.x path is type-checked against patched ``tensorrt-stubs`` 10.13 (``stubs/``);
the 11.x path cannot be checked against an 11.x API here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import tensorrt as trt

from aipipe.errors import UserError
from mlkit.engine.backends.base import BuiltEngine, PrecisionPlan
from mlkit.engine.backends.onnx_fp16 import mixed_precision
from mlkit.engine.inspect import Profile, derive_profiles, inspect_model

PLAN_FILE = "model.plan"
TIMING_CACHE_FILE = "timing.cache"
WORKSPACE_BYTES = 4 << 30


def trt_major() -> int:
    return int(str(trt.__version__).split(".", 1)[0])


def _parse(builder: trt.Builder, model: onnx.ModelProto, strongly_typed: bool,
           logger: trt.ILogger) -> tuple[trt.INetworkDefinition, trt.OnnxParser]:
    flags = 1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED) if strongly_typed else 0
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse(model.SerializeToString()):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise UserError(f"TensorRT's ONNX parser rejected the model: {errors}", field="onnx")
    return network, parser


def _layer_matches(layer_name: str, nodes: set[str]) -> bool:
    """TensorRT names parsed layers after their ONNX node, sometimes with a suffix (``<node>_1``)."""
    return layer_name in nodes or any(layer_name.startswith(node + "_") for node in nodes)


def pin_layers_fp32(network: trt.INetworkDefinition, fp32_nodes: Sequence[str]) -> list[str]:
    """Weakly typed (10.x): run the layers of ``fp32_nodes`` in FP32 with FP32 outputs; returns their names."""
    nodes = set(fp32_nodes)
    pinned: list[str] = []
    for index in range(network.num_layers):
        layer = network.get_layer(index)
        if not _layer_matches(layer.name, nodes):
            continue
        layer.precision = trt.float32
        for out in range(layer.num_outputs):
            layer.set_output_type(out, trt.float32)
        pinned.append(layer.name)
    return pinned


def _load_timing_cache(config: trt.IBuilderConfig, path: Path | None) -> trt.ITimingCache:
    data = path.read_bytes() if path is not None and path.is_file() else b""
    cache = config.create_timing_cache(data)
    config.set_timing_cache(cache, ignore_mismatch=False)
    return cache


def exclude_tactics(cache: trt.ITimingCache, tactics: Sequence[str]) -> int:
    """Drop the timing-cache entries that chose an excluded tactic (hex hash), so those layers are re-timed."""
    excluded = {int(t, 16) for t in tactics}
    dropped = 0
    for key in cache.queryKeys():
        value = cache.query(key)
        if value.tacticHash in excluded and cache.update(key, trt.TimingCacheValue(value.tacticHash, float("nan"))):
            dropped += 1
    return dropped


def _add_profiles(builder: trt.Builder, config: trt.IBuilderConfig, profiles: Mapping[str, Profile]) -> None:
    profile = builder.create_optimization_profile()
    for name, p in profiles.items():
        profile.set_shape(name, trt.Dims(list(p.min)), trt.Dims(list(p.opt)), trt.Dims(list(p.max)))
    config.add_optimization_profile(profile)


class TensorRTBackend:
    """Builds ``model.plan`` with the precision plan; reuses ``timing.cache`` across builds."""

    name = "tensorrt"

    def __init__(self, timing_cache: Path | None = None, profiles: Mapping[str, Profile] | None = None,
                 constraints: str = "obey") -> None:
        if constraints not in ("obey", "prefer"):
            raise ValueError(f"precision constraints must be 'obey' or 'prefer', not {constraints!r}")
        self.timing_cache = timing_cache
        self.profiles = profiles
        self.constraints = constraints

    def build(self, model: onnx.ModelProto, plan: PrecisionPlan, out_dir: Path) -> BuiltEngine:
        logger = trt.Logger(trt.Logger.WARNING)
        builder = trt.Builder(logger)
        strongly_typed = trt_major() >= 11
        source = mixed_precision(model, plan.fp32_layers, plan.precision) if strongly_typed else model
        network, _parser = _parse(builder, source, strongly_typed, logger)
        config = builder.create_builder_config()
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, WORKSPACE_BYTES)
        pinned: list[str] = []
        if not strongly_typed and plan.precision == "fp16":
            config.set_flag(trt.BuilderFlag.FP16)
            if plan.fp32_layers:
                config.set_flag(trt.BuilderFlag.OBEY_PRECISION_CONSTRAINTS if self.constraints == "obey"
                                else trt.BuilderFlag.PREFER_PRECISION_CONSTRAINTS)
                pinned = pin_layers_fp32(network, plan.fp32_layers)
        profiles = self.profiles or derive_profiles(inspect_model(model).inputs)
        _add_profiles(builder, config, profiles)
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        cache_path = self.timing_cache or out_dir / TIMING_CACHE_FILE
        cache = _load_timing_cache(config, cache_path)
        dropped = 0
        if plan.exclude_tactics:
            config.set_flag(trt.BuilderFlag.EDITABLE_TIMING_CACHE)
            dropped = exclude_tactics(cache, plan.exclude_tactics)
        serialized = builder.build_serialized_network(network, config)
        if serialized is None:
            raise UserError("TensorRT could not build an engine for this model and precision plan", field="backend")
        path = out_dir / PLAN_FILE
        path.write_bytes(bytes(memoryview(serialized)))
        cache_path.write_bytes(bytes(memoryview(config.get_timing_cache().serialize())))
        return BuiltEngine(self.name, path, plan.precision, {
            "fp32_layers": list(plan.fp32_layers), "trt_pinned_layers": pinned, "trt_version": str(trt.__version__),
            "strongly_typed": strongly_typed, "excluded_tactic_entries": dropped})

    def run(self, engine: BuiltEngine, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        session = TensorRTEngineSession(engine.path.read_bytes())
        try:
            (batch,) = inputs.values()
            return [session.infer(batch)]
        finally:
            session.close()


class TensorRTEngineSession:
    """A deserialized engine with one execution context; I/O buffers are torch CUDA tensors."""

    def __init__(self, plan: bytes, output_name: str = "") -> None:
        import torch

        self._torch = torch
        self._logger = trt.Logger(trt.Logger.WARNING)
        self._runtime = trt.Runtime(self._logger)
        engine = self._runtime.deserialize_cuda_engine(plan)
        if engine is None:
            raise UserError("TensorRT could not deserialize the engine (built by another TensorRT version or GPU?)",
                            field="engine")
        self._engine = engine
        self._context = engine.create_execution_context()
        names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
        self.inputs = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        outputs = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        if len(self.inputs) != 1 or not outputs:
            raise UserError(f"expected one input and an output, engine has {names}", field="engine")
        self.output = output_name if output_name in outputs else outputs[0]
        _min, _opt, max_shape = engine.get_tensor_profile_shape(self.inputs[0], 0)
        self.max_batch = int(max_shape[0])
        self._stream = torch.cuda.Stream()

    def infer(self, batch: np.ndarray) -> np.ndarray:
        torch = self._torch
        name = self.inputs[0]
        x = torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32)).cuda()
        self._context.set_input_shape(name, tuple(x.shape))
        dims = self._context.get_tensor_shape(self.output)
        out = torch.empty([int(dims[i]) for i in range(len(dims))], dtype=torch.float32, device="cuda")
        self._context.set_tensor_address(name, x.data_ptr())
        self._context.set_tensor_address(self.output, out.data_ptr())
        with torch.cuda.stream(self._stream):
            if not self._context.execute_async_v3(self._stream.cuda_stream):
                raise RuntimeError("TensorRT execution failed")
        self._stream.synchronize()
        result: Any = out.cpu().numpy()
        return np.asarray(result, dtype=np.float32)

    def close(self) -> None:
        del self._context
        del self._engine
