"""Replica pipeline benchmark: where a GPU replica's time goes between nvJPEG decode and the engine.

One process, no HTTP: the serving bench's photo-like 320-px JPEGs, ResNet-50 engines built as the convert step builds
them (compiled, CUDA graphs), and the replica's own decoder (:class:`JpegDecoder`). Rows per precision and batch:

- ``decode``: decode + resize + normalise back to back (torchvision's nvJPEG call returns only when the decode is done);
- ``engine``: the engine alone on an already decoded batch, two batches in flight;
- ``serial``: what the replica's batcher did in one thread: decode a batch, launch it, finish the oldest of two;
- ``threaded``: decoding on a thread of its own (its own stream) while the serving thread launches and finishes;
- ``launch_thread``: decode and launch on a thread of their own, the serving thread only finishing batches;
- with ``--nvimgcodec``, ``nvimg_decode`` and ``nvimg_serial``: ``decode`` and ``serial`` with nvImageCodec's decoder.

Each row gives images/s and the process's CPU per batch (CUDA's waits spin, so CPU tracks wall time here). A
diagnostic of our own replica, not a speed claim: the serving bench (:mod:`bench.serve_bench`) is where ours runs
beside the competent peer. GPU only; run from the repo root: ``python3 -m bench.replica_pipeline``.
"""

from __future__ import annotations

import argparse
import queue
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.loadgen import make_jpegs  # noqa: E402
from bench.results_io import write_result  # noqa: E402
from bench.serve_bench import build_bundles  # noqa: E402


def _timed(body: Any, seconds: float, batch: int) -> dict[str, float]:
    import torch

    body(3)  # warm
    torch.cuda.synchronize()
    wall, cpu, batches = time.perf_counter(), time.process_time(), 0
    while time.perf_counter() - wall < seconds:
        batches += body(20)
    torch.cuda.synchronize()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"img_per_s": round(batches * batch / wall, 1), "ms_per_batch": round(1000 * wall / batches, 3),
            "cpu_ms_per_batch": round(1000 * cpu / batches, 3)}


class NvImgDecoder:
    """nvImageCodec's decoder (hardware JPEG engines first) on a high-priority stream of its own, the caller's stream
    made to wait for it; resize and normalise as the replica's :class:`JpegDecoder` does. A probe, not the server's."""

    def __init__(self, resize_normalise: Any) -> None:
        import torch
        from nvidia import nvimgcodec

        self.codec = nvimgcodec
        self.decoder = nvimgcodec.Decoder(backend_kinds=[nvimgcodec.BackendKind.HW_GPU_ONLY,
                                                         nvimgcodec.BackendKind.GPU_ONLY])
        self.params = nvimgcodec.DecodeParams(color_spec=nvimgcodec.ColorSpec.RGB, apply_exif_orientation=False)
        low, high = torch.cuda.Stream().priority_range()
        self.stream = torch.cuda.Stream(priority=high)
        self.priority = (low, high)
        self.resize_normalise = resize_normalise

    def decode(self, blobs: list[np.ndarray]) -> Any:
        import torch

        current = torch.cuda.current_stream()
        with torch.cuda.stream(self.stream):
            images = self.decoder.decode([self.codec.CodeStream(b) for b in blobs], params=self.params,
                                         cuda_stream=self.stream.cuda_stream)
            pixels = torch.stack([torch.as_tensor(image, device="cuda") for image in images])  # N x H x W x 3
            batch = self.resize_normalise(pixels.permute(0, 3, 1, 2).float())
        current.wait_stream(self.stream)
        batch.record_stream(current)
        return batch


def two_in_flight(runner: Any, n: int, next_input: Callable[[], tuple[Any, Any]]) -> int:
    """Launch ``n`` batches from ``next_input`` (a batch and what must live until it is done), finishing the oldest
    whenever two are in flight, as the replica's batcher does; returns ``n``."""
    pending: deque[tuple[Any, Any]] = deque()
    for _ in range(n):
        if len(pending) >= 2:
            pending.popleft()[0].result()
        batch, keep = next_input()
        pending.append((runner.infer_async(batch), keep))
    while pending:
        pending.popleft()[0].result()
    return n


