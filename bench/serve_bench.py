"""Serving benchmark: the naive single-process server vs our CPU/GPU-separated runtime.

Same model (ResNet-50, 1000 classes, 224 px; ``--quick``: resnet_tiny at 64 px), same JPEG requests
(320 px, generated here), same loopback load generator (aiohttp clients in separate processes). QPS
and p50/p99 latency at each concurrency for:

- (a) ``naive``: one process decodes and infers each request serially in PyTorch FP32, batch 1;
- (b) ``ours-fp32``: our server, PyTorch-backend engine in FP32;
- (c) ``ours-fp16``: our server, PyTorch-backend engine in FP16;
- (d) ``packing``: N memory-capped services (FP16, one GPU process each) on one GPU vs one such service,
  each with the same CPU workers; NVML per-process memory is sampled during the load and checked
  against each cap.

Engine bundles are built here with the conversion step's own code (``write_model_bundle`` +
``TorchBackend`` + ``write_engine_bundle``; ``--quick`` uses its ONNX Runtime backend instead). Run from
the repo root: ``python3 bench/serve_bench.py`` (GPU, about 5 minutes) or ``python3 bench/serve_bench.py
--quick`` (CPU smoke, about a minute).

The module also holds the loopback load generator the serving tests use (:func:`run_mixed`).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import math
import multiprocessing as mp
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.results_io import write_result  # noqa: E402

CTX = mp.get_context("spawn")


# --- requests ---------------------------------------------------------------------------------------
def make_jpegs(count: int, size: int = 320, seed: int = 0) -> list[bytes]:
    """Photo-like JPEGs (smooth gradients, shapes and noise), quality 90."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(seed)
    out = []
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    for _ in range(count):
        base = np.stack([np.sin(xx * rng.uniform(1, 6) + rng.uniform(0, 6)) * 0.5 + 0.5 for _ in range(3)], axis=-1)
        base = base * rng.uniform(0.4, 1.0, size=3) + (yy[..., None] * rng.uniform(-0.3, 0.3, size=3))
        noise = rng.normal(0, 0.04, size=base.shape)
        image = Image.fromarray((np.clip(base + noise, 0, 1) * 255).astype(np.uint8))
        draw = ImageDraw.Draw(image)
        for _ in range(6):
            x0, y0 = rng.integers(0, size - 40, size=2)
            w, h = rng.integers(20, size // 2, size=2)
            color = tuple(int(v) for v in rng.integers(0, 255, 3))
            draw.ellipse((int(x0), int(y0), int(x0 + w), int(y0 + h)), fill=color)
        buf = io.BytesIO()
        image.save(buf, "JPEG", quality=90)
        out.append(buf.getvalue())
    return out


# --- load generator ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Payload:
    """One request body; ``good`` ones must get 200, bad ones a 4xx."""

    data: bytes
    content_type: str
    good: bool = True
    label: str = "good"


async def _post_loop(session: Any, url: str, payloads: Sequence[Payload], offset: int, next_index: Callable[[], int],
                     record: Callable[[Payload, int, float, float], None], stop_at: float | None) -> None:
    import aiohttp

    while True:
        i = next_index()
        if i < 0 or (stop_at is not None and time.monotonic() >= stop_at):
            return
        payload = payloads[(i + offset) % len(payloads)]
        started = time.monotonic()
        try:
            async with session.post(url, data=payload.data, headers={"Content-Type": payload.content_type}) as resp:
                await resp.read()
                status = resp.status
        except (TimeoutError, aiohttp.ClientError):
            status = -1
        record(payload, status, started, time.monotonic())


async def _load(url: str, payloads: Sequence[Payload], concurrency: int, *, total: int | None = None,
                stop_at: float | None = None, offset: int = 0, timeout_s: float = 60.0,
                on_count: Callable[[int], None] | None = None) -> list[tuple[str, bool, int, float, float]]:
    """Run ``concurrency`` clients until ``total`` requests were sent or ``stop_at`` (monotonic) passed."""
    import aiohttp

    counter = iter(range(total if total is not None else 1 << 62))
    records: list[tuple[str, bool, int, float, float]] = []

    def next_index() -> int:
        return next(counter, -1)

    def record(payload: Payload, status: int, started: float, ended: float) -> None:
        records.append((payload.label, payload.good, status, started, ended))
        if on_count is not None:
            on_count(len(records))

    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(_post_loop(session, url, payloads, offset + k, next_index, record, stop_at)
                               for k in range(concurrency)))
    return records


