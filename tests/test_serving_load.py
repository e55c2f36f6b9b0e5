"""Bounded load: 10,000 mixed good/bad requests at concurrency 64 on loopback (``slow``; runs in CI).

Good requests must never get a 5xx, bad ones get their 4xx, and the service's memory (RSS of the
proxy and all its children) must grow by less than 50 MB between request 5,000 and 10,000.
"""

from __future__ import annotations

import base64
import io
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.loadgen import Payload, run_mixed
from steps.deploy.server import ServerConfig, launch

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

TOTAL = 10_000
CONCURRENCY = 64


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and all its descendants, from /proc."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024
        todo += [int(c) for c in children]
    return total


def payloads() -> list[Payload]:
    rng = np.random.default_rng(0)

    def image(fmt: str, size: int) -> bytes:
        buf = io.BytesIO()
        Image.fromarray((rng.random((size, size, 3)) * 255).astype(np.uint8)).save(buf, fmt)
        return buf.getvalue()

    png, jpeg = image("PNG", 40), image("JPEG", 64)
    as_json = json.dumps({"image": base64.b64encode(png).decode(), "top_k": 2}).encode()
    return [
        Payload(png, "image/png"), Payload(jpeg, "image/jpeg"), Payload(as_json, "application/json"),
        Payload(image("PNG", 24), "image/png"), Payload(jpeg, "image/jpeg"), Payload(png, "image/png"),
        Payload(b"\xff\xd8\xff\xe0 broken jpeg", "image/jpeg", good=False, label="malformed"),
        Payload(png, "text/plain", good=False, label="content-type"),
        Payload(b"\x00" * 80_000, "image/png", good=False, label="oversize"),
        Payload(b'{"image": "not base64!"}', "application/json", good=False, label="bad-base64"),
    ]


EXPECTED = {"malformed": 400, "content-type": 400, "oversize": 413, "bad-base64": 400}


def test_ten_thousand_mixed_requests(tmp_path: Path) -> None:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    engine = write_tiny_engine_bundle(tmp_path / "engine", num_classes=3, image_size=32)
    srv = launch(ServerConfig(engine_dir=str(engine), port=0, cpu_workers=1, gpu_procs=1, device="cpu",
                              max_body_mb=0.05, queue_size=256, request_timeout_s=30))
    rss: dict[int, float] = {}

    def on_count(n: int) -> None:
        if n in (TOTAL // 2, TOTAL):
            rss[n] = tree_rss_mb(srv.pid)

    try:
        started = time.monotonic()
        records = run_mixed(srv.url, payloads(), CONCURRENCY, TOTAL, on_count=on_count)
        elapsed = time.monotonic() - started
        assert srv.get_json("/healthz")[0] == 200
    finally:
        assert srv.stop() == 0
    assert len(records) == TOTAL
    good = Counter(status for _, is_good, status, _, _ in records if is_good)
    bad = Counter((label, status) for label, is_good, status, _, _ in records if not is_good)
    print(f"{TOTAL} requests in {elapsed:.1f} s ({TOTAL / elapsed:.0f}/s); good: {dict(good)}; bad: {dict(bad)}; "
          f"RSS MB at 5k/10k: {rss}")
    assert set(good) == {200}, f"good requests got {dict(good)}"
    assert all(status == EXPECTED[label] for label, status in bad), dict(bad)
    assert rss[TOTAL] - rss[TOTAL // 2] < 50, rss
