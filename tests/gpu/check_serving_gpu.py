"""GPU check of the serving runtime (run by the lead on the GPU machine; CPU-only CI skips it).

    PYTHONPATH=. python3 tests/gpu/check_serving_gpu.py

1. a capped service (PyTorch FP16 engine, CUDA graphs) serves correct predictions; its GPU process
   reports the CUDA context measured through NVML, and its NVML footprint stays within the cap;
2. a second service whose cap is too small for its engine fails alone with a clear error (exit 2)
   while the first keeps answering 200;
3. killing the first service's GPU process under load: answers are 200 or a fast 503, none hangs,
   and it serves again within 15 s (a real CUDA restart: context, engine load, graph capture).
Prints one JSON line; exits 1 when a check fails.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def post(url: str, data: bytes, timeout: float = 20.0) -> tuple[int, float, dict]:
    started = time.monotonic()
    request = urllib.request.Request(url + "/v1/predict", data=data, headers={"Content-Type": "image/jpeg"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, time.monotonic() - started, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, time.monotonic() - started, {}
    except OSError:
        return -1, time.monotonic() - started, {}


def jpeg(seed: int, size: int = 256) -> bytes:
    from PIL import Image

    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray((rng.random((size, size, 3)) * 255).astype(np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def main() -> int:
    from mlkit.engine.runtime import load_engine
    from steps.convert_trt.fixtures import write_tiny_engine_bundle
    from steps.deploy.server import ServerConfig, launch
    from steps.deploy.server.imaging import Preprocessor
    from steps.deploy.server.slots import segments

    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "no CUDA GPU"}))
        return 0
    results: dict[str, object] = {"gpu": torch.cuda.get_device_name(0)}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="aipipe-serving-gpu-") as tmp:
        engine = write_tiny_engine_bundle(Path(tmp) / "engine", backend="pytorch", precision="fp16",
                                          num_classes=5, image_size=224, max_batch=64)
        cap_mb = 4096
        srv = launch(ServerConfig(engine_dir=str(engine), port=0, cpu_workers=2, gpu_procs=1, device="cuda",
                                  gpu_memory_mb_per_proc=cap_mb, request_timeout_s=10), timeout_s=300)
        prefix = srv.get_json("/v1/info")[1]["shm_prefix"]
        try:
            # 1. correct answers, memory within the cap
            data = jpeg(1)
            status, _, answer = post(srv.url, data)
            pre = Preprocessor(json.loads((engine / "preprocess.json").read_text()))
            logits = load_engine(engine, "cpu").infer(pre.tensor(data)[None])[0].astype(np.float64)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            results["predict_status"] = status
            served = {p["index"]: p["probability"] for p in answer.get("predictions", [])}
            if status != 200 or any(abs(served[i] - probs[i]) > 0.02 for i in served):
                failures.append(f"prediction {status} {answer} does not match the CPU reference {probs.round(3)}")
            info = srv.get_json("/v1/info")[1]["gpu_processes"][0]["info"]
            results["replica"] = info
            memory = info.get("memory", {})
            if not memory.get("capped"):
                failures.append(f"replica not capped: {memory}")
            footprint = memory.get("footprint_mb")
            if footprint is not None and footprint > cap_mb:
                failures.append(f"footprint {footprint} MiB exceeds the cap {cap_mb} MiB")

            # 2. a second service with a cap too small fails alone
            ok_during: list[int] = []
            stop = threading.Event()

            def keep_asking() -> None:
                while not stop.is_set():
                    ok_during.append(post(srv.url, data)[0])
                    time.sleep(0.05)

            asker = threading.Thread(target=keep_asking, daemon=True)
            asker.start()
            try:  # 600 MiB: about the CUDA context alone, far from the engine's batch-64 graphs
                small = subprocess.run(
                    [sys.executable, "-m", "steps.deploy.server", "--engine-dir", str(engine), "--port", "0",
                     "--device", "cuda", "--cpu-workers", "1", "--gpu-memory-mb-per-proc", "600"],
                    capture_output=True, text=True, timeout=240, cwd=REPO,
                    env={**os.environ, "PYTHONPATH": str(REPO)})
                exit_code, stderr = small.returncode, small.stderr
            except subprocess.TimeoutExpired as exc:
                exit_code, stderr = None, str(exc.stderr or "")
            stop.set()
            asker.join(30)
            last_line = (stderr.strip().splitlines() or [""])[-1]
            results["small_cap"] = {"exit": exit_code, "error": last_line,
                                    "other_service_codes": sorted(set(ok_during)), "asked": len(ok_during)}
            if exit_code != 2 or "engine" not in last_line:
                failures.append(f"under-capped service: exit {exit_code}, {last_line!r}")
            if set(ok_during) != {200}:
                failures.append(f"the healthy service answered {sorted(set(ok_during))} while the other failed")

            # 3. kill the GPU process under load
            victim = srv.get_json("/v1/info")[1]["gpu_processes"][0]["pid"]
            records: list[tuple[float, int, float]] = []
            stop = threading.Event()

            def load() -> None:
                while not stop.is_set():
                    started = time.monotonic()
                    code, seconds, _ = post(srv.url, data)
                    records.append((started, code, seconds))
                    if code != 200:
                        time.sleep(0.05)

            threads = [threading.Thread(target=load, daemon=True) for _ in range(8)]
            for t in threads:
                t.start()
            time.sleep(2)
            killed = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            recovered = None
            while time.monotonic() - killed < 30 and recovered is None:
                done = [s + d for s, c, d in list(records) if c == 200 and s > killed + 0.2]
                recovered = min(done) - killed if done else None
                time.sleep(0.1)
            time.sleep(1)
            stop.set()
            for t in threads:
                t.join(30)
            codes = sorted({c for _, c, _ in records})
            slowest = max(d for _, _, d in records)
            results["kill"] = {"recovered_s": recovered, "codes": codes, "slowest_s": round(slowest, 2)}
            if recovered is None or recovered > 15:
                failures.append(f"not serving again within 15 s after the kill ({recovered})")
            if not set(codes) <= {200, 503} or slowest > 12:
                failures.append(f"during the kill: codes {codes}, slowest {slowest:.1f} s")
        finally:
            srv.stop()
        if segments(prefix):
            failures.append(f"shared memory left: {segments(prefix)}")
    results["failures"] = failures
    print(json.dumps(results, default=str))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
