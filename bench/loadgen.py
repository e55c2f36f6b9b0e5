"""The loopback load generator of the serving benchmarks and tests: photo-like JPEGs, closed-loop clients
in separate processes (optionally pinned to their own cores), and an open-loop client that sends at a fixed
rate and measures each latency from the moment the request was due (no coordinated omission). Requests go
over :mod:`bench.httpclient`'s lean keep-alive connections, so the clients cost little CPU next to a server."""

from __future__ import annotations

import asyncio
import io
import math
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.httpclient import HttpConnection, HttpError, build_post
from bench.proc_cpu import process_cpu_s

CTX = mp.get_context("spawn")
# Per open-loop client process: connections opened before the schedule starts, and the most it keeps. Without
# them, the first requests each open a connection at once and the client itself falls seconds behind its schedule
# (seen on the H200 host: 2 s of send lag, latencies of 1-5 s in the first seconds, the server's queues full).
# Past the limit a request waits in the client for a connection; its latency still counts from when it was due.
OPEN_LOOP_PREWARM = 32
OPEN_LOOP_CONNECTIONS = 128


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


async def _send(conn: HttpConnection, request: bytes, timeout_s: float) -> int:
    """One request on ``conn``: its status, or -1 when it failed or took longer than ``timeout_s``."""
    try:
        async with asyncio.timeout(timeout_s):
            return await conn.post(request)
    except (TimeoutError, HttpError):
        conn.close()  # what is left of a timed-out response must not be read as the next one's
        return -1


def post_requests(url: str, payloads: Sequence[Payload]) -> list[bytes]:
    """Each payload's whole POST to ``url``, built once and sent as is on every use."""
    return [build_post(url, p.data, p.content_type) for p in payloads]


async def _post_loop(url: str, requests: Sequence[bytes], payloads: Sequence[Payload], offset: int,
                     next_index: Callable[[], int], record: Callable[[Payload, int, float, float], None],
                     stop_at: float | None, timeout_s: float) -> None:
    """One closed-loop user on its own keep-alive connection."""
    conn = HttpConnection(url)
    try:
        while True:
            i = next_index()
            if i < 0 or (stop_at is not None and time.monotonic() >= stop_at):
                return
            k = (i + offset) % len(payloads)
            started = time.monotonic()
            status = await _send(conn, requests[k], timeout_s)
            record(payloads[k], status, started, time.monotonic())
    finally:
        conn.close()


async def _load(url: str, payloads: Sequence[Payload], concurrency: int, *, total: int | None = None,
                stop_at: float | None = None, offset: int = 0, timeout_s: float = 60.0,
                on_count: Callable[[int], None] | None = None) -> list[tuple[str, bool, int, float, float]]:
    """Run ``concurrency`` clients until ``total`` requests were sent or ``stop_at`` (monotonic) passed."""
    counter = iter(range(total if total is not None else 1 << 62))
    records: list[tuple[str, bool, int, float, float]] = []
    requests = post_requests(url, payloads)

    def next_index() -> int:
        return next(counter, -1)

    def record(payload: Payload, status: int, started: float, ended: float) -> None:
        records.append((payload.label, payload.good, status, started, ended))
        if on_count is not None:
            on_count(len(records))

    await asyncio.gather(*(_post_loop(url, requests, payloads, offset + k, next_index, record, stop_at, timeout_s)
                           for k in range(concurrency)))
    return records


def run_mixed(url: str, payloads: Sequence[Payload], concurrency: int, total: int,
              on_count: Callable[[int], None] | None = None) -> list[tuple[str, bool, int, float, float]]:
    """Send ``total`` requests (payloads in turn) at ``concurrency``; returns (label, good, status, start, end)."""
    return asyncio.run(_load(url + "/v1/predict", payloads, concurrency, total=total, on_count=on_count))


def _client_process(url: str, payloads: list[Payload], concurrency: int, offset: int, start_at: float,
                    stop_at: float, conn: Any, cores: Sequence[int] = ()) -> None:
    if cores:
        os.sched_setaffinity(0, set(cores))
    while time.monotonic() < start_at - 0.001:
        time.sleep(min(0.05, start_at - time.monotonic()))
    records = asyncio.run(_load(url, payloads, concurrency, stop_at=stop_at, offset=offset))
    conn.send([(r[2], r[3], r[4]) for r in records])
    conn.close()


def measure(url: str, payloads: list[Payload], concurrency: int, *, warmup_s: float, duration_s: float,
            procs: int, cores: Sequence[int] = (),
            window_probe: Callable[[], Sequence[float]] | None = None) -> dict[str, Any]:
    """Closed-loop load from ``procs`` client processes (on ``cores`` when given); QPS and latency over the
    measured window, and the cores the client processes kept busy over it (near ``procs``: the load generator, not
    the server, may be the limit). ``window_probe`` (e.g. the server's CPU seconds so far) is read as the window
    opens and as it closes; the differences come back as ``window_delta``, so they cover the measured requests
    only."""
    procs = max(1, min(procs, concurrency))
    start_at = time.monotonic() + 1.5  # let the clients import
    window = (start_at + warmup_s, start_at + warmup_s + duration_s)
    children = []
    for k in range(procs):
        share = concurrency // procs + (1 if k < concurrency % procs else 0)
        read, write = CTX.Pipe(duplex=False)
        proc = CTX.Process(target=_client_process, args=(url + "/v1/predict", payloads, share, k * 7919, start_at,
                                                         window[1], write, tuple(cores)), daemon=True)
        proc.start()
        write.close()
        children.append((proc, read))
    client_pids = [proc.pid for proc, _ in children if proc.pid is not None]

    def probe() -> list[float]:
        return [process_cpu_s(client_pids), *(window_probe() if window_probe is not None else ())]

    client_cpu, *probed = _probe_window(probe, window)
    records: list[tuple[int, float, float]] = []
    for proc, read in children:
        records += read.recv()
        proc.join(30)
    inside = [(s, a, b) for s, a, b in records if window[0] <= b <= window[1]]  # completions in the window
    result = {"concurrency": concurrency, **_stats([(s, b - a) for s, a, b in inside], duration_s),
              "client_procs": procs, "client_cores_busy": round(client_cpu / duration_s, 2)}
    return result if window_probe is None else {**result, "window_delta": probed}


