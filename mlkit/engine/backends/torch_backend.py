"""PyTorch backend: the classifier in FP16 (or bf16) with FP32 pins, CUDA graphs / torch.compile on a GPU.

Pins are module paths (``stages.0.0.body.0``); the module runs in FP32 with its inputs cast up
and its output cast back down. On CPU the module simply runs in half precision (real FP16
arithmetic, slow), which also makes this backend a real-FP16 evaluator for the debugger.
The engine serves the module with its BatchNorms folded into the convolutions (``torch_fusion``).
Works on torch >= 2.4; imports nothing beyond torch, numpy, safetensors and the train step's model.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from aipipe.contract import MODEL_CONFIG, MODEL_WEIGHTS
from aipipe.errors import UserError
from mlkit.engine.backends.torch_fusion import fold_batchnorm
from mlkit.engine.buckets import batch_buckets

DTYPES: dict[str, torch.dtype] = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def torch_dtype(precision: str) -> torch.dtype:
    """The torch dtype of a precision name (fp16 | bf16 | fp32)."""
    if precision not in DTYPES:
        raise UserError(f"unknown precision {precision!r} (known: {', '.join(DTYPES)})", field="precision")
    return DTYPES[precision]


def _cast_floats(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    if isinstance(value, tuple):
        return tuple(_cast_floats(v, dtype) for v in value)
    if isinstance(value, list):
        return [_cast_floats(v, dtype) for v in value]
    return value


def apply_precision_plan(model: nn.Module, precision: str, fp32_modules: Iterable[str]) -> nn.Module:
    """Cast ``model`` to ``precision`` in place, keeping each pinned module (and its children) in FP32.

    A pinned module receives FP32 inputs and hands a ``precision`` output to the next layer.
    """
    dtype = torch_dtype(precision)
    model.to(dtype)
    if dtype == torch.float32:
        return model
    known = dict(model.named_modules())
    for name in fp32_modules:
        if name not in known:
            raise UserError(f"pinned layer {name!r} is not a module of the model", field="FP32_LAYERS_FOR_FP16")
        sub = known[name]
        sub.float()
        sub.register_forward_pre_hook(lambda _m, args: _cast_floats(args, torch.float32))
        sub.register_forward_hook(lambda _m, _args, out: _cast_floats(out, dtype))
    return model


def inference_module(model: nn.Module, precision: str, fp32_modules: Sequence[str]) -> nn.Module:
    """The FP32 eval-mode ``model`` made ready to serve: BatchNorms folded (pins left whole), then the plan applied."""
    fold_batchnorm(model, torch_dtype(precision), keep=fp32_modules)
    return apply_precision_plan(model, precision, fp32_modules)


def scope_to_module(scope: str, model: nn.Module) -> str:
    """The deepest module of ``model`` that a dotted scope names (``""`` = the whole model)."""
    names = {name for name, _ in model.named_modules()}
    parts = scope.split(".") if scope else []
    while parts and ".".join(parts) not in names:
        parts.pop()
    return ".".join(parts)


def load_module(bundle_dir: Path) -> nn.Module:
    """Rebuild the FP32 module (eval mode, CPU) from ``model_config.json`` + ``model.safetensors``."""
    from mlkit.model import build_from_config, load_weights

    root = Path(bundle_dir)
    try:
        config = json.loads((root / MODEL_CONFIG).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read {MODEL_CONFIG}: {exc}", field=str(root)) from exc
    return load_weights(build_from_config(config), root / MODEL_WEIGHTS).eval()


class TorchEngine:
    """A module prepared for inference on one device; optional torch.compile and CUDA graphs."""

    def __init__(self, module: nn.Module, *, precision: str, device: str, max_batch: int,
                 input_shape: Sequence[int], cuda_graphs: bool = True, compile_mode: str | None = None,
                 compile_dynamic: bool | None = False) -> None:
        self.device = torch.device(device)
        self.dtype = torch_dtype(precision)
        self.input_shape = tuple(int(v) for v in input_shape)
        self.max_batch = int(max_batch)
        self._channels_last = self.device.type == "cuda"
        module = module.to(self.device)
        if self._channels_last:
            module = module.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # missing in stubs
        self._eager: Any = module
        # dynamic=None: batch 1 gets its own graph, every larger bucket shares one with a dynamic batch
        # dimension (two compiles instead of one per bucket: a faster start for the same speed).
        self.module: Any = (torch.compile(module, mode=compile_mode, dynamic=compile_dynamic) if compile_mode
                            else module)
        self.compile_mode = compile_mode
        self.compile_error: str | None = None
        self._use_graphs = cuda_graphs and self.device.type == "cuda"
        self._buckets = batch_buckets(self.max_batch)
        self._graphs: dict[int, tuple[torch.cuda.CUDAGraph, torch.Tensor]] = {}
        # One memory pool for every batch size's graph: the pool holds the largest graph's
        # buffers instead of the sum. Safe because replays never overlap and ``forward`` copies
        # the output out of the pool before the next replay can overwrite it.
        self._pool = torch.cuda.graph_pool_handle() if self._use_graphs else None
        # One stream for every warm-up and capture: cuBLAS keeps a workspace (32 MiB on Hopper)
        # for each stream it has run on, so a fresh stream per bucket would cost that much each.
        self._capture_stream = torch.cuda.Stream(self.device) if self._use_graphs else None
        # One input buffer for every graph: a batch of n rows is written to its first n rows, and
        # the graph of bucket b reads the first b (rows past n are stale and their outputs dropped).
        self._static_in: torch.Tensor | None = None

    def _to_input(self, batch: torch.Tensor) -> torch.Tensor:
        x = batch.to(self.device, self.dtype, non_blocking=True)
        return x.contiguous(memory_format=torch.channels_last) if self._channels_last else x

    def _input_buffer(self) -> torch.Tensor:
        if self._static_in is None:
            self._static_in = self._to_input(torch.zeros((self.max_batch, *self.input_shape)))
        return self._static_in

    def _capture(self, size: int) -> tuple[torch.cuda.CUDAGraph, torch.Tensor]:
        static_in = self._input_buffer()[:size]
        stream = self._capture_stream
        assert stream is not None
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.no_grad():
            for _ in range(3):
                self._run_module(static_in)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(graph, pool=self._pool, stream=stream):
            static_out = self.module(static_in)
        return graph, static_out

    def _run_module(self, x: torch.Tensor) -> torch.Tensor:
        """One eager (or compiling) call; when torch.compile fails (no Triton, no C compiler) the engine
        says so once on stderr and serves the module uncompiled from then on."""
        try:
            return self.module(x)
        except Exception as exc:
            if self.module is self._eager:
                raise
            self.compile_error = f"{type(exc).__name__}: {exc}"[:300]
            print(f"aipipe: torch.compile failed, serving uncompiled: {self.compile_error}", file=sys.stderr)
            self.module = self._eager
            self.compile_mode = None
            return self.module(x)

    def compile_buckets(self) -> None:
        """Compile every batch bucket's shape now, capturing no CUDA graph: safe in a background thread while
        another thread serves (a capture must not overlap other CUDA work: the serving thread captures, in
        :meth:`warm`, once this is done)."""
        stream = self._capture_stream
        with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext(), torch.no_grad():
            for size in self._buckets:
                self._run_module(self._to_input(torch.zeros((size, *self.input_shape))))
        if stream is not None:
            stream.synchronize()

    def warm(self) -> None:
        """Compile (when asked) and capture every batch bucket now, not at the first request of each size.

        Compiles run smallest first (batch 1, then the graph the larger buckets share: the order the conversion
        compiled and cached them in); captures run largest first, so each smaller graph reuses blocks the larger
        ones freed in the shared pool instead of growing it."""
        self.compile_buckets()
        for size in reversed(self._buckets):
            self.forward(torch.zeros((size, *self.input_shape)))
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def forward(self, batch: torch.Tensor) -> torch.Tensor:
        """Logits (on the engine's device, float32) for a float NCHW tensor of at most ``max_batch`` rows."""
        n = int(batch.shape[0])
        if not self._use_graphs:
            with torch.no_grad():
                return self._run_module(self._to_input(batch)).float()
        size = next(b for b in self._buckets if b >= n)
        if size not in self._graphs:
            self._graphs[size] = self._capture(size)
        graph, static_out = self._graphs[size]
        # The transfer keeps the batch's dtype (a plain memcpy); the cast to the engine's dtype and layout
        # then runs on the GPU, not on the CPU that the serving workers need.
        self._input_buffer()[:n].copy_(batch.to(self.device, non_blocking=True))
        graph.replay()
        out = static_out[:n]
        return out.clone() if out.dtype == torch.float32 else out.float()  # never hand out the graph's buffer

    def infer(self, batch: np.ndarray) -> np.ndarray:
        """float32 NCHW numpy in, float32 logits numpy out."""
        logits = self.forward(torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32)))
        return logits.cpu().numpy()

    def release_graphs(self) -> None:
        """Free the CUDA graphs and their pool's memory; the next call of each bucket captures its graph again."""
        self._graphs.clear()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def close(self) -> None:
        self._graphs.clear()
        self._static_in = None
        self.module = self._eager = None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()


