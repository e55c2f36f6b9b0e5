"""GPU check: a serving replica queues the next batch without waiting for the one in flight.

    PYTHONPATH=. python3 tests/gpu/check_replica_no_sync.py

With PyTorch's sync debug mode set to ``error``, the replica's path from decoded JPEGs to a launched batch
(:class:`~steps.deploy.server.replica_decode.JpegDecoder` on one size and on mixed sizes, the rows put together
with the workers' tensors, the refused rows taken out) must not synchronize the stream the engine runs on.
nvJPEG's own wait for its decoding stream (inside torchvision) is not PyTorch's and is not flagged. Then a
timing: while a long kernel holds the engine's stream, queueing a decoded batch must return before that kernel
ends; and a second batch decoded meanwhile must not write over the first one's images, which the first batch's
resize (queued behind the kernel) has not read yet. Prints one JSON line; exits 1 when a check fails.
"""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def jpeg(seed: int, size: int) -> np.ndarray:
    from PIL import Image

    rng = np.random.default_rng(seed)
    image = Image.fromarray((rng.random((size, size, 3)) * 255).astype(np.uint8))
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=90)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8).copy()


def main() -> int:
    from steps.deploy.server.replica_decode import JpegDecoder, put_rows, take_rows

    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "no CUDA GPU"}))
        return 0
    pre = {"input_size": 224, "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}
    decoder = JpegDecoder("cuda", pre)
    one_size = [jpeg(s, 320) for s in range(16)]
    mixed = [jpeg(s, 320 if s % 2 else 256) for s in range(16)]
    decoder.decode(one_size)  # the first call creates nvJPEG's state and allocator blocks
    results: dict[str, object] = {}
    torch.cuda.set_sync_debug_mode("error")
    try:
        for name, blobs in (("one size", one_size), ("mixed sizes", mixed)):
            try:
                decoded = decoder.decode(blobs)
                batch = torch.empty((20, 3, 224, 224), device="cuda")
                put_rows(batch, [0, 2, *range(5, 19)], decoded.batch)
                take_rows(batch, [0, 2, 7, 9])
                results[name] = "no sync"
            except RuntimeError as exc:
                results[name] = f"synchronized: {exc}"[:300]
    finally:
        torch.cuda.set_sync_debug_mode("default")
    reference = decoder.decode(mixed).batch.clone()
    queue_s, total_s, results["first_batch_intact"] = overlapped(decoder, mixed, one_size, reference)
    results["queue_ms"], results["kernel_ms"] = round(1000 * queue_s, 1), round(1000 * total_s, 1)
    # the same without a stream of its own for the images nor holding them: what the fix guards against
    stream, decoder.alloc_stream = decoder.alloc_stream, None
    results["unguarded_first_batch_intact"] = overlapped(decoder, mixed, one_size, reference, hold=False)[2]
    decoder.alloc_stream = stream
    ok = (all(results[n] == "no sync" for n in ("one size", "mixed sizes")) and queue_s < total_s - 0.2
          and results["first_batch_intact"])
    results["passed"] = ok
    print(json.dumps(results))
    return 0 if ok else 1


def overlapped(decoder: object, first_blobs: list[np.ndarray], second_blobs: list[np.ndarray],
               reference: torch.Tensor, hold: bool = True) -> tuple[float, float, bool]:
    """Hold the engine's stream with a ~0.5 s kernel on one SM (not a GEMM over every SM, which would keep
    nvJPEG's own kernels waiting for SMs rather than for the stream), decode and queue a batch behind it, decode
    a second while the first one's resize still waits. Returns (seconds to queue the first, seconds until the
    stream is idle, whether the first batch came out as ``reference``)."""
    from steps.deploy.server.replica_decode import put_rows

    torch.cuda.synchronize()
    started = time.perf_counter()
    torch.cuda._sleep(1_000_000_000)  # cycles: about 0.5 s at the H100/H200's 1.98 GHz
    first = decoder.decode(first_blobs)  # type: ignore[attr-defined]
    if not hold:
        first.keep.clear()
    put_rows(torch.empty_like(first.batch), list(range(len(first_blobs) - 1, -1, -1)), first.batch)
    queued = time.perf_counter()
    decoder.decode(second_blobs)  # type: ignore[attr-defined]
    torch.cuda.synchronize()
    return queued - started, time.perf_counter() - started, bool(torch.equal(first.batch, reference))


if __name__ == "__main__":
    sys.exit(main())
