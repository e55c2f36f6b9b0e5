"""Measure one loaded engine replica in a fresh process: memory footprint, latency at b=1, throughput at b=64.

Run as ``python -m steps.convert_trt.measure BUNDLE_DIR [--device D]``; prints one JSON line.
On a GPU the footprint is this process's GPU memory read through NVML (pynvml) — the CUDA
context included, since the process starts without one. On CPU it is the growth of the
process's resident set (RSS) from before loading the engine to after its first inference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mlkit.engine.runtime import load_engine, resolve_device


def rss_mb() -> float:
    """Resident set size of this process (MiB), from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


def nvml_process_mb(device_index: int = 0) -> float | None:
    """GPU memory NVML attributes to this process (MiB), or None when NVML cannot tell."""
    try:
        import pynvml
    except ImportError:
        return None
    pynvml.nvmlInit()
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
        for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
            if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                return proc.usedGpuMemory / 2**20
        return None
    finally:
        pynvml.nvmlShutdown()


def _timed(fn: Any, batch: np.ndarray, iterations: int) -> float:
    """Median seconds per call after a warm-up."""
    for _ in range(3):
        fn(batch)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn(batch)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure(bundle: Path, device: str, iterations: int = 20) -> dict[str, Any]:
    device = resolve_device(device)
    before = rss_mb()
    runner = load_engine(bundle, device=device)
    shape = (1, *runner.input_shape)
    rng = np.random.default_rng(0)
    runner.infer(rng.random(shape, dtype=np.float32))
    if device == "cuda":
        import torch

        torch.cuda.synchronize()
        used = nvml_process_mb()
        method = "nvml-process" if used is not None else "torch-reserved"
        if used is None:  # no NVML: tensors only, the CUDA context is missing from this figure
            used = torch.cuda.memory_reserved() / 2**20
    else:
        used, method = rss_mb() - before, "cpu-rss-growth"
    b64 = min(64, runner.max_batch)
    latency = _timed(runner.infer, rng.random(shape, dtype=np.float32), iterations)
    per_batch = _timed(runner.infer, rng.random((b64, *runner.input_shape), dtype=np.float32), max(3, iterations // 4))
    runner.close()
    return {"memory_mb": round(used, 1), "memory_method": method, "device": device,
            "latency_ms_b1": round(latency * 1000, 3), "throughput_b64": round(b64 / per_batch, 1),
            "throughput_batch": b64}


def measure_in_subprocess(bundle: Path, device: str, timeout_s: float = 600) -> dict[str, Any]:
    """Run :func:`measure` in a fresh interpreter so the footprint is that of one replica alone."""
    root = str(Path(__file__).resolve().parents[2])  # where the ``steps`` package lives
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-m", f"{__package__}.measure", str(bundle), "--device", device],
                          capture_output=True, text=True, timeout=timeout_s, check=False,
                          env={**os.environ, "PYTHONPATH": path})
    if proc.returncode != 0:
        raise RuntimeError(f"measuring the engine failed: {proc.stderr.strip()[-2000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {__package__}.measure", description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.bundle, args.device, args.iterations)))


if __name__ == "__main__":
    main()