def run_mixed(url: str, payloads: Sequence[Payload], concurrency: int, total: int,
              on_count: Callable[[int], None] | None = None) -> list[tuple[str, bool, int, float, float]]:
    """Send ``total`` requests (payloads in turn) at ``concurrency``; returns (label, good, status, start, end)."""
    return asyncio.run(_load(url + "/v1/predict", payloads, concurrency, total=total, on_count=on_count))


def _client_process(url: str, payloads: list[Payload], concurrency: int, offset: int, start_at: float,
                    stop_at: float, conn: Any) -> None:
    while time.monotonic() < start_at - 0.001:
        time.sleep(min(0.05, start_at - time.monotonic()))
    records = asyncio.run(_load(url, payloads, concurrency, stop_at=stop_at, offset=offset))
    conn.send([(r[2], r[3], r[4]) for r in records])
    conn.close()


def measure(url: str, payloads: list[Payload], concurrency: int, *, warmup_s: float, duration_s: float,
            procs: int) -> dict[str, Any]:
    """Closed-loop load from ``procs`` client processes; QPS and latency over the measured window."""
    procs = max(1, min(procs, concurrency))
    start_at = time.monotonic() + 1.5  # let the clients import
    window = (start_at + warmup_s, start_at + warmup_s + duration_s)
    children = []
    for k in range(procs):
        share = concurrency // procs + (1 if k < concurrency % procs else 0)
        read, write = CTX.Pipe(duplex=False)
        proc = CTX.Process(target=_client_process, args=(url + "/v1/predict", payloads, share, k * 7919, start_at,
                                                         window[1], write), daemon=True)
        proc.start()
        write.close()
        children.append((proc, read))
    records: list[tuple[int, float, float]] = []
    for proc, read in children:
        records += read.recv()
        proc.join(30)
    inside = [(s, a, b) for s, a, b in records if window[0] <= b <= window[1]]  # completions in the window
    ok = np.array([b - a for s, a, b in inside if s == 200])
    errors = sum(1 for s, _, _ in inside if s != 200)
    return {"concurrency": concurrency, "requests": len(inside), "errors": errors,
            "qps": round(len(ok) / duration_s, 1),
            "p50_ms": round(float(np.percentile(ok, 50)) * 1000, 2) if len(ok) else math.nan,
            "p99_ms": round(float(np.percentile(ok, 99)) * 1000, 2) if len(ok) else math.nan}


