"""The convert step end to end: fetch → inspect → precision debugger (or reused config) → build →
validate → measure → publish the engine bundle (+ MLflow) → outputs and precision report.

The debugger judges FP16 with real reduced-precision arithmetic: PyTorch on a CUDA GPU, else the
ONNX reference evaluator on CPU — never ONNX Runtime's CPU build, which silently runs FP16 in FP32.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aipipe.config import Config
from aipipe.contract import (
    CLASSES_FILE,
    MODEL_CONFIG,
    MODEL_ONNX,
    MODEL_WEIGHTS,
    PRECISION_CONFIG,
    PREPROCESS_FILE,
)
from aipipe.errors import NotFoundError, ServiceUnavailable, UserError
from aipipe.stepkit import report_progress, write_outputs, write_report
from aipipe.storage import Storage, join
from mlkit.engine.backends.base import Backend, BuiltEngine, Evaluator, PrecisionPlan
from mlkit.engine.inspect import Profile, inspect_model, load_onnx, resolve_pins

from .bundle import update_manifest, write_engine_bundle
from .comparator import Tolerance
from .config import PrecisionConfig
from .contract import CONTRACT
from .debugger.loop import debug_precision
from .measure import measure_in_subprocess
from .validate import require_passed, validate_engine

REPORT_NAME = "precision-report.json"


@dataclass(frozen=True)
class ConvertArgs:
    onnx_uri: str
    dataset_uri: str
    model_name: str
    model_version: str
    backend: str = "auto"
    precision: str = "fp16"
    precision_config_uri: str = ""
    max_accuracy_delta: float = 0.01
    atol: float = 1e-2
    rtol: float = 1e-2
    error_stat: str = "mean"
    strategy: str = "linear"
    max_evaluations: int = 10
    calibration_samples: int = 16
    validation_samples: int = 512
    batch_profile: tuple[int, int, int] = (1, 32, 64)
    profiles: tuple[tuple[str, Profile], ...] = ()


def tensorrt_available() -> bool:
    """True when the real TensorRT imports (stub-only ``tensorrt`` namespace folders do not count)."""
    try:
        import tensorrt
    except ImportError:
        return False
    return hasattr(tensorrt, "Builder")


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def choose_backend(requested: str) -> str:
    """``auto`` = tensorrt if importable, else pytorch on a CUDA GPU, else onnxruntime."""
    if requested == "auto":
        return "tensorrt" if tensorrt_available() else "pytorch" if cuda_available() else "onnxruntime"
    if requested == "tensorrt" and not tensorrt_available():
        raise UserError("backend 'tensorrt' requested but `import tensorrt` fails in this image", field="backend")
    return requested


def _fetch_model_bundle(storage: Storage, onnx_uri: str, dest: Path) -> Path:
    """Download the model bundle the ONNX file belongs to (its folder); the label map and preprocessing are required."""
    if not onnx_uri.endswith(".onnx"):
        raise UserError(f"expected the URI of an .onnx file, got {onnx_uri!r}", field="onnx-uri")
    if not storage.exists(onnx_uri):
        raise NotFoundError(f"no ONNX model at {onnx_uri}", field="onnx-uri")
    folder = onnx_uri.rsplit("/", 1)[0]
    dest.mkdir(parents=True, exist_ok=True)
    storage.get_file(onnx_uri, dest / MODEL_ONNX)
    for name in (MODEL_WEIGHTS, MODEL_CONFIG, CLASSES_FILE, PREPROCESS_FILE):
        if storage.exists(join(folder, name)):
            storage.get_file(join(folder, name), dest / name)
    missing = [n for n in (CLASSES_FILE, PREPROCESS_FILE) if not (dest / n).is_file()]
    if missing:
        raise UserError(f"the model bundle next to the ONNX file lacks {', '.join(missing)}: the engine must "
                        "travel with the label map and preprocessing spec", field="onnx-uri")
    return dest


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"invalid JSON: {exc}", field=str(path)) from exc


def _evaluator(model: Any, model_bundle: Path, device: str) -> Evaluator:
    """PyTorch on a GPU when the bundle has weights, else the ONNX reference evaluator (real FP16 on CPU)."""
    if device == "cuda" and (model_bundle / MODEL_WEIGHTS).is_file():
        from mlkit.engine.backends.torch_backend import load_module

        from .evaluators.torch_evaluator import TorchEvaluator

        return TorchEvaluator(load_module(model_bundle), device="cuda")
    from .evaluators.onnx_reference import OnnxReferenceEvaluator

    return OnnxReferenceEvaluator(model)


def _backend(name: str, model_bundle: Path, device: str, profiles: Mapping[str, Profile],
             timing_cache: Path, info: Any = None) -> Backend:
    if name == "onnxruntime":
        from mlkit.engine.backends.onnx_fp16 import OnnxRuntimeBackend

        return OnnxRuntimeBackend()
    if name == "pytorch":
        from mlkit.engine.backends.torch_backend import TorchBackend

        # on a GPU the engine is compiled here, once, and its compile cache ships in the bundle
        return TorchBackend(model_bundle, device=device, compile_mode="default" if device == "cuda" else None,
                            input_shape=info.sample_shape if info is not None else None,
                            max_batch=info.max_batch if info is not None else 64)
    from mlkit.engine.backends.tensorrt import TensorRTBackend

    return TensorRTBackend(timing_cache=timing_cache, profiles=profiles)


def _source_logits(model_bundle: Path, model: Any, device: str) -> Any:
    """The source model as a function: the PyTorch module in FP32 (TF32 off) when the bundle has weights, else ORT."""
    if (model_bundle / MODEL_WEIGHTS).is_file():
        import torch

        from mlkit.engine.backends.torch_backend import load_module

        from .evaluators.torch_evaluator import no_tf32

        module = load_module(model_bundle).to(device)

        def run_torch(x: np.ndarray) -> np.ndarray:
            with torch.no_grad(), no_tf32():
                return module(torch.from_numpy(x).to(device)).cpu().numpy()

        return run_torch
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return lambda x: session.run(None, {session.get_inputs()[0].name: x})[0]


def _log_to_mlflow(cfg: Config, args: ConvertArgs, bundle: Path, tags: dict[str, str]) -> str:
    """Log the engine bundle and config to the model version's run, and tag the version. Returns a status line."""
    try:
        import mlflow
        from mlflow.exceptions import MlflowException
    except ImportError:
        return "skipped: mlflow is not installed in this image"
    client = mlflow.MlflowClient(tracking_uri=cfg.mlflow_tracking_uri, registry_uri=cfg.mlflow_tracking_uri)
    try:
        version = client.get_model_version(args.model_name, args.model_version)
    except MlflowException as exc:
        if "RESOURCE_DOES_NOT_EXIST" in str(exc.error_code) or "not found" in str(exc).lower():
            return f"skipped: model version {args.model_name}/{args.model_version} is not registered in MLflow"
        raise ServiceUnavailable(f"MLflow: {exc}") from exc
    try:
        if version.run_id:
            client.log_artifacts(version.run_id, str(bundle), artifact_path=f"engine-{tags['backend']}")
        for key, value in tags.items():
            client.set_model_version_tag(args.model_name, args.model_version, f"engine.{key}", value)
    except MlflowException as exc:
        raise ServiceUnavailable(f"MLflow: {exc}") from exc
    return f"logged to run {version.run_id} of {args.model_name}/{args.model_version}"


