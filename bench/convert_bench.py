"""Benchmark: the shipped FP16 engine against the best plain PyTorch does, on the same ResNet-50-sized
classifier at 224 px.

Rows, each variant in its own fresh process (memory figures belong to one replica alone):
eager FP32 with TF32 off (the error reference) and with PyTorch's defaults (TF32 convolutions); the FP16
engine uncompiled (BN folded, channels_last, CUDA graphs); the same FP16 module under
``torch.compile(mode="reduce-overhead")``; the engine under ``torch.compile`` (default mode, static
shapes) + its CUDA graphs compiled in process (the reference the shipped engine must match); the
shipped engine — built by the convert step's own ``TorchBackend`` (compiled once, Mega-Cache in the
bundle) and loaded as a replica loads it, in a fresh process with empty inductor/Triton caches; and
the AOTInductor package (``torch.export`` + ``aoti_compile_and_package``) when it builds and loads.
Each row: latency at batch 1, throughput at batch 64, peak and steady GPU memory, time from process
start to ready (every batch bucket compiled/captured) and to the first inference, median abs error and
top-1 agreement of the logits vs FP32. Last, a rolling restart of a 2-replica service under load
(``bench/replica_restart.py``): failed requests and each replica's start time.

    python3 bench/convert_bench.py            # GPU run (H100/H200), about 6 minutes
    python3 bench/convert_bench.py --quick    # CPU smoke test (< 1 min): resnet_tiny, 32 px, no compile

Summary keys: throughput_vs_compiled_b64, latency_vs_compiled_b1, throughput_ratio_vs_tf32, replica_ready_s,
failed_during_restart, median_abs_error, top1_agreement, throughput_ratio_b64, latency_ratio_b1, memory_ratio
(the shipped engine; other engines with a suffix), debugger_evaluations.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _median_seconds(fn: Any, x: torch.Tensor, iterations: int, device: str) -> float:
    for _ in range(5):
        fn(x)
    _sync(device)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn(x)
        _sync(device)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _rss_mb() -> float:
    from steps.convert_trt.measure import rss_mb

    return rss_mb()


def _child_module(args: argparse.Namespace, shape: tuple[int, int, int]) -> tuple[Any, str, Any]:
    """The callable a child times, a note, and the loaded engine runner (shipped variant) or None."""
    from mlkit.engine.backends.torch_backend import inference_module, load_module, load_torch_engine

    device, variant = args.device, args.child
    if variant in ("fp32", "fp32-tf32"):
        model = load_module(Path(args.bundle)).to(device).eval()

        def fp32(x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return model(x)
        return fp32, "", None
    pins = json.loads(Path(args.pins).read_text())
    if variant == "fp16-reduce-overhead":  # PyTorch's own compile + CUDA graphs over the same FP16 module
        module = inference_module(load_module(Path(args.bundle)), "fp16", pins).to(device)
        module = module.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        compiled = torch.compile(module, mode="reduce-overhead")

        def overhead(x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return compiled(x.to(torch.float16).contiguous(memory_format=torch.channels_last)).float().clone()
        return overhead, "", None
    if variant in ("shipped", "shipped-tiered"):  # the bundle as the convert step wrote it, loaded as a replica does
        from mlkit.engine.runtime import load_engine

        # a tiered start: uncompiled (eager + CUDA graphs) first; run_variant then swaps the compiled one in
        runner: Any = load_engine(Path(args.engine_bundle), device=device, compiled=variant == "shipped")
        runner.warm()
        note = "" if runner.compiled else f"served uncompiled: {runner.compile_plan.note or 'not compiled'}"
        engine = runner._engine
        return engine.forward, note, runner
    engine = load_torch_engine(Path(args.bundle), precision="fp16", fp32_modules=pins, device=device,
                               max_batch=args.batch, input_shape=shape, cuda_graphs=device == "cuda",
                               compile_mode=args.compile_mode)
    engine.warm()  # compile + capture every bucket now
    note = f"torch.compile failed, measured without it: {engine.compile_error}" if engine.compile_error else ""
    return engine.forward, note, None


def _upgrade_while_serving(args: argparse.Namespace, serve: Any, x1: torch.Tensor) -> tuple[Any, str, dict[str, Any]]:
    """A tiered start's second half, as a replica does it: the compiled engine loads and compiles its batch
    sizes in a thread while this one keeps serving batch-1 requests uncompiled; this thread then captures its
    CUDA graphs and the compiled engine is timed."""
    import threading

    from mlkit.engine.runtime import load_engine

    loaded: list[Any] = []
    thread = threading.Thread(target=lambda: loaded.append(_compiled(load_engine(Path(args.engine_bundle),
                                                                                 device=args.device))))
    thread.start()
    served, slowest = 0, 0.0
    while thread.is_alive():
        start = time.perf_counter()
        serve(x1)
        _sync(args.device)
        slowest, served = max(slowest, time.perf_counter() - start), served + 1
    thread.join()
    if not loaded:
        raise SystemExit("the compiled engine failed to load")
    runner = loaded[0]
    runner.warm()  # the captures, in the serving thread
    note = "" if runner.compiled else f"served uncompiled: {runner.compile_plan.note or 'not compiled'}"
    return runner._engine.forward, note, {"compiled_after_s": time.time() - args.t_launch,
                                          "served_while_compiling": served,
                                          "slowest_ms_while_compiling": slowest * 1000}


def _compiled(runner: Any) -> Any:
    runner.compile_buckets()
    return runner


def run_variant(args: argparse.Namespace) -> dict[str, Any]:
    """Child process: load one variant, time it, record its memory and its logits on the eval inputs."""
    from steps.convert_trt.evaluators.torch_evaluator import no_tf32
    from steps.convert_trt.measure import nvml_process_mb

    device = args.device
    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    rss_before = _rss_mb()
    if device == "cuda":
        torch.cuda.init()
        torch.cuda.reset_peak_memory_stats()
    shape = (3, args.image_size, args.image_size)
    fn, note, _runner = _child_module(args, shape)
    ready_s = time.time() - args.t_launch
    inputs = np.load(args.inputs)
    tf32 = contextlib.nullcontext() if args.child == "fp32-tf32" else no_tf32()
    upgrade: dict[str, Any] = {}
    with tf32:
        x1 = torch.from_numpy(inputs[:1]).to(device)
        xb = torch.from_numpy(np.resize(inputs, (args.batch, *shape))).to(device)
        fn(x1)
        _sync(device)
        first_inference_s = time.time() - args.t_launch
        if args.child == "shipped-tiered":
            fn, note, upgrade = _upgrade_while_serving(args, fn, x1)
        fn(xb)
        _sync(device)
        latency = _median_seconds(fn, x1, args.iterations, device)
        per_batch = _median_seconds(fn, xb, max(5, args.iterations // 4), device)
        logits = [fn(torch.from_numpy(inputs[i:i + args.batch]).to(device)).float().cpu().numpy()
                  for i in range(0, len(inputs), args.batch)]
    _sync(device)
    result = {
        "variant": args.child, "latency_ms_b1": latency * 1000, "throughput_b64": args.batch / per_batch,
        "ready_s": ready_s, "first_inference_s": first_inference_s, "compile_note": note, **upgrade,
        "peak_allocated_mb": torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else None,
        "steady_allocated_mb": torch.cuda.memory_allocated() / 2**20 if device == "cuda" else None,
        "nvml_process_mb": nvml_process_mb() if device == "cuda" else None,
        "rss_growth_mb": _rss_mb() - rss_before,
    }
    np.save(args.logits_out, np.concatenate(logits))
    return result


def build_engine(args: argparse.Namespace) -> dict[str, Any]:
    """Child process: the convert step's build of the PyTorch engine (compiled once on a GPU), as a bundle."""
    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.torch_backend import TorchBackend
    from mlkit.engine.inspect import ModelInfo, Profile, TensorInfo
    from steps.convert_trt.bundle import write_engine_bundle
    from steps.convert_trt.config import PrecisionConfig

    pins = json.loads(Path(args.pins).read_text())
    shape = (3, args.image_size, args.image_size)
    backend = TorchBackend(Path(args.bundle), device=args.device, compile_mode=args.compile_mode,
                           input_shape=shape, max_batch=args.batch)
    engine = backend.build(None, PrecisionPlan("fp16", tuple(pins)), Path(args.engine_bundle))
    profile = Profile((1, *shape), (args.batch, *shape), (args.batch, *shape))
    info = ModelInfo((TensorInfo("input", "float32", ("N", *shape)),),
                     (TensorInfo("logits", "float32", ("N", args.classes)),), (), 0, {"input": profile})
    write_engine_bundle(Path(args.engine_bundle), engine=engine, info=info, config=PrecisionConfig(),
                        model_bundle=Path(args.bundle))
    return dict(engine.manifest["runtime"])