def load_torch_engine(bundle_dir: Path, *, precision: str, fp32_modules: Sequence[str], device: str,
                      max_batch: int, input_shape: Sequence[int], cuda_graphs: bool = True,
                      compile_mode: str | None = None, compile_dynamic: bool | None = False,
                      compile_cache: Path | None = None) -> TorchEngine:
    """Rebuild the module from a bundle, fold its BatchNorms, apply the precision plan, prepare it on ``device``.

    ``compile_cache`` (the bundle's Mega-Cache) is handed to torch before anything compiles.
    """
    if compile_mode and compile_cache is not None:
        from mlkit.engine.compiled import load_compile_cache

        load_compile_cache(compile_cache)
    module = inference_module(load_module(bundle_dir), precision, fp32_modules)
    return TorchEngine(module, precision=precision, device=device, max_batch=max_batch, input_shape=input_shape,
                       cuda_graphs=cuda_graphs, compile_mode=compile_mode, compile_dynamic=compile_dynamic)


def pins_to_modules(model: nn.Module, onnx_model: Any, pins: Sequence[str]) -> list[str]:
    """Module paths for pins given as module paths or as ONNX node names (mapped through their scope)."""
    from mlkit.engine.inspect import module_scope

    modules = dict(model.named_modules())
    nodes = {n.name: n for n in onnx_model.graph.node} if onnx_model is not None else {}
    chosen: list[str] = []
    for pin in pins:
        if pin in modules:
            path = pin
        elif pin in nodes:
            path = scope_to_module(module_scope(nodes[pin]), model)
        else:
            raise UserError(f"pinned layer {pin!r} is neither a module nor an ONNX node", field="FP32_LAYERS_FOR_FP16")
        if path not in chosen:
            chosen.append(path)
    return chosen


