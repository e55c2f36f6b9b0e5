"""Benchmark: the FP16 engine (PyTorch backend with the debugger's pins, BatchNorms folded, CUDA graphs,
as the convert step ships it) vs PyTorch eager FP32 (TF32 disabled) on the same ResNet-50-sized
classifier at 224 px.

Measures latency at batch 1, throughput at batch 64, peak GPU memory (torch.cuda.max_memory_allocated
and NVML's per-process figure, CUDA context included) and the median abs error of the logits. A third
row runs the same engine under torch.compile (``--compile-mode``, default ``default``; ``none`` drops
the row); its ratios carry the suffix ``_compiled``. Engines ship uncompiled: a compiled replica
compiles one graph per batch bucket at every start (a killed replica came back in 8.9 s instead of 2.6 s).
Each variant runs in its own fresh process so memory figures belong to one replica alone. The
debugger runs first, on the GPU with the PyTorch evaluator, on synthetic calibration images (no
dataset travels to the GPU machine); its pins are what the FP16 engine applies.

    python3 bench/convert_bench.py            # GPU run (H100/H200), about a minute
    python3 bench/convert_bench.py --quick    # CPU smoke test (< 1 min): resnet_tiny, 32 px, no compile

Summary keys: throughput_ratio_b64, latency_ratio_b1, memory_ratio, median_abs_error, debugger_evaluations.
"""

from __future__ import annotations

import argparse
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