def _probe_window(probe: Callable[[], Sequence[float]], window: tuple[float, float]) -> list[float]:
    """``probe()`` at the window's end minus at its start (this thread sleeps until each edge)."""
    readings: list[Sequence[float]] = []
    for edge in window:
        time.sleep(max(0.0, edge - time.monotonic()))
        readings.append(probe())
    return [end - start for start, end in zip(readings[0], readings[1], strict=True)]


def _stats(results: list[tuple[int, float]], duration_s: float) -> dict[str, Any]:
    ok = np.array([t for s, t in results if s == 200])
    return {"requests": len(results), "errors": sum(1 for s, _ in results if s != 200),
            "qps": round(len(ok) / duration_s, 1),
            "p50_ms": round(float(np.percentile(ok, 50)) * 1000, 2) if len(ok) else math.nan,
            "p99_ms": round(float(np.percentile(ok, 99)) * 1000, 2) if len(ok) else math.nan}


async def _open_loop(url: str, payloads: Sequence[Payload], rate: float, warmup_s: float, duration_s: float,
                     conn: Any, timeout_s: float = 60.0) -> list[tuple[int, float, float]]:
    """Open :data:`OPEN_LOOP_PREWARM` connections, say so on ``conn`` and receive the start time; then send at
    ``rate`` per second from it, each latency counted from when its request was due. Returns (status, latency,
    how late the client sent it) for the requests due in the measured window: a large lag means the load
    generator, not the server, fell behind."""
    requests = post_requests(url, payloads)
    idle: asyncio.Queue[HttpConnection] = asyncio.Queue()
    every = [HttpConnection(url) for _ in range(OPEN_LOOP_CONNECTIONS)]
    for c in every:
        idle.put_nowait(c)
    await asyncio.gather(*(_send(c, requests[i % len(requests)], timeout_s)
                           for i, c in enumerate(every[:OPEN_LOOP_PREWARM])))
    conn.send("ready")
    start_at = float(conn.recv())  # every client starts its schedule at the same moment, once all are ready
    window = (start_at + warmup_s, start_at + warmup_s + duration_s)
    results: list[tuple[int, float, float]] = []

    async def one(i: int, due: float) -> None:
        lag = time.monotonic() - due
        http = await idle.get()
        try:
            status = await _send(http, requests[i % len(requests)], timeout_s)
        finally:
            idle.put_nowait(http)
        if window[0] <= due < window[1]:
            results.append((status, time.monotonic() - due, lag))

    tasks = []
    for i in range(int(rate * (warmup_s + duration_s))):
        due = start_at + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(i, due)))
    await asyncio.gather(*tasks)
    for c in every:
        c.close()
    return results


def _open_process(url: str, payloads: list[Payload], rate: float, warmup_s: float, duration_s: float, conn: Any,
                  cores: Sequence[int]) -> None:
    if cores:
        os.sched_setaffinity(0, set(cores))
    conn.send(asyncio.run(_open_loop(url, payloads, rate, warmup_s, duration_s, conn)))
    conn.close()


def measure_open(url: str, payloads: list[Payload], rate: float, *, warmup_s: float, duration_s: float, procs: int,
                 cores: Sequence[int] = ()) -> dict[str, Any]:
    """Open-loop load: ``rate`` requests per second in all, from ``procs`` client processes, which start sending
    together once each has imported and opened its connections (a client still starting would otherwise fall
    behind its schedule and then send its backlog at once)."""
    children = []
    for _ in range(max(1, procs)):
        ours, theirs = CTX.Pipe()
        proc = CTX.Process(target=_open_process, args=(url + "/v1/predict", payloads, rate / max(1, procs),
                                                       warmup_s, duration_s, theirs, tuple(cores)), daemon=True)
        proc.start()
        theirs.close()
        children.append((proc, ours))
    for _, conn in children:
        if not conn.poll(120) or conn.recv() != "ready":
            raise RuntimeError("an open-loop client did not get ready within 120 s")
    start_at = time.monotonic() + 0.1
    for _, conn in children:
        conn.send(start_at)
    results: list[tuple[int, float, float]] = []
    for proc, conn in children:
        results += conn.recv()
        proc.join(30)
    lag_ms = max((lag for _, _, lag in results), default=0.0) * 1000
    return {"offered_qps": round(rate, 1), **_stats([(s, t) for s, t, _ in results], duration_s),
            "client_lag_max_ms": round(lag_ms, 1)}
