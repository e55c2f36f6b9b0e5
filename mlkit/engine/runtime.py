"""Load a finished engine bundle and run it: the one entry point serving workers use.

``load_engine(bundle_dir)`` reads ``engine.json`` and returns an :class:`EngineRunner` for the
backend that built the engine:

- ``onnxruntime``: executes the (mixed-precision) ONNX file with ONNX Runtime (CUDA provider
  when asked for and present, else CPU — where FP16 nodes effectively run in FP32);
- ``pytorch``: rebuilds the module from ``model_config.json`` + ``model.safetensors`` and applies
  the precision plan (FP16/bf16 with the FP32 pins); CUDA graphs per batch bucket on a GPU;
- ``tensorrt``: deserializes ``model.plan`` (only where ``import tensorrt`` works).

Only numpy is imported at module level, so this imports on every image.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from aipipe.contract import ENGINE_MANIFEST
from aipipe.errors import UserError

BACKENDS = ("onnxruntime", "pytorch", "tensorrt")
DEVICES = ("auto", "cpu", "cuda")


class PendingLogits:
    """Logits of a batch, possibly still being computed on a GPU: ``ready()`` asks, ``result()`` waits."""

    def __init__(self, value: np.ndarray | None = None, host: Any = None, event: Any = None) -> None:
        self._value, self._host, self._event = value, host, event

    def ready(self) -> bool:
        return self._event is None or bool(self._event.query())

    def result(self) -> np.ndarray:
        if self._value is None:
            self._event.synchronize()
            self._value = self._host.numpy()
        return self._value


class EngineRunner(Protocol):
    """A loaded engine: float32 NCHW batch in, float32 logits ``(N, num_classes)`` out."""

    input_name: str
    input_shape: tuple[int, int, int]  # C, H, W
    max_batch: int

    def infer(self, batch: np.ndarray) -> np.ndarray: ...

    def infer_tensor(self, batch: Any) -> np.ndarray: ...

    def infer_async(self, batch: Any) -> PendingLogits: ...

    def close(self) -> None: ...


def read_manifest(bundle_dir: Path) -> dict[str, Any]:
    """Read and check ``engine.json`` of an engine bundle."""
    path = Path(bundle_dir) / ENGINE_MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise UserError(f"not an engine bundle: {ENGINE_MANIFEST} missing", field=str(bundle_dir)) from exc
    except json.JSONDecodeError as exc:
        raise UserError(f"invalid JSON: {exc}", field=str(path)) from exc
    missing = [k for k in ("backend", "precision", "file", "input_name", "input_shape", "max_batch")
               if k not in manifest]
    if missing:
        raise UserError(f"missing keys {missing}", field=str(path))
    if manifest["backend"] not in BACKENDS:
        raise UserError(f"unknown backend {manifest['backend']!r} (known: {', '.join(BACKENDS)})",
                        field=f"{path}:backend")
    if not (Path(bundle_dir) / manifest["file"]).is_file():
        raise UserError(f"engine file {manifest['file']!r} missing from the bundle", field=str(bundle_dir))
    return dict(manifest)


def _shape(manifest: dict[str, Any]) -> tuple[int, int, int]:
    c, h, w = (int(v) for v in manifest["input_shape"])
    return c, h, w


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def resolve_device(device: str) -> str:
    """``auto`` → ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda`` without a GPU is an error."""
    if device not in DEVICES:
        raise UserError(f"unknown device {device!r} (known: {', '.join(DEVICES)})", field="device")
    if device == "auto":
        return "cuda" if _cuda_available() else "cpu"
    if device == "cuda" and not _cuda_available():
        raise UserError("device 'cuda' requested but no CUDA GPU is visible", field="device")
    return device


class _RunnerBase:
    """Shape checks and batching shared by the runners; subclasses implement ``_run``."""

    def __init__(self, manifest: dict[str, Any]) -> None:
        self.input_name: str = str(manifest["input_name"])
        self.input_shape: tuple[int, int, int] = _shape(manifest)
        self.max_batch: int = int(manifest["max_batch"])
        self.backend: str = str(manifest["backend"])
        self.precision: str = str(manifest["precision"])

    def _run(self, batch: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def infer(self, batch: np.ndarray) -> np.ndarray:
        """Run a float32 NCHW batch; batches over ``max_batch`` are run in chunks."""
        array = np.ascontiguousarray(batch, dtype=np.float32)
        if array.ndim != 4 or tuple(array.shape[1:]) != self.input_shape:
            raise ValueError(f"expected a batch of shape (N, {', '.join(map(str, self.input_shape))}), "
                             f"got {tuple(array.shape)}")
        if array.shape[0] == 0:
            raise ValueError("empty batch")
        parts = [self._run(array[i:i + self.max_batch]) for i in range(0, array.shape[0], self.max_batch)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def infer_tensor(self, batch: Any) -> np.ndarray:
        """Run a float32 NCHW torch tensor (on any device; e.g. decoded on the GPU); logits as numpy."""
        return self.infer(batch.cpu().numpy())

    def infer_async(self, batch: Any) -> PendingLogits:
        """Start a batch (numpy, or a torch tensor) and return at once where the engine can (a PyTorch engine
        on CUDA: the caller prepares the next batch while the GPU runs this one); else run it now."""
        return PendingLogits(self.infer(batch) if isinstance(batch, np.ndarray) else self.infer_tensor(batch))

    def close(self) -> None:
        """Release the engine (the base holds nothing)."""


class OnnxRuntimeRunner(_RunnerBase):
    """ONNX Runtime session over the bundle's ONNX file."""

    def __init__(self, bundle_dir: Path, manifest: dict[str, Any], device: str) -> None:
        super().__init__(manifest)
        import onnxruntime as ort

        providers = ["CPUExecutionProvider"]
        if device == "cuda" and "CUDAExecutionProvider" in ort.get_available_providers():
            providers.insert(0, "CUDAExecutionProvider")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self._session: Any = ort.InferenceSession(str(bundle_dir / manifest["file"]), options, providers=providers)
        self._output = str(manifest.get("output_name") or self._session.get_outputs()[0].name)
        self.providers = self._session.get_providers()

    def _run(self, batch: np.ndarray) -> np.ndarray:
        (out,) = self._session.run([self._output], {self.input_name: batch})
        return np.asarray(out, dtype=np.float32)

    def close(self) -> None:
        self._session = None