# --- bundles -----------------------------------------------------------------------------------------
def build_bundles(work: Path, arch: str, image_size: int, num_classes: int, precisions: Sequence[str],
                  max_batch: int, backend: str = "pytorch") -> tuple[Path, dict[str, Path]]:
    """A model bundle (random weights) and one engine bundle per precision (``backend``: pytorch | onnxruntime)."""
    import torch

    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.onnx_fp16 import OnnxRuntimeBackend
    from mlkit.engine.backends.torch_backend import TorchBackend
    from mlkit.engine.inspect import inspect_model, load_onnx
    from mlkit.export import write_model_bundle
    from mlkit.model import build_model, model_config, preprocess_spec
    from steps.convert_trt.bundle import write_engine_bundle
    from steps.convert_trt.config import PrecisionConfig

    torch.manual_seed(0)
    model = build_model(arch, num_classes).eval()
    classes = [f"class_{i:04d}" for i in range(num_classes)]
    model_dir = write_model_bundle(work / "model", model, model_config(arch, num_classes), classes,
                                   preprocess_spec(image_size))
    onnx_model = load_onnx(model_dir / "model.onnx")
    info = inspect_model(onnx_model, expected_input="input", batch=(1, max_batch // 2, max_batch))
    engines = {}
    for precision in precisions:
        builder = TorchBackend(model_dir) if backend == "pytorch" else OnnxRuntimeBackend()
        built = builder.build(onnx_model, PrecisionPlan(precision), work / f"build-{precision}")
        engines[precision] = write_engine_bundle(work / f"engine-{precision}", engine=built, info=info,
                                                 config=PrecisionConfig(), model_bundle=model_dir,
                                                 model_version=f"bench-{precision}")
    return model_dir, engines


# --- (a) the naive server -------------------------------------------------------------------------------
def _naive_server(model_dir: str, device: str, sock: socket.socket, ready: Any) -> None:
    """aiohttp app whose handler decodes and infers inline: one request at a time, batch 1, FP32."""
    import torch
    from aiohttp import web
    from PIL import Image

    from mlkit.engine.backends.torch_backend import load_module

    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    root = Path(model_dir)
    model = load_module(root).to(device).eval()
    spec = json.loads((root / "preprocess.json").read_text())
    classes = json.loads((root / "classes.json").read_text())
    size = int(spec["input_size"])
    mean = torch.tensor(spec["mean"], device=device).view(1, 3, 1, 1)
    std = torch.tensor(spec["std"], device=device).view(1, 3, 1, 1)

    def infer(data: bytes) -> dict[str, Any]:
        image = Image.open(io.BytesIO(data)).convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
        x = torch.from_numpy(np.array(image)).to(device).permute(2, 0, 1).unsqueeze(0).float().div(255)
        with torch.inference_mode():
            probs = torch.softmax(model((x - mean) / std), dim=1)[0]
            top = torch.topk(probs, min(5, probs.shape[0]))
        values, indices = top.values.cpu().tolist(), top.indices.cpu().tolist()
        return {"predictions": [{"class": classes[i], "index": i, "probability": p}
                                for i, p in zip(indices, values, strict=True)]}

    async def predict(request: web.Request) -> web.Response:
        return web.json_response(infer(await request.read()))

    sample = make_jpegs(1, seed=99)[0]
    for _ in range(5):
        infer(sample)
    app = web.Application(client_max_size=8 * 1024 * 1024)
    app.add_routes([web.post("/v1/predict", predict)])
    ready.send("ready")
    web.run_app(app, sock=sock, access_log=None, print=None, handle_signals=True)


class NaiveServer:
    def __init__(self, model_dir: Path, device: str) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        read, write = CTX.Pipe(duplex=False)
        self.proc = CTX.Process(target=_naive_server, args=(str(model_dir), device, self.sock, write), daemon=True)
        self.proc.start()
        if not read.poll(300) or read.recv() != "ready":
            raise RuntimeError("naive server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.join(10)
        self.sock.close()


# --- (d) GPU memory per process ----------------------------------------------------------------------
class NvmlSampler:
    """Peak NVML memory per process on GPU 0 while running (empty when NVML is unavailable)."""

    def __init__(self) -> None:
        self.peak: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception:
            return
        try:
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            while not self._stop.is_set():
                for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                    used = (proc.usedGpuMemory or 0) / 2**20
                    self.peak[proc.pid] = max(self.peak.get(proc.pid, 0.0), used)
                self._stop.wait(0.2)
        finally:
            pynvml.nvmlShutdown()

    def __enter__(self) -> NvmlSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def gpu_pids(server: Any) -> list[int]:
    return [int(g["pid"]) for g in server.get_json("/v1/info")[1]["gpu_processes"]]


def footprint_mb(server: Any) -> float | None:
    info = server.get_json("/v1/info")[1]["gpu_processes"][0].get("info", {})
    value = info.get("memory", {}).get("footprint_mb")
    return float(value) if value is not None else None


# --- the benchmark --------------------------------------------------------------------------------------
def start_ours(engine_dir: Path, *, workers: int, gpu_procs: int, device: str, cap_mb: int = 0,
               max_batch: int = 64, log: Any = None) -> Any:
    from steps.deploy.server import ServerConfig, launch

    config = ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=workers, gpu_procs=gpu_procs,
                          device=device, gpu_memory_mb_per_proc=cap_mb, max_batch=max_batch, max_delay_ms=2.0,
                          queue_size=512, request_timeout_s=30.0)
    return launch(config, timeout_s=300, log=log)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny model on CPU, short runs (smoke test)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--duration", type=float, help="measured seconds per point")
    parser.add_argument("--services", type=int, help="services packed on one GPU in (d)")
    args = parser.parse_args(argv)

    import torch

    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    quick = args.quick
    arch, size, classes, max_batch = ("resnet_tiny", 32, 10, 16) if quick else ("resnet50", 224, 1000, 64)
    concurrencies = [8] if quick else [32, 64]
    duration = args.duration or (1.5 if quick else 8.0)
    warmup = 0.5 if quick else 3.0
    n_services = args.services or (2 if quick else 4)
    client_procs = 1 if cpus <= 4 else min(4, cpus // 4)
    gpu_procs = 1 if quick else 2
    workers = min(16, max(1, cpus - 2 - gpu_procs - client_procs))  # the rest after proxy, GPU procs, clients
    workers_d = max(1, (cpus - client_procs) // (3 * n_services))  # proxy + GPU process + workers per service
    log = sys.stderr
    rows: list[dict[str, Any]] = []

    print(f"serve_bench: device={device} cpus={cpus} workers={workers} gpu_procs={gpu_procs} "
          f"services={n_services}x{workers_d} workers, {arch}@{size}", file=log, flush=True)
    jpegs = make_jpegs(32 if quick else 64, size=320)
    payloads = [Payload(d, "image/jpeg") for d in jpegs]
    with tempfile.TemporaryDirectory(prefix="aipipe-serve-bench-") as tmp:
        started = time.monotonic()
        # --quick: ONNX Runtime engines (fast to start on CPU, where PyTorch FP16 crawls); else PyTorch (CUDA graphs)
        model_dir, engines = build_bundles(Path(tmp), arch, size, classes, ("fp32", "fp16"), max_batch,
                                           backend="onnxruntime" if quick else "pytorch")
        print(f"serve_bench: bundles built in {time.monotonic() - started:.0f} s", file=log, flush=True)

        def run_points(name: str, url: str, extra: dict[str, Any]) -> None:
            for conc in concurrencies:
                row = {"config": name, **measure(url, payloads, conc, warmup_s=warmup, duration_s=duration,
                                                 procs=client_procs), **extra}
                rows.append(row)
                print(f"serve_bench: {row}", file=log, flush=True)

        errors: list[str] = []

        def phase(name: str, fn: Callable[[], None]) -> None:
            """Run one configuration; a failure is recorded and the others still run."""
            try:
                fn()
            except Exception as exc:
                errors.append(f"{name}: {type(exc).__name__}: {exc}")
                print(f"serve_bench: {name} failed: {exc!r}", file=log, flush=True)

        def naive_points() -> None:
            naive = NaiveServer(model_dir, device)
            try:
                run_points("a-naive-fp32", naive.url, {"workers": 0, "gpu_procs": 1})
            finally:
                naive.stop()

        footprints: dict[str, float | None] = {}

        def our_points(label: str, precision: str) -> None:
            server = start_ours(engines[precision], workers=workers, gpu_procs=gpu_procs, device=device,
                                max_batch=max_batch, log=log)
            try:
                run_points(label, server.url, {"workers": workers, "gpu_procs": gpu_procs})
                footprints[precision] = footprint_mb(server)
            finally:
                server.stop()

        phase("a-naive-fp32", naive_points)
        phase("b-ours-fp32", lambda: our_points("b-ours-fp32", "fp32"))
        phase("c-ours-fp16", lambda: our_points("c-ours-fp16", "fp16"))
        cap_mb = int(math.ceil((footprints.get("fp16") or 4096) * 1.25 / 64) * 64) if device == "cuda" else 0
        packing: dict[str, Any] = {"rows": [], "single_qps": math.nan, "aggregate_qps": math.nan, "peak_mb": [],
                                   "pids_matched": False}

        def packing_points() -> None:
            packing.update(pack(engines["fp16"], payloads, n_services, workers_d, cap_mb, device, max_batch,
                                concurrencies[-1] // 2, warmup, duration, client_procs, log))

        phase("d-packing", packing_points)
        rows += packing["rows"]

    summary = summarize(rows, concurrencies, packing, n_services, cap_mb)
    summary["fp16_footprint_mb"] = footprints.get("fp16")
    summary["errors"] = errors
    write_result("serve_bench" + ("_quick" if quick else ""), rows, summary)


def pack(engine: Path, payloads: list[Payload], n: int, workers: int, cap_mb: int, device: str, max_batch: int,
         concurrency: int, warmup: float, duration: float, client_procs: int, log: Any) -> dict[str, Any]:
    """(d): one capped service alone, then ``n`` capped services at once, each under the same load."""
    from concurrent.futures import ThreadPoolExecutor

    per_service_clients = max(1, client_procs // n)
    one = start_ours(engine, workers=workers, gpu_procs=1, device=device, cap_mb=cap_mb, max_batch=max_batch,
                     log=log)
    try:
        single = measure(one.url, payloads, concurrency, warmup_s=warmup, duration_s=duration,
                         procs=per_service_clients)
    finally:
        one.stop()
    servers: list[Any] = []
    try:
        with ThreadPoolExecutor(n) as pool:  # start them side by side
            futures = [pool.submit(start_ours, engine, workers=workers, gpu_procs=1, device=device, cap_mb=cap_mb,
                                   max_batch=max_batch, log=log) for _ in range(n)]
        servers = [f.result() for f in futures if f.exception() is None]
        failed = [f.exception() for f in futures if f.exception() is not None]
        if failed:
            raise RuntimeError(f"{len(failed)} of {n} capped services failed to start: {failed[0]}")
        pids = [pid for s in servers for pid in gpu_pids(s)]
        results: list[dict[str, Any]] = [{} for _ in servers]

        def drive(k: int) -> None:
            results[k] = measure(servers[k].url, payloads, concurrency, warmup_s=warmup, duration_s=duration,
                                 procs=per_service_clients)

        with NvmlSampler() as sampler:
            threads = [threading.Thread(target=drive, args=(k,)) for k in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        for s in servers:
            s.stop()
    ours = {pid: mb for pid, mb in sampler.peak.items() if pid in pids}
    seen = ours or sampler.peak  # another pid namespace: every process on the GPU is one of ours
    rows = [{"config": "d-one-service", **single, "workers": workers, "gpu_procs": 1, "cap_mb": cap_mb}]
    for k, res in enumerate(results):
        rows.append({"config": f"d-service-{k + 1}-of-{n}", **res, "workers": workers, "gpu_procs": 1,
                     "cap_mb": cap_mb})
    return {"rows": rows, "single_qps": single["qps"], "aggregate_qps": sum(r["qps"] for r in results),
            "peak_mb": sorted(seen.values()), "pids_matched": bool(ours)}


def _worst(values: list[float]) -> float:
    """The largest value; NaN when any is missing (a missing point cannot pass a goal)."""
    return math.nan if any(not math.isfinite(v) for v in values) else max(values)


def summarize(rows: list[dict[str, Any]], concurrencies: Sequence[int], packing: dict[str, Any], n: int,
              cap_mb: int) -> dict[str, Any]:
    missing = {"qps": math.nan, "p50_ms": math.nan, "p99_ms": math.nan}

    def point(config: str, conc: int) -> dict[str, Any]:
        return next((r for r in rows if r["config"] == config and r["concurrency"] == conc), missing)

    def ratio(a: float, b: float) -> float:
        return round(a / b, 2) if b and math.isfinite(a) and math.isfinite(b) else math.nan

    top = concurrencies[-1]
    summary: dict[str, Any] = {
        "qps_ratio_fp32": ratio(point("b-ours-fp32", top)["qps"], point("a-naive-fp32", top)["qps"]),
        "qps_ratio_fp16": ratio(point("c-ours-fp16", top)["qps"], point("a-naive-fp32", top)["qps"]),
        "p99_fp16_over_naive_p50": _worst([ratio(point("c-ours-fp16", c)["p99_ms"], point("a-naive-fp32", c)["p50_ms"])
                                           for c in concurrencies]),
        f"packing_ratio_{n}": ratio(packing["aggregate_qps"], packing["single_qps"]),
        "packing_services": n,
        "packing_cap_mb": cap_mb,
        "packing_peak_gpu_mb": packing["peak_mb"],
        "packing_pids_matched": packing["pids_matched"],
        "packing_within_cap": bool(cap_mb) and all(mb <= cap_mb for mb in packing["peak_mb"]) and bool(
            packing["peak_mb"]),
        "ratios_at_concurrency": top,
    }
    for conc in concurrencies:
        naive_qps = point("a-naive-fp32", conc)["qps"]
        summary[f"qps_ratio_fp16_c{conc}"] = ratio(point("c-ours-fp16", conc)["qps"], naive_qps)
        summary[f"qps_ratio_fp32_c{conc}"] = ratio(point("b-ours-fp32", conc)["qps"], naive_qps)
    summary["goals"] = {
        "fp32_6x": summary["qps_ratio_fp32"] >= 6, "fp16_10x": summary["qps_ratio_fp16"] >= 10,
        "p99_fp16_le_naive_p50": summary["p99_fp16_over_naive_p50"] <= 1,
        f"packing_{n}_ge_{0.875 * n:g}x": summary[f"packing_ratio_{n}"] >= 0.875 * n,
        "packing_within_cap": summary["packing_within_cap"],
    }
    return summary


if __name__ == "__main__":
    main()