class TorchBackend:
    """Builds the PyTorch engine: the model bundle's weights plus the plan's FP32 module pins.

    With ``compile_mode`` (the convert step passes ``default`` on a GPU) the engine is compiled here,
    once, every batch bucket warmed, and the compile cache written beside the weights; when compiling
    fails the engine ships uncompiled and says why in ``runtime.compile_note``.
    """

    name = "pytorch"

    def __init__(self, model_bundle: Path, device: str = "cpu", compile_mode: str | None = None,
                 input_shape: Sequence[int] | None = None, max_batch: int = 64) -> None:
        self.model_bundle = Path(model_bundle)
        self.device = device
        self.compile_mode = compile_mode  # what replicas pass to torch.compile (None: eager + CUDA graphs)
        self.input_shape = tuple(input_shape) if input_shape is not None else None
        self.max_batch = max_batch

    def _compile_once(self, precision: str, fp32_modules: Sequence[str], out_dir: Path) -> dict[str, Any]:
        """Compile and warm every bucket in this process, then save the Mega-Cache; the runtime entry."""
        import time

        from mlkit.engine.compiled import COMPILE_CACHE_FILE, build_target, save_compile_cache

        if self.input_shape is None:
            raise UserError("compiling the engine needs the input shape", field="input_shape")
        start = time.perf_counter()
        engine = TorchEngine(inference_module(load_module(self.model_bundle), precision, fp32_modules),
                             precision=precision, device=self.device, max_batch=self.max_batch,
                             input_shape=self.input_shape, cuda_graphs=self.device == "cuda",
                             compile_mode=self.compile_mode, compile_dynamic=None)
        engine.warm()
        runtime: dict[str, Any] = {"cuda_graphs": True, "compile_mode": engine.compile_mode,
                                   "compile_seconds": round(time.perf_counter() - start, 1)}
        if engine.compile_mode is None:
            runtime["compile_note"] = f"torch.compile failed at conversion, shipped uncompiled: {engine.compile_error}"
        else:
            counts = save_compile_cache(out_dir / COMPILE_CACHE_FILE)
            runtime.update(compile_dynamic="auto", built_for=build_target(self.device),
                           compile_cache=COMPILE_CACHE_FILE if counts is not None else None,
                           compile_cache_entries=counts or {})
        engine.close()
        return runtime

    def build(self, model: Any, plan: Any, out_dir: Path) -> Any:
        from mlkit.engine.backends.base import BuiltEngine

        fp32_modules = pins_to_modules(load_module(self.model_bundle), model, plan.fp32_layers)
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        target = out_dir / MODEL_WEIGHTS
        if (self.model_bundle / MODEL_WEIGHTS).resolve() != target.resolve():
            target.write_bytes((self.model_bundle / MODEL_WEIGHTS).read_bytes())
        runtime: dict[str, Any] = {"cuda_graphs": True, "compile_mode": None}
        if self.compile_mode:
            runtime = self._compile_once(plan.precision, fp32_modules, out_dir)
        extra = [out_dir / runtime["compile_cache"]] if runtime.get("compile_cache") else []
        return BuiltEngine(self.name, target, plan.precision,
                           {"fp32_layers": list(plan.fp32_layers), "fp32_modules": fp32_modules,
                            "runtime": runtime}, extra_files=extra)

    def run(self, engine: Any, inputs: Any) -> list[np.ndarray]:
        (batch,) = inputs.values()
        runner = TorchEngine(inference_module(load_module(self.model_bundle), engine.precision,
                                              engine.manifest["fp32_modules"]),
                             precision=engine.precision, device=self.device, max_batch=int(batch.shape[0]),
                             input_shape=batch.shape[1:], cuda_graphs=False)
        return [runner.infer(batch)]
