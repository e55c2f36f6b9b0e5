"""The inference server under attack: good-request throughput alone vs with attacking clients.

``clients`` good clients (a 40x40 PNG each request) run throughout in one process; windows alternate
between good clients alone and ``attackers`` more clients sending one worst-case body (a process per
attack), all closed loops on loopback (:func:`bench.loadgen._client_process`). Attacks:

- ``deep-json``: 100 KB of ``[`` (a JSON nesting bomb);
- ``huge-body``: a body just over the size limit;
- ``pixel-bomb``: a PNG whose header declares 100000x100000 pixels;
- ``png-40mp``: a 6300x6300 PNG of 130 KB (the issue's "just under the pixel limit"): over the decode budget;
- ``png-budget``: the costliest PNG still accepted (4500x4500, just under the decode budget);
- ``jpeg-40mp``: a 6300x6300 baseline JPEG (just under the pixel limit), draft-decoded.

Run from the repo root: ``python3 bench/serve_attack_bench.py`` (CPU, about a minute); the security tests
use :func:`attack_payloads` and :func:`run_schedule`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import math
import os
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.loadgen import CTX, Payload, _client_process, _load  # noqa: E402

ATTACKS = ("deep-json", "huge-body", "pixel-bomb", "png-40mp", "png-budget", "jpeg-40mp")


def good_payload(seed: int = 0) -> Payload:
    from PIL import Image

    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray((rng.random((40, 40, 3)) * 255).astype(np.uint8)).save(buf, "PNG")
    return Payload(buf.getvalue(), "image/png")


def png_bytes(width: int, height: int, *, idat: bytes | None = None) -> bytes:
    """A flat black RGB PNG written directly (fast for huge sizes); ``idat`` overrides the pixel data."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    if idat is None:
        compress = zlib.compressobj(9)
        row = bytes(1 + 3 * width)
        parts = [compress.compress(row) for _ in range(height)]
        idat = b"".join(parts) + compress.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def jpeg_bytes(width: int, height: int) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (90, 120, 30)).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def attack_payloads(max_body_bytes: int, names: tuple[str, ...] = ATTACKS) -> dict[str, Payload]:
    """The worst-case bodies, by attack name."""
    build = {
        "deep-json": lambda: Payload(b"[" * 100_000, "application/json", False, "deep-json"),
        "huge-body": lambda: Payload(b"x" * (max_body_bytes + 4096), "image/png", False, "huge-body"),
        "pixel-bomb": lambda: Payload(png_bytes(100_000, 100_000, idat=zlib.compress(bytes(100_000))),
                                      "image/png", False, "pixel-bomb"),
        "png-40mp": lambda: Payload(png_bytes(6300, 6300), "image/png", False, "png-40mp"),
        "png-budget": lambda: Payload(png_bytes(4500, 4500), "image/png", False, "png-budget"),
        "jpeg-40mp": lambda: Payload(jpeg_bytes(6300, 6300), "image/jpeg", False, "jpeg-40mp"),
    }
    return {name: build[name]() for name in names}


def _own_session() -> None:
    """Run as a session of its own: with Linux's autogroup scheduling each session gets its own share of
    the CPU, as a client on another machine would; in the caller's session an attacking client would
    take its CPU from the good clients' process rather than compete with the server."""
    with contextlib.suppress(OSError):
        os.setsid()


def _good_process(url: str, concurrency: int, start_at: float, stop_at: float, conn: Any) -> None:
    _own_session()
    _client_process(url, [good_payload()], concurrency, 0, start_at, stop_at, conn)


def _attack_process(url: str, payload: Payload, concurrency: int, windows: list[tuple[float, float]],
                    conn: Any) -> None:
    """``concurrency`` closed-loop clients sending ``payload`` during each window."""
    _own_session()
    records: list[tuple[int, float, float]] = []
    for start_at, stop_at in windows:
        time.sleep(max(0.0, start_at - time.monotonic()))
        records += [(r[2], r[3], r[4]) for r in asyncio.run(_load(url, [payload], concurrency, stop_at=stop_at))]
    conn.send(records)
    conn.close()


