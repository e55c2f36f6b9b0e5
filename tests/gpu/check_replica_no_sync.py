"""GPU check: a serving replica queues the next batch without waiting for the one in flight.

    PYTHONPATH=. python3 tests/gpu/check_replica_no_sync.py

With PyTorch's sync debug mode set to ``error``, the replica's path from decoded JPEGs to a launched batch
(:class:`~steps.deploy.server.replica_decode.JpegDecoder` on one size and on mixed sizes, the rows put together
with the workers' tensors, the refused rows taken out) must not synchronize the stream the engine runs on.
nvJPEG's own wait for its decoding stream (inside torchvision) is not PyTorch's and is not flagged. Then a
timing: while a long kernel runs, queueing a decoded batch must return before that kernel ends. Prints one JSON
line; exits 1 when a check fails.
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
    busy = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(20):
        busy = busy @ busy.T / 8192  # a few hundred ms of work queued on the stream
    queued = time.perf_counter()
    decoded = decoder.decode(mixed)
    put_rows(torch.empty_like(decoded.batch), list(range(15, -1, -1)), decoded.batch)
    returned = time.perf_counter()
    torch.cuda.synchronize()
    finished = time.perf_counter()
    results["queue_ms"] = round(1000 * (returned - queued), 1)
    results["kernel_ms"] = round(1000 * (finished - started), 1)
    ok = all(results[n] == "no sync" for n in ("one size", "mixed sizes")) and returned < finished - 0.05
    results["passed"] = ok
    print(json.dumps(results))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