def aoti_child(args: argparse.Namespace) -> dict[str, Any]:
    """Child process: AOTInductor — export + package (``--child aoti-build``) or load and time (``aoti``)."""
    from mlkit.engine.backends.torch_backend import inference_module, load_module

    device, package = args.device, Path(args.engine_bundle) / "model.pt2"
    shape = (3, args.image_size, args.image_size)
    if args.child == "aoti-build":
        start = time.perf_counter()
        pins = json.loads(Path(args.pins).read_text())
        module = inference_module(load_module(Path(args.bundle)), "fp16", pins).to(device)
        module = module.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        example = torch.zeros((args.batch, *shape), device=device, dtype=torch.float16)
        example = example.contiguous(memory_format=torch.channels_last)
        batch = torch.export.Dim("batch", min=1, max=args.batch)
        with torch.no_grad():
            exported = torch.export.export(module, (example,), dynamic_shapes=({0: batch},))
            torch._inductor.aoti_compile_and_package(exported, package_path=str(package))
        return {"build_s": time.perf_counter() - start, "package_mb": package.stat().st_size / 2**20}
    loaded = torch._inductor.aoti_load_package(str(package))

    def run(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return loaded(x.to(torch.float16).contiguous(memory_format=torch.channels_last)).float()
    ready_s = time.time() - args.t_launch
    inputs = np.load(args.inputs)
    x1 = torch.from_numpy(inputs[:1]).to(device)
    xb = torch.from_numpy(np.resize(inputs, (args.batch, *shape))).to(device)
    run(x1)
    _sync(device)
    first = time.time() - args.t_launch
    latency = _median_seconds(run, x1, args.iterations, device)
    per_batch = _median_seconds(run, xb, max(5, args.iterations // 4), device)
    logits = [run(torch.from_numpy(inputs[i:i + args.batch]).to(device)).cpu().numpy()
              for i in range(0, len(inputs), args.batch)]
    np.save(args.logits_out, np.concatenate(logits))
    return {"variant": "aoti", "latency_ms_b1": latency * 1000, "throughput_b64": args.batch / per_batch,
            "ready_s": ready_s, "first_inference_s": first, "compile_note": "",
            "peak_allocated_mb": torch.cuda.max_memory_allocated() / 2**20,
            "steady_allocated_mb": torch.cuda.memory_allocated() / 2**20, "nvml_process_mb": None,
            "rss_growth_mb": 0.0}


def _build_model(arch: str, num_classes: int, image_size: int, seed: int) -> torch.nn.Module:
    """The classifier with non-trivial weights: random BN gains, BN statistics warmed on random images."""
    from mlkit.model import build_model

    torch.manual_seed(seed)
    model = build_model(arch, num_classes)
    generator = torch.Generator().manual_seed(seed)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            torch.nn.init.uniform_(module.weight, 0.5, 1.5, generator=generator)
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(16, 3, image_size, image_size, generator=generator))
    return model.eval()


def _child_cmd(variant: str, args: argparse.Namespace, work: Path, compile_mode: str | None,
               logits_path: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", variant, "--bundle", str(work),
            "--engine-bundle", str(work / "engine"), "--inputs", str(work / "inputs.npy"),
            "--pins", str(work / "pins.json"), "--logits-out", str(logits_path), "--device", args.device,
            "--image-size", str(args.image_size), "--batch", str(args.batch), "--iterations", str(args.iterations),
            "--classes", str(args.classes), "--t-launch", repr(time.time()),
            "--compile-mode", compile_mode or "none"]  # the child must not fall back to its own default


def _run_child(variant: str, args: argparse.Namespace, work: Path, compile_mode: str | None = None,
               fresh_caches: bool = False, required: bool = True) -> tuple[dict[str, Any], np.ndarray | None]:
    """Run one child; ``fresh_caches``: empty inductor/Triton cache dirs (only the bundle's cache can help)."""
    logits_path = work / f"logits_{variant}_{compile_mode or 'none'}.npy"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if fresh_caches:
        fresh = Path(tempfile.mkdtemp(prefix=f"caches-{variant}-", dir=work))
        env.update(TORCHINDUCTOR_CACHE_DIR=str(fresh / "inductor"), TRITON_CACHE_DIR=str(fresh / "triton"))
    try:
        proc = subprocess.run(_child_cmd(variant, args, work, compile_mode, logits_path), capture_output=True,
                              text=True, cwd=REPO, timeout=args.child_timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        if required:
            raise SystemExit(f"{variant} run timed out after {args.child_timeout} s") from None
        return {"error": f"timed out after {args.child_timeout} s"}, None
    if proc.returncode != 0:
        if required:
            raise SystemExit(f"{variant} run failed:\n{proc.stderr[-4000:]}")
        signal_name = f" (signal {-proc.returncode})" if proc.returncode < 0 else ""
        return {"error": f"exit code {proc.returncode}{signal_name}: {proc.stderr.strip()[-300:]}"}, None
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result, (np.load(logits_path) if logits_path.is_file() else None)


def _row(name: str, res: dict[str, Any], batch: int) -> dict[str, Any]:
    return {"variant": name, "latency_ms_b1": res["latency_ms_b1"], f"throughput_b{batch}": res["throughput_b64"],
            "peak_allocated_mb": res["peak_allocated_mb"], "steady_allocated_mb": res["steady_allocated_mb"],
            "nvml_process_mb": res["nvml_process_mb"], "rss_growth_mb": res["rss_growth_mb"],
            "ready_s": res["ready_s"], "first_inference_s": res["first_inference_s"], "note": res["compile_note"]}


def _ratios(res: dict[str, Any], fp32: dict[str, Any], logits: np.ndarray, ref_logits: np.ndarray,
            memory_key: str) -> dict[str, Any]:
    """An engine against eager FP32 (TF32 off): speed and memory ratios, errors of the logits."""
    err = np.abs(logits.astype(np.float64) - ref_logits)
    return {
        "throughput_ratio_b64": res["throughput_b64"] / fp32["throughput_b64"],
        "latency_ratio_b1": res["latency_ms_b1"] / fp32["latency_ms_b1"],
        "memory_ratio": (res[memory_key] / fp32[memory_key]) if fp32[memory_key] else None,
        "memory_ratio_nvml": (res["nvml_process_mb"] / fp32["nvml_process_mb"]) if fp32["nvml_process_mb"] else None,
        "median_abs_error": float(np.median(err)), "max_abs_error": float(err.max()),
        "top1_agreement": float(np.mean(logits.argmax(1) == ref_logits.argmax(1))),
    }


def _write_model_bundle(work: Path, args: argparse.Namespace) -> None:
    from mlkit.model import IMAGENET_MEAN, IMAGENET_STD, model_config, save_weights

    model = _build_model(args.arch, args.classes, args.image_size, seed=0)
    save_weights(model, work / "model.safetensors")
    (work / "model_config.json").write_text(json.dumps(model_config(args.arch, args.classes)))
    (work / "classes.json").write_text(json.dumps([f"class-{i}" for i in range(args.classes)]))
    (work / "preprocess.json").write_text(json.dumps({"input_name": "input", "input_size": args.image_size,
                                                      "mean": list(IMAGENET_MEAN), "std": list(IMAGENET_STD)}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="CPU smoke test: resnet_tiny, 32 px, batch 8, no compile")
    parser.add_argument("--arch", default=None)
    parser.add_argument("--image-size", type=int, default=None)
    parser.add_argument("--batch", type=int, default=None, help="throughput batch (64)")
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--eval-images", type=int, default=None, help="images the logits error is measured on")
    parser.add_argument("--calibration", type=int, default=None, help="debugger calibration images")
    parser.add_argument("--compile-mode", default=None,
                        help="torch.compile mode the engine is compiled with at conversion (GPU default "
                             "'default'; CUDA graphs are captured by the engine itself); 'none' ships it uncompiled")
    parser.add_argument("--no-aoti", action="store_true", help="skip the AOTInductor package rows")
    parser.add_argument("--no-restart", action="store_true", help="skip the rolling-restart-under-load check")
    parser.add_argument("--device", default=None)
    parser.add_argument("--child-timeout", type=int, default=420)
    parser.add_argument("--child", choices=("fp32", "fp32-tf32", "fp16", "fp16-reduce-overhead", "build", "shipped",
                                            "shipped-tiered",
                                            "aoti-build", "aoti"), help=argparse.SUPPRESS)
    parser.add_argument("--bundle", help=argparse.SUPPRESS)
    parser.add_argument("--engine-bundle", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", help=argparse.SUPPRESS)
    parser.add_argument("--pins", help=argparse.SUPPRESS)
    parser.add_argument("--logits-out", help=argparse.SUPPRESS)
    parser.add_argument("--classes", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--t-launch", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    gpu = torch.cuda.is_available()
    args.device = args.device or ("cuda" if gpu and not args.quick else "cpu")
    args.arch = args.arch or ("resnet_tiny" if args.quick else "resnet50")
    args.classes = args.classes or (1000 if args.arch == "resnet50" else 10)
    args.image_size = args.image_size or (32 if args.quick else 224)
    args.batch = args.batch or (8 if args.quick else 64)
    args.iterations = args.iterations or (10 if args.quick else 50)
    if args.compile_mode is None:
        args.compile_mode = None if args.quick or args.device != "cuda" else "default"
    elif args.compile_mode == "none":
        args.compile_mode = None
    if args.child:
        child = {"build": build_engine, "aoti-build": aoti_child, "aoti": aoti_child}.get(args.child, run_variant)
        print(json.dumps(child(args)))
        return

    from bench.results_io import write_result
    from steps.convert_trt.comparator import Tolerance
    from steps.convert_trt.debugger.loop import debug_precision
    from steps.convert_trt.evaluators.torch_evaluator import TorchEvaluator

    started = time.perf_counter()
    eval_images = args.eval_images or (16 if args.quick else 256)
    calibration = args.calibration or (8 if args.quick else 16)
    on_gpu = args.device == "cuda"
    with tempfile.TemporaryDirectory(prefix="aipipe-convert-bench-") as tmp:
        work = Path(tmp)
        _write_model_bundle(work, args)
        rng = np.random.default_rng(0)
        inputs = rng.standard_normal((eval_images, 3, args.image_size, args.image_size)).astype(np.float32)
        np.save(work / "inputs.npy", inputs)

        debug_start = time.perf_counter()
        from mlkit.engine.backends.torch_backend import load_module

        evaluator = TorchEvaluator(load_module(work), device=args.device, batch=8)
        calib = rng.standard_normal((calibration, 3, args.image_size, args.image_size)).astype(np.float32)
        found = debug_precision(evaluator, calib, Tolerance(1e-2, 1e-2, "mean"), precision="fp16")
        debug_s = time.perf_counter() - debug_start
        del evaluator
        if on_gpu:
            torch.cuda.empty_cache()
        (work / "pins.json").write_text(json.dumps(list(found.plan.fp32_layers)))

        fp32, ref_logits = _run_child("fp32", args, work)
        assert ref_logits is not None
        measured: list[tuple[str, str, dict[str, Any], np.ndarray | None]] = [
            ("pytorch eager fp32 (tf32 off)", "", fp32, ref_logits),
            ("pytorch eager fp32 (PyTorch defaults: tf32 convolutions)", "", *_run_child("fp32-tf32", args, work))]
        build_start = time.perf_counter()
        runtime, _ = _run_child("build", args, work, args.compile_mode)
        build_s = time.perf_counter() - build_start
        pins = len(found.plan.fp32_layers)
        graphs = "on" if on_gpu else "off"
        if on_gpu:
            measured.append(("fp16 engine, uncompiled (eager + cuda graphs)", "_uncompiled",
                             *_run_child("fp16", args, work)))
            measured.append(("fp16 module, torch.compile(mode='reduce-overhead')", "_reduce_overhead",
                             *_run_child("fp16-reduce-overhead", args, work)))
        if args.compile_mode:
            measured.append((f"fp16 engine, torch.compile({args.compile_mode}) + cuda graphs, compiled in process "
                             "(static shapes, the reference)", "_compiled", *_run_child("fp16", args, work,
                                                                                        args.compile_mode)))
        shipped_name = (f"shipped fp16 engine (pins={pins}, BN folded, compile={runtime.get('compile_mode')}, cuda "
                        f"graphs={graphs}; fresh process, empty inductor cache, bundle's compile cache)")
        measured.append((shipped_name, "", *_run_child("shipped", args, work, fresh_caches=True)))
        aoti: dict[str, Any] = {}
        if on_gpu and not args.no_aoti:
            aoti, _ = _run_child("aoti-build", args, work, required=False)
            if "error" not in aoti:
                res, logits = _run_child("aoti", args, work, fresh_caches=True, required=False)
                if "error" in res:
                    aoti["load_error"] = res["error"]
                else:
                    measured.append(("fp16 AOTInductor package (torch.export, dynamic batch)", "_aoti", res, logits))
        restart: dict[str, Any] = {}
        if on_gpu and not args.no_restart and runtime.get("compile_mode"):
            from bench.replica_restart import measure_rolling_restart

            try:
                restart = measure_rolling_restart(work / "engine", replicas=2, workers=4, concurrency=32)
            except Exception as exc:  # the rows above still get written
                restart = {"error": f"{type(exc).__name__}: {exc}"[:500]}

    memory_key = "peak_allocated_mb" if on_gpu else "rss_growth_mb"
    rows = [_row(name, res, args.batch) for name, _, res, _ in measured]
    summary: dict[str, Any] = {}
    for _, suffix, res, logits in measured[2:]:
        if logits is not None:
            summary.update({f"{key}{suffix}": value
                            for key, value in _ratios(res, fp32, logits, ref_logits, memory_key).items()})
    by_suffix = {suffix: res for name, suffix, res, _ in measured[2:]}
    shipped, tf32 = by_suffix[""], measured[1][2]
    summary["throughput_ratio_vs_tf32"] = shipped["throughput_b64"] / tf32["throughput_b64"]
    if "_compiled" in by_suffix:
        summary["throughput_vs_compiled_b64"] = shipped["throughput_b64"] / by_suffix["_compiled"]["throughput_b64"]
        summary["latency_vs_compiled_b1"] = shipped["latency_ms_b1"] / by_suffix["_compiled"]["latency_ms_b1"]
    summary.update({"shipped_ready_s": shipped["ready_s"], "shipped_first_inference_s": shipped["first_inference_s"],
                    "shipped_compiled": not shipped["compile_note"], "engine_runtime": runtime,
                    "engine_build_s": round(build_s, 1)})
    if restart and "error" not in restart:
        summary["replica_ready_s"] = max(restart["replica_ready_s"] + restart["replica_first_start_s"])
        summary["failed_during_restart"] = restart["failed_during_restart"]
    if restart:
        summary["rolling_restart"] = restart
    if aoti:
        summary["aoti"] = aoti
    summary.update({
        "debugger_evaluations": found.report["evaluations"], "debugger_pins": list(found.plan.fp32_layers),
        "debugger_success": found.success, "debugger_seconds": round(debug_s, 1),
        "memory_measure": memory_key, "compile_mode": args.compile_mode or "none", "arch": args.arch,
        "image_size": args.image_size, "batch": args.batch, "device": args.device, "quick": args.quick,
        "wall_s": round(time.perf_counter() - started, 1),
        "goals": {"throughput_vs_compiled_b64": ">= 0.95", "latency_vs_compiled_b1": "<= 1.05",
                  "throughput_ratio_vs_tf32": ">= 3", "replica_ready_s": "<= 10", "failed_during_restart": "== 0",
                  "median_abs_error": "<= 1e-3", "top1_agreement": ">= 0.999", "memory_ratio": "<= 0.5"},
    })
    write_result("convert_bench" + ("_quick" if args.quick else ""), rows, summary)


if __name__ == "__main__":
    main()
