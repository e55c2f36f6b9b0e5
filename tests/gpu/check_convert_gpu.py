"""GPU check of the convert step's PyTorch path (run by the lead on the GPU machine; CPU-only CI skips it).

    PYTHONPATH=. python3 tests/gpu/check_convert_gpu.py

1. the PyTorch FP16 engine bundle served through ``load_engine(device="cuda")`` (CUDA graphs per
   batch bucket) matches the FP32 source model for batches of 1, 5 and 64;
2. the debugger with the PyTorch evaluator on the GPU pins the FP16-overflowing layer;
3. one replica's footprint measured in a fresh process through NVML (CUDA context included).
Prints one JSON line; exits 1 when a check fails.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def main() -> int:
    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.torch_backend import load_module
    from mlkit.engine.runtime import load_engine
    from steps.convert_trt.comparator import Tolerance
    from steps.convert_trt.debugger.loop import debug_precision
    from steps.convert_trt.evaluators.torch_evaluator import TorchEvaluator
    from steps.convert_trt.fixtures import overflow_torch_model, write_tiny_engine_bundle
    from steps.convert_trt.measure import measure_in_subprocess

    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "no CUDA GPU"}))
        return 0
    results: dict[str, object] = {"gpu": torch.cuda.get_device_name(0)}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        bundle = write_tiny_engine_bundle(Path(tmp) / "engine", backend="pytorch", precision="fp16",
                                          compile_mode="default")  # the compiled runtime, with its fallback
        source = load_module(bundle)
        runner = load_engine(bundle, device="cuda")
        errors = {}
        for n in (1, 5, 64):
            batch = np.random.default_rng(n).random((n, 3, 32, 32)).astype(np.float32)
            with torch.no_grad():
                expected = source(torch.from_numpy(batch)).numpy()
            errors[n] = float(np.abs(runner.infer(batch) - expected).max())
        runner.close()
        results["runtime_max_abs_error"] = errors
        if max(errors.values()) > 2e-2:
            failures.append("pytorch fp16 runtime differs from the source model")
        results["measurement"] = measure_in_subprocess(bundle, "cuda")

    evaluator = TorchEvaluator(overflow_torch_model(), device="cuda", batch=8)
    inputs = np.random.default_rng(1).random((8, 3, 16, 16)).astype(np.float32)
    half = evaluator.run(PrecisionPlan("fp16"), inputs, ["l2norm"])["l2norm"]
    found = debug_precision(evaluator, inputs, Tolerance(1e-2, 1e-2, "mean"))
    results["overflow_inf_in_fp16"] = bool(np.isinf(half).any())
    results["debugger"] = {k: found.report[k] for k in ("success", "layers_pinned", "evaluations", "fp16_share")}
    if not found.success or list(found.plan.fp32_layers) not in (["l2norm"], evaluator.parents("l2norm")):
        failures.append("debugger did not pin the overflowing layer on the GPU")
    results["failures"] = failures
    print(json.dumps(results))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