class TorchRunner(_RunnerBase):
    """The PyTorch module with the bundle's precision plan (FP32 pins), CUDA graphs on a GPU."""

    def __init__(self, bundle_dir: Path, manifest: dict[str, Any], device: str, compiled: bool = True) -> None:
        super().__init__(manifest)
        from mlkit.engine.backends.torch_backend import load_torch_engine
        from mlkit.engine.compiled import CompilePlan, plan_for

        runtime = dict(manifest.get("runtime") or {})
        self.compile_plan = (plan_for(runtime, bundle_dir, device) if compiled
                             else CompilePlan(None, None, None, "uncompiled by request (a tiered start)"))
        self._engine = load_torch_engine(
            bundle_dir, precision=self.precision, fp32_modules=list(manifest.get("fp32_modules") or []),
            device=device, max_batch=self.max_batch, input_shape=self.input_shape,
            cuda_graphs=bool(runtime.get("cuda_graphs", True)), compile_mode=self.compile_plan.mode,
            compile_dynamic=self.compile_plan.dynamic, compile_cache=self.compile_plan.cache)

    @property
    def compiled(self) -> bool:
        """Whether the engine runs compiled now (False after a mismatch or a failed compile)."""
        return self._engine.compile_mode is not None

    def warm(self) -> None:
        """Compile and capture every batch bucket now."""
        self._engine.warm()

    def compile_buckets(self) -> None:
        """Compile every batch bucket without capturing CUDA graphs (see :meth:`TorchEngine.compile_buckets`)."""
        self._engine.compile_buckets()

    def release_graphs(self) -> None:
        """Free the CUDA graphs' memory (captured again at their next call)."""
        self._engine.release_graphs()

    def _run(self, batch: np.ndarray) -> np.ndarray:
        return self._engine.infer(batch)

    def infer_tensor(self, batch: Any) -> np.ndarray:
        """A tensor already on the engine's device goes straight in (no host round trip)."""
        if batch.ndim != 4 or tuple(batch.shape[1:]) != self.input_shape or batch.shape[0] == 0:
            raise ValueError(f"expected a batch of shape (N, {', '.join(map(str, self.input_shape))}), "
                             f"got {tuple(batch.shape)}")
        parts = [self._engine.forward(batch[i:i + self.max_batch]).cpu().numpy()
                 for i in range(0, int(batch.shape[0]), self.max_batch)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def infer_async(self, batch: Any) -> PendingLogits:
        """On CUDA: enqueue the batch and the logits' copy into page-locked memory, record an event, return.
        A numpy batch must stay untouched until the result is taken (its copy to the GPU is asynchronous)."""
        import torch

        if self._engine.device.type != "cuda" or int(batch.shape[0]) > self.max_batch:
            return super().infer_async(batch)
        tensor = batch
        if isinstance(batch, np.ndarray):
            tensor = torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32))
        if tensor.ndim != 4 or tuple(tensor.shape[1:]) != self.input_shape or tensor.shape[0] == 0:
            raise ValueError(f"expected a batch of shape (N, {', '.join(map(str, self.input_shape))}), "
                             f"got {tuple(tensor.shape)}")
        logits = self._engine.forward(tensor)
        host = torch.empty(logits.shape, dtype=torch.float32, pin_memory=True)
        host.copy_(logits, non_blocking=True)
        event = torch.cuda.Event()
        event.record()
        return PendingLogits(host=host, event=event)

    def close(self) -> None:
        self._engine.close()