def run_variant(args: argparse.Namespace) -> dict[str, Any]:
    """Child process: load one variant, time it, record its memory and its logits on the eval inputs."""
    from steps.convert_trt.backends.torch_backend import load_module, load_torch_engine
    from steps.convert_trt.backends.torch_evaluator import no_tf32
    from steps.convert_trt.measure import nvml_process_mb

    device = args.device
    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    rss_before = _rss_mb()
    if device == "cuda":
        torch.cuda.init()
        torch.cuda.reset_peak_memory_stats()
    shape = (3, args.image_size, args.image_size)
    compile_note = ""
    if args.child == "fp32":
        model = load_module(Path(args.bundle)).to(device).eval()

        def fn(x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return model(x)
    else:
        pins = json.loads(Path(args.pins).read_text())
        engine = load_torch_engine(Path(args.bundle), precision="fp16", fp32_modules=pins, device=device,
                                   max_batch=args.batch, input_shape=shape, cuda_graphs=device == "cuda",
                                   compile_mode=args.compile_mode)
        engine.forward(torch.zeros((1, *shape), device=device))  # compile + capture now
        if engine.compile_error:  # the engine fell back to eager: say so in the row
            compile_note = f"torch.compile failed, measured without it: {engine.compile_error}"
        fn = engine.forward
    inputs = np.load(args.inputs)
    warm_start = time.perf_counter()
    with no_tf32():
        x1 = torch.from_numpy(inputs[:1]).to(device)
        xb = torch.from_numpy(np.resize(inputs, (args.batch, *shape))).to(device)
        fn(x1), fn(xb)
        _sync(device)
        warmup_s = time.perf_counter() - warm_start
        latency = _median_seconds(fn, x1, args.iterations, device)
        per_batch = _median_seconds(fn, xb, max(5, args.iterations // 4), device)
        logits = [fn(torch.from_numpy(inputs[i:i + args.batch]).to(device)).float().cpu().numpy()
                  for i in range(0, len(inputs), args.batch)]
    _sync(device)
    result = {
        "variant": args.child, "latency_ms_b1": latency * 1000, "throughput_b64": args.batch / per_batch,
        "warmup_s": warmup_s, "compile_note": compile_note,
        "peak_allocated_mb": torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else None,
        "nvml_process_mb": nvml_process_mb() if device == "cuda" else None,
        "rss_growth_mb": _rss_mb() - rss_before,
    }
    np.save(args.logits_out, np.concatenate(logits))
    return result


def _build_model(arch: str, num_classes: int, image_size: int, seed: int) -> torch.nn.Module:
    """The classifier with non-trivial weights: random BN gains, BN statistics warmed on random images."""
    from steps.train.model import build_model

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


def _run_child(variant: str, args: argparse.Namespace, work: Path,
               compile_mode: str | None = None) -> tuple[dict[str, Any], np.ndarray]:
    logits_path = work / f"logits_{variant}_{compile_mode or 'none'}.npy"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", variant, "--bundle", str(work),
           "--inputs", str(work / "inputs.npy"), "--pins", str(work / "pins.json"),
           "--logits-out", str(logits_path), "--device", args.device, "--image-size", str(args.image_size),
           "--batch", str(args.batch), "--iterations", str(args.iterations)]
    cmd += ["--compile-mode", compile_mode or "none"]  # the child must not fall back to its own default
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=args.child_timeout,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{variant} run failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), np.load(logits_path)


def _row(name: str, res: dict[str, Any], batch: int) -> dict[str, Any]:
    return {"variant": name, "latency_ms_b1": res["latency_ms_b1"], f"throughput_b{batch}": res["throughput_b64"],
            "peak_allocated_mb": res["peak_allocated_mb"], "nvml_process_mb": res["nvml_process_mb"],
            "rss_growth_mb": res["rss_growth_mb"], "warmup_s": res["warmup_s"], "note": res["compile_note"]}


def _ratios(res: dict[str, Any], fp32: dict[str, Any], logits: np.ndarray, ref_logits: np.ndarray,
            memory_key: str) -> dict[str, Any]:
    """The FP16 engine against eager FP32: speed and memory ratios, errors of the logits."""
    err = np.abs(logits.astype(np.float64) - ref_logits)
    return {
        "throughput_ratio_b64": res["throughput_b64"] / fp32["throughput_b64"],
        "latency_ratio_b1": res["latency_ms_b1"] / fp32["latency_ms_b1"],
        "memory_ratio": (res[memory_key] / fp32[memory_key]) if fp32[memory_key] else None,
        "memory_ratio_nvml": (res["nvml_process_mb"] / fp32["nvml_process_mb"]) if fp32["nvml_process_mb"] else None,
        "median_abs_error": float(np.median(err)), "max_abs_error": float(err.max()),
        "top1_agreement": float(np.mean(logits.argmax(1) == ref_logits.argmax(1))),
    }


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
                        help="torch.compile mode of the compiled FP16 row (GPU default 'default'; "
                             "'max-autotune-no-cudagraphs' tunes longer; CUDA graphs are captured by the "
                             "engine itself); 'none' drops that row")
    parser.add_argument("--device", default=None)
    parser.add_argument("--child-timeout", type=int, default=420)
    parser.add_argument("--child", choices=("fp32", "fp16"), help=argparse.SUPPRESS)
    parser.add_argument("--bundle", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", help=argparse.SUPPRESS)
    parser.add_argument("--pins", help=argparse.SUPPRESS)
    parser.add_argument("--logits-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    gpu = torch.cuda.is_available()
    args.device = args.device or ("cuda" if gpu and not args.quick else "cpu")
    args.arch = args.arch or ("resnet_tiny" if args.quick else "resnet50")
    args.image_size = args.image_size or (32 if args.quick else 224)
    args.batch = args.batch or (8 if args.quick else 64)
    args.iterations = args.iterations or (10 if args.quick else 50)
    if args.compile_mode is None:
        args.compile_mode = None if args.quick or args.device != "cuda" else "default"
    elif args.compile_mode == "none":
        args.compile_mode = None
    if args.child:
        print(json.dumps(run_variant(args)))
        return

    from bench.results_io import write_result
    from steps.convert_trt.backends.torch_evaluator import TorchEvaluator
    from steps.convert_trt.comparator import Tolerance
    from steps.convert_trt.debugger.loop import debug_precision
    from steps.train.model import model_config, save_weights

    started = time.perf_counter()
    eval_images = args.eval_images or (16 if args.quick else 256)
    calibration = args.calibration or (8 if args.quick else 16)
    with tempfile.TemporaryDirectory(prefix="aipipe-convert-bench-") as tmp:
        work = Path(tmp)
        model = _build_model(args.arch, 1000 if args.arch == "resnet50" else 10, args.image_size, seed=0)
        save_weights(model, work / "model.safetensors")
        (work / "model_config.json").write_text(json.dumps(model_config(args.arch, model.fc.out_features)))
        rng = np.random.default_rng(0)
        inputs = rng.standard_normal((eval_images, 3, args.image_size, args.image_size)).astype(np.float32)
        np.save(work / "inputs.npy", inputs)

        debug_start = time.perf_counter()
        evaluator = TorchEvaluator(model, device=args.device, batch=8)
        calib = rng.standard_normal((calibration, 3, args.image_size, args.image_size)).astype(np.float32)
        found = debug_precision(evaluator, calib, Tolerance(1e-2, 1e-2, "mean"), precision="fp16")
        debug_s = time.perf_counter() - debug_start
        del evaluator
        if args.device == "cuda":
            torch.cuda.empty_cache()
        (work / "pins.json").write_text(json.dumps(list(found.plan.fp32_layers)))

        fp32, ref_logits = _run_child("fp32", args, work)
        engines = [("off", "", *_run_child("fp16", args, work))]
        if args.compile_mode:
            engines.append((args.compile_mode, "_compiled", *_run_child("fp16", args, work, args.compile_mode)))

    memory_key = "peak_allocated_mb" if args.device == "cuda" else "rss_growth_mb"
    rows = [_row("pytorch eager fp32 (tf32 off)", fp32, args.batch)]
    summary: dict[str, Any] = {}
    for compile_name, suffix, res, logits in engines:
        rows.append(_row(f"fp16 engine (pins={len(found.plan.fp32_layers)}, BN folded, compile={compile_name}, "
                         f"cuda graphs={'on' if args.device == 'cuda' else 'off'})", res, args.batch))
        summary.update({f"{key}{suffix}": value
                        for key, value in _ratios(res, fp32, logits, ref_logits, memory_key).items()})
    summary.update({
        "debugger_evaluations": found.report["evaluations"], "debugger_pins": list(found.plan.fp32_layers),
        "debugger_success": found.success, "debugger_seconds": round(debug_s, 1),
        "memory_measure": memory_key, "compile_mode": args.compile_mode or "none", "arch": args.arch,
        "image_size": args.image_size, "batch": args.batch, "device": args.device, "quick": args.quick,
        "wall_s": round(time.perf_counter() - started, 1),
        "goals": {"throughput_ratio_b64": ">= 3", "memory_ratio": "<= 0.5", "median_abs_error": "<= 1e-3"},
    })
    write_result("convert_bench" + ("_quick" if args.quick else ""), rows, summary)


if __name__ == "__main__":
    main()