def measure(runner: Any, decoder: Any, blobs: list[np.ndarray], seconds: float,
            nvimg: NvImgDecoder | None = None) -> dict[str, dict[str, float]]:
    import torch

    batch = len(blobs)
    fixed = decoder.decode(blobs).batch

    def decode(n: int) -> int:
        for _ in range(n):
            decoder.decode(blobs)
        return n

    def engine(n: int) -> int:
        return two_in_flight(runner, n, lambda: (fixed, None))

    def serial(n: int) -> int:
        def decoded() -> tuple[Any, Any]:
            result = decoder.decode(blobs)
            return result.batch, result  # the decoded images are kept until their batch is done

        return two_in_flight(runner, n, decoded)

    prep = torch.cuda.Stream()

    def decode_thread(n: int, out: queue.Queue[Any]) -> None:
        with torch.cuda.stream(prep):
            for _ in range(n):
                decoded = decoder.decode(blobs)
                event = torch.cuda.Event()
                event.record(prep)
                out.put((decoded, event))

    def threaded(n: int) -> int:
        out: queue.Queue[Any] = queue.Queue(maxsize=2)
        thread = threading.Thread(target=decode_thread, args=(n, out))
        thread.start()
        pending: deque[Any] = deque()
        for _ in range(n):
            decoded, event = out.get()
            if len(pending) >= 2:
                pending.popleft()[0].result()
            torch.cuda.current_stream().wait_event(event)
            pending.append((runner.infer_async(decoded.batch), decoded))
        while pending:
            pending.popleft()[0].result()
        thread.join()
        return n

    def launch_thread(n: int, out: queue.Queue[Any]) -> None:
        for _ in range(n):
            decoded = decoder.decode(blobs)
            out.put((runner.infer_async(decoded.batch), decoded))

    def launching(n: int) -> int:
        out: queue.Queue[Any] = queue.Queue(maxsize=2)
        thread = threading.Thread(target=launch_thread, args=(n, out))
        thread.start()
        for _ in range(n):
            out.get()[0].result()
        thread.join()
        return n

    modes = [("decode", decode), ("engine", engine), ("serial", serial), ("threaded", threaded),
             ("launch_thread", launching)]
    if nvimg is not None:
        def nv_decode(n: int) -> int:
            for _ in range(n):
                nvimg.decode(blobs)
            return n

        def nv_serial(n: int) -> int:
            return two_in_flight(runner, n, lambda: (nvimg.decode(blobs), None))

        modes += [("nvimg_decode", nv_decode), ("nvimg_serial", nv_serial)]
    return {name: _timed(body, seconds, batch) for name, body in modes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--batches", default="16,32,48,64")
    parser.add_argument("--nvimgcodec", action="store_true",
                        help="also measure nvImageCodec's decoder (the nvidia-nvimgcodec and nvidia-nvjpeg wheels)")
    parser.add_argument("--switch-interval", type=float,
                        help="the interpreter's thread switch interval, seconds (sys.setswitchinterval; Python's "
                             "default 0.005: a thread whose GIL-free call returns may wait that long for the GIL "
                             "while another thread runs Python)")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    from mlkit.engine.runtime import TorchRunner, load_engine
    from mlkit.model import preprocess_spec
    from steps.deploy.server.gpu_worker import warm
    from steps.deploy.server.replica_decode import decoder_for

    jpegs = [np.frombuffer(j, dtype=np.uint8).copy() for j in make_jpegs(64, size=320)]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        _, engines = build_bundles(Path(tmp), "resnet50", 224, 1000, ("fp32", "fp16"), 64)
        decoder, why = decoder_for("cuda", preprocess_spec(224))
        if decoder is None:
            raise SystemExit(f"no GPU decoder: {why}")
        nvimg = NvImgDecoder(decoder._resize_normalise) if args.nvimgcodec else None
        if nvimg is not None:
            check = nvimg.decode(jpegs[:8])
            torch_ref = decoder.decode(jpegs[:8]).batch
            print("nvimgcodec: stream priorities", nvimg.priority, "max abs difference to torchvision's",
                  float((check - torch_ref).abs().max()), flush=True)
        for precision, engine_dir in engines.items():
            runner = load_engine(engine_dir, "cuda")
            if isinstance(runner, TorchRunner) and runner.compiled:
                runner.compile_buckets()
            warm(runner, 64)
            for batch in (int(b) for b in args.batches.split(",")):
                for mode, row in measure(runner, decoder, jpegs[:batch], args.seconds, nvimg).items():
                    rows.append({"precision": precision, "batch": batch, "mode": mode, **row})
                    print(rows[-1], flush=True)
            runner.close()
    best = {p: max(r["img_per_s"] for r in rows if r["precision"] == p and r["mode"] == "threaded")
            for p in ("fp32", "fp16")}
    serial = {p: max(r["img_per_s"] for r in rows if r["precision"] == p and r["mode"] == "serial")
              for p in ("fp32", "fp16")}
    write_result("replica_pipeline", rows, {"switch_interval_s": sys.getswitchinterval(),
        "threaded_fp16_img_per_s": best["fp16"], "serial_fp16_img_per_s": serial["fp16"],
        "threaded_fp32_img_per_s": best["fp32"], "serial_fp32_img_per_s": serial["fp32"]})


if __name__ == "__main__":
    main()