class TensorRTRunner(_RunnerBase):
    """A deserialized TensorRT ``.plan`` (TRT 10/11 tensor API); buffers are torch CUDA tensors."""

    def __init__(self, bundle_dir: Path, manifest: dict[str, Any], device: str) -> None:
        super().__init__(manifest)
        if device != "cuda":
            raise UserError("a TensorRT engine needs a CUDA GPU", field="device")
        from mlkit.engine.backends.tensorrt import TensorRTEngineSession

        self._session = TensorRTEngineSession((bundle_dir / manifest["file"]).read_bytes(),
                                              str(manifest.get("output_name") or ""))
        self.max_batch = min(self.max_batch, self._session.max_batch)

    def _run(self, batch: np.ndarray) -> np.ndarray:
        return self._session.infer(batch)

    def close(self) -> None:
        self._session.close()


_RUNNERS: dict[str, Callable[[Path, dict[str, Any], str], EngineRunner]] = {
    "onnxruntime": OnnxRuntimeRunner,
    "pytorch": TorchRunner,
    "tensorrt": TensorRTRunner,
}


def load_engine(bundle_dir: Path, device: str = "auto", *, compiled: bool = True) -> EngineRunner:
    """Load the engine bundle in ``bundle_dir`` on ``device`` (auto | cpu | cuda).

    ``compiled=False`` serves a compiled PyTorch engine uncompiled (eager + CUDA graphs): it is ready in
    a few seconds, where compiling (even from the bundle's cache) takes several more.
    """
    root = Path(bundle_dir)
    manifest = read_manifest(root)
    device = resolve_device(device)
    if manifest["backend"] == "pytorch":
        return TorchRunner(root, manifest, device, compiled)
    return _RUNNERS[manifest["backend"]](root, manifest, device)


def compiles(bundle_dir: Path) -> bool:
    """Whether the bundle is a PyTorch engine compiled at conversion (``engine.json``'s runtime plan)."""
    manifest = read_manifest(Path(bundle_dir))
    runtime = manifest.get("runtime")
    return manifest["backend"] == "pytorch" and isinstance(runtime, dict) and bool(runtime.get("compile_mode"))