def _spawn(target: Any, *args: Any) -> Any:
    read, write = CTX.Pipe(duplex=False)
    proc = CTX.Process(target=target, args=(*args, write), daemon=True)
    proc.start()
    write.close()
    return proc, read


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (0 for any that is gone)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def run_schedule(url: str, attacks: list[Payload], *, clients: int = 8, attackers: int = 8, rounds: int = 3,
                 window_s: float = 1.0, settle_s: float = 0.25, server_pids: list[int] | None = None,
                 ) -> list[dict[str, Any]]:
    """Good clients throughout; windows alternate between good clients alone and one attack at a time.

    ``rounds`` times over: alone, attack 1, alone, attack 2, …, then alone once more. Each attack
    window's good throughput (completions after ``settle_s``) is compared with the mean of the two
    alone-windows around it: short interleaved windows cancel most of the drift of a shared machine's
    own load. Returns one row per attack, then one with the good requests that failed (of the whole run).
    """
    url = url + "/v1/predict"
    start_at = time.monotonic() + 2.5  # the client processes import meanwhile
    labels: list[int | None] = [j for _ in range(rounds) for i in range(len(attacks)) for j in (None, i)] + [None]
    bounds = [(start_at + 0.5 + k * window_s, start_at + 0.5 + (k + 1) * window_s) for k in range(len(labels))]
    good = _spawn(_good_process, url, clients, start_at, bounds[-1][1])
    bad = [_spawn(_attack_process, url, attack, attackers, [b for b, label in zip(bounds, labels, strict=True)
                                                             if label == i])
           for i, attack in enumerate(attacks)]
    cores = []
    for a, b in bounds:  # the server's CPU use per window, in cores
        time.sleep(max(0.0, a + settle_s - time.monotonic()))
        before = cpu_seconds(server_pids or [])
        time.sleep(max(0.0, b - time.monotonic()))
        cores.append((cpu_seconds(server_pids or []) - before) / (b - a - settle_s))
    outputs = []
    for proc, read in [good, *bad]:
        outputs.append(read.recv())
        proc.join(30)
    records = outputs[0]
    done = [[b - a for s, a, b in records if s == 200 and lo + settle_s <= b <= hi] for lo, hi in bounds]
    span = window_s - settle_s
    rows: list[dict[str, Any]] = []
    for i, attack in enumerate(attacks):
        mine = [k for k, label in enumerate(labels) if label == i]
        alone = sum((len(done[k - 1]) + len(done[k + 1])) / 2 for k in mine) / (span * len(mine))
        attacked = sum(len(done[k]) for k in mine) / (span * len(mine))
        ok = np.array([t for k in mine for t in done[k]])
        codes: dict[str, int] = {}
        for s, _, _ in outputs[i + 1]:
            codes[str(s)] = codes.get(str(s), 0) + 1
        rows.append({
            "attack": attack.label, "good_qps_alone": round(alone, 1), "good_qps_attacked": round(attacked, 1),
            "kept": round(attacked / alone, 2) if alone else math.nan,
            "good_p50_ms": round(float(np.percentile(ok, 50)) * 1000, 1) if len(ok) else math.nan,
            "good_p99_ms": round(float(np.percentile(ok, 99)) * 1000, 1) if len(ok) else math.nan,
            "attack_qps": round(len(outputs[i + 1]) / (window_s * len(mine)), 1), "attack_codes": codes,
            **({"server_cores_alone": round(sum(cores[k - 1] + cores[k + 1] for k in mine) / (2 * len(mine)), 2),
                "server_cores_attacked": round(sum(cores[k] for k in mine) / len(mine), 2)} if server_pids else {}),
        })
    failed: dict[str, int] = {}
    for s, _, _ in records:
        if s != 200:
            failed[str(s)] = failed.get(str(s), 0) + 1
    rows.append({"good_requests": len(records), "good_failed": failed})
    return rows


def server_pids(server: Any) -> list[int]:
    """The supervisor/proxy and its children."""
    info = server.get_json("/v1/info")[1]
    return [server.pid] + [c["pid"] for c in info["cpu_workers"] + info["gpu_processes"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=1.0, help="seconds per window")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--attackers", type=int, default=8)
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--max-body-mb", type=float, default=1.0)
    args = parser.parse_args(argv)
    from steps.convert_trt.fixtures import write_tiny_engine_bundle
    from steps.deploy.server import ServerConfig, launch

    with tempfile.TemporaryDirectory(prefix="aipipe-attack-bench-") as tmp:
        engine = write_tiny_engine_bundle(Path(tmp) / "bundle", num_classes=3, image_size=32)
        config = ServerConfig(engine_dir=str(engine), port=0, cpu_workers=2, device="cpu",
                              max_body_mb=args.max_body_mb)
        payloads = attack_payloads(config.max_body_bytes, tuple(args.attacks.split(",")))
        server = launch(config)
        try:
            rows = run_schedule(server.url, list(payloads.values()), clients=args.clients,
                                attackers=args.attackers, rounds=args.rounds, window_s=args.window,
                                server_pids=server_pids(server))
        finally:
            server.stop()
    for row in rows:
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