def _engine_tags(backend: str, precision: str, device: str) -> dict[str, str]:
    tags = {"backend": backend, "precision": precision, "trt_version": "", "gpu_arch": "cpu"}
    if backend == "tensorrt":
        import tensorrt

        tags["trt_version"] = str(tensorrt.__version__)
    if device == "cuda":
        import torch

        major, minor = torch.cuda.get_device_capability(0)
        tags["gpu_arch"] = f"sm_{major}{minor} ({torch.cuda.get_device_name(0)})"
    return tags


def convert(args: ConvertArgs, cfg: Config) -> dict[str, Any]:
    """Run the step; writes outputs and the precision report; returns the outputs."""
    storage = Storage.from_config(cfg)
    backend_name = choose_backend(args.backend)
    device = "cuda" if cuda_available() else "cpu"
    report: dict[str, Any] = {"backend": backend_name, "precision": args.precision, "device": device}
    with tempfile.TemporaryDirectory(prefix="aipipe-convert-") as tmp:
        work = Path(tmp)
        report_progress(0, 5)
        model_bundle = _fetch_model_bundle(storage, args.onnx_uri, work / "model")
        preprocess = _read_json(model_bundle / PREPROCESS_FILE)
        classes = list(_read_json(model_bundle / CLASSES_FILE))
        model = load_onnx(model_bundle / MODEL_ONNX)
        info = inspect_model(model, expected_input=preprocess.get("input_name"), batch=args.batch_profile,
                             overrides=dict(args.profiles))
        report["model"] = {"input": info.input.__dict__, "output": info.output.__dict__, "layers": len(info.layers),
                           "opset": info.opset, "profiles": {k: v.__dict__ for k, v in info.profiles.items()}}
        from .samples import load_samples

        samples = load_samples(storage, args.dataset_uri, preprocess, classes, work / "dataset",
                               max(args.validation_samples, args.calibration_samples))
        report_progress(1, 5)

        tol = Tolerance(args.atol, args.rtol, args.error_stat)
        if args.precision == "fp32":
            config = PrecisionConfig(atol=args.atol, rtol=args.rtol, error_stat=args.error_stat)
            report["debugger"] = {"skipped": "fp32 engine: nothing to debug"}
        elif args.precision_config_uri:
            config = PrecisionConfig.from_json(storage.get_text(args.precision_config_uri), args.precision_config_uri)
            report["debugger"] = {"skipped": f"reused {args.precision_config_uri}"}
        else:
            evaluator = _evaluator(model, model_bundle, device)
            found = debug_precision(evaluator, samples.head(args.calibration_samples), tol, precision=args.precision,
                                    strategy=args.strategy, max_evaluations=args.max_evaluations)
            report["debugger"] = found.report
            config = found.config
            if not found.success:
                report["result"] = "failed"
                write_report(REPORT_NAME, report)
                raise UserError(f"FP16 precision search gave up: {found.report['reason']}; see {REPORT_NAME} "
                                "(or convert with --precision fp32)", field="precision")
        pinned_nodes = resolve_pins(model, config.fp32_layers)
        report["fp16_share_of_graph_nodes"] = 1 - len([n for n in pinned_nodes if n in info.layers]) / len(info.layers)
        report_progress(2, 5)

        plan = PrecisionPlan(args.precision, tuple(config.fp32_layers) if backend_name == "pytorch"
                             else tuple(pinned_nodes), config.exclude_tactics)
        cache_uri = join(cfg.storage_root, "engines", args.model_name, "timing.cache")  # shared by rebuilds
        if backend_name == "tensorrt" and storage.exists(cache_uri):
            storage.get_file(cache_uri, work / "timing.cache")
        engine: BuiltEngine = _backend(backend_name, model_bundle, device, info.profiles,
                                       work / "timing.cache", info).build(model, plan, work / "build")
        if backend_name == "tensorrt":
            storage.put_file(cache_uri, work / "timing.cache")
        bundle = write_engine_bundle(work / "engine", engine=engine, info=info, config=config,
                                     model_bundle=model_bundle, model_version=args.model_version)
        from mlkit.engine.runtime import load_engine

        runner = load_engine(bundle, device=device)
        validation = validate_engine(_source_logits(model_bundle, model, device), runner.infer, samples.images,
                                     samples.labels, args.max_accuracy_delta)
        runner.close()
        report["validation"] = validation.to_dict()
        if not validation.passed:
            report["result"] = "failed"
            write_report(REPORT_NAME, report)
        require_passed(validation)
        report_progress(3, 5)

        measured = measure_in_subprocess(bundle, device)
        report["measurement"] = measured
        if measured["memory_method"] == "cpu-rss-growth":
            report["measurement_note"] = ("no GPU: memory_mb is the growth of the process RSS from loading the engine "
                                          "to its first inference, not a GPU footprint")
        if backend_name == "onnxruntime" and device == "cpu" and args.precision == "fp16":
            report["numerics_note"] = ("ONNX Runtime's CPU build has no FP16 kernels for most ops and runs them in "
                                       "FP32, so latency/throughput here are not FP16 figures; FP16 accuracy was "
                                       f"judged with {report['debugger'].get('evaluator', 'the reused config')}")
        update_manifest(bundle, memory_mb=measured["memory_mb"], latency_ms_b1=measured["latency_ms_b1"],
                        throughput_b64=measured["throughput_b64"], fp32_nodes=pinned_nodes)
        engine_uri = join(cfg.storage_root, "engines", args.model_name, args.model_version)
        storage.upload_dir(bundle, engine_uri)
        config_uri = join(engine_uri, PRECISION_CONFIG)
        report["mlflow"] = _log_to_mlflow(cfg, args, bundle, _engine_tags(backend_name, args.precision, device))
        report_progress(4, 5)

    outputs = {"engine_uri": engine_uri, "precision_config_uri": config_uri, "backend": backend_name,
               "precision": args.precision, "memory_mb": measured["memory_mb"],
               "latency_ms_b1": measured["latency_ms_b1"], "throughput_b64": measured["throughput_b64"]}
    report["result"] = "ok"
    report["outputs"] = outputs
    write_report(REPORT_NAME, report)
    write_outputs(CONTRACT, outputs)
    report_progress(5, 5)
    return outputs
