"""Rolling restart under load: the serving runtime restarts its model replicas one at a time (SIGHUP)
while loopback clients keep sending JPEG requests; counts the requests that did not get 200 and the
``/readyz`` polls that were not ready, and reads each replica's start time (process start to ready: a
new process, forked from the service's pre-imported fork server, loading the bundle's compile cache)
and its phases from ``/v1/info``; on a tiered start (a compiled engine on CUDA: ready uncompiled, the
compiled engine swapped in later) also when the compiled engine took over. With ``kill`` it then
SIGKILLs replica 0, still under load, and times its replacement (the killed replica's in-flight
requests get 503: counted apart).

The serving processes get an empty inductor/Triton cache directory, so a compiled replica compiles
from the bundle's Mega-Cache alone, as on a fresh machine.

    python3 bench/replica_restart.py ENGINE_DIR [--replicas 2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _replicas(server: Any) -> list[dict[str, Any]]:
    return list(server.get_json("/v1/info")[1]["gpu_processes"])


def _upgraded(replica: dict[str, Any]) -> bool:
    """Done starting: not a tiered start, or its compiled engine took over (or it said why not)."""
    info = replica.get("info", {})
    return not info.get("tiered") or "upgrade" in info


def _wait_upgraded(server: Any, timeout_s: float) -> list[dict[str, Any]]:
    """The replicas once every tiered start has its compiled engine (at most ``timeout_s`` later)."""
    end = time.monotonic() + timeout_s
    replicas = _replicas(server)
    while not all(_upgraded(g) for g in replicas) and time.monotonic() < end:
        time.sleep(0.1)
        replicas = _replicas(server)
    return replicas


def measure_rolling_restart(engine_dir: Path, *, replicas: int = 2, workers: int = 4, concurrency: int = 16,
                            device: str = "auto", timeout_s: float = 240.0, log: Any = None,
                            kill: bool = False) -> dict[str, Any]:
    """Start the service, load it, SIGHUP it, wait for every replica's next generation; the counts."""
    from bench.loadgen import Payload, make_jpegs
    from bench.serve_bench import start_ours

    cache_dirs = tempfile.TemporaryDirectory(prefix="aipipe-empty-caches-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(Path(cache_dirs.name) / "inductor")
    os.environ["TRITON_CACHE_DIR"] = str(Path(cache_dirs.name) / "triton")
    payloads = [Payload(data, "image/jpeg") for data in make_jpegs(32)]
    started = time.monotonic()
    server = start_ours(engine_dir, workers=workers, gpu_procs=replicas, device=device, log=log)
    first_ready_s = time.monotonic() - started
    try:
        first = _replicas(server)
        stop_at = [time.monotonic() + timeout_s + 60]
        records: list[tuple[str, bool, int, float, float]] = []

        def load() -> None:
            records.extend(asyncio.run(_until(server.url, payloads, concurrency, stop_at)))

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        time.sleep(3.0)
        not_ready = polls = 0
        t_roll = time.monotonic()
        os.kill(server.pid, signal.SIGHUP)
        deadline = t_roll + timeout_s
        done: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            status, _ = server.get_json("/readyz", timeout_s=2.0)
            polls += 1
            not_ready += status != 200
            done = _replicas(server)
            if all(g["generation"] > 1 and g["ready"] and not g.get("rolling") for g in done):
                break
            time.sleep(0.1)
        roll_s = time.monotonic() - t_roll
        done = _wait_upgraded(server, timeout_s)  # still under load: the compiled engines take over
        time.sleep(3.0)
        killed = _kill_and_wait(server, timeout_s) if kill else {}
        if killed:
            time.sleep(2.0)
        stop_at[0] = time.monotonic()
        thread.join(60)
        fork_server = server.get_json("/v1/info")[1].get("fork_server", {})
    finally:
        server.stop()
        cache_dirs.cleanup()
    t_kill = killed.get("killed_at", math.inf)
    failed = [r for r in records if r[2] != 200 and r[4] < t_kill]
    during = [r for r in records if t_roll <= r[4] <= t_roll + roll_s]
    if killed:
        killed["failed_after_kill"] = sum(r[2] != 200 for r in records if r[4] >= t_kill)
        killed["statuses_after_kill"] = sorted({r[2] for r in records if r[4] >= t_kill})
        del killed["killed_at"]
    return {
        "replicas": replicas, "concurrency": concurrency, "requests": len(records),
        "requests_during_restart": len(during), "failed_during_restart": len(failed),
        "failed_statuses": sorted({r[2] for r in failed}), "readyz_polls": polls, "readyz_not_ready": not_ready,
        "rolling_restart_s": round(roll_s, 1), "service_first_ready_s": round(first_ready_s, 1),
        "replica_first_start_s": [g.get("info", {}).get("ready_s") for g in first],
        "replica_ready_s": [g.get("info", {}).get("ready_s") for g in done],
        "replica_compiled": [g.get("info", {}).get("compiled") for g in done],
        "replica_tiered": [g.get("info", {}).get("tiered") for g in done],
        "replica_compiled_s": [g.get("info", {}).get("compiled_s") for g in done],
        "replica_phases": [g.get("info", {}).get("phases") for g in done],
        "replica_fork_server": [g.get("info", {}).get("fork_server") for g in done],
        "fork_server": fork_server,
        "restarted": all(g["generation"] > 1 for g in done),
        **({"kill": killed} if kill else {}),
    }


def _kill_and_wait(server: Any, timeout_s: float) -> dict[str, Any]:
    """SIGKILL replica 0 and wait for its replacement to be ready: its start time and phases."""
    victim = _replicas(server)[0]
    killed_at = time.monotonic()
    os.kill(int(victim["pid"]), signal.SIGKILL)
    while time.monotonic() < killed_at + timeout_s:
        now = _replicas(server)[0]
        if now["generation"] > victim["generation"] and now["ready"]:
            replaced_in_s = round(time.monotonic() - killed_at, 2)
            info = _wait_upgraded(server, timeout_s)[0].get("info", {})
            return {"killed_at": killed_at, "replaced_in_s": replaced_in_s,
                    "replica_ready_s": info.get("ready_s"), "phases": info.get("phases"),
                    "fork_server": info.get("fork_server"), "compiled": info.get("compiled"),
                    "tiered": info.get("tiered"), "compiled_s": info.get("compiled_s")}
        time.sleep(0.05)
    return {"killed_at": killed_at, "error": f"not replaced within {timeout_s:g} s"}


def _until(url: str, payloads: Any, concurrency: int, stop_at: list[float]) -> Any:
    """Closed-loop clients until ``stop_at[0]`` (read on every request: the main thread moves it)."""
    from bench.loadgen import _post_loop, post_requests

    async def run() -> list[tuple[str, bool, int, float, float]]:
        records: list[tuple[str, bool, int, float, float]] = []
        counter = iter(range(1 << 62))

        def next_index() -> int:
            return next(counter) if time.monotonic() < stop_at[0] else -1

        def record(payload: Any, status: int, started: float, ended: float) -> None:
            records.append((payload.label, payload.good, status, started, ended))

        target = url + "/v1/predict"
        requests = post_requests(target, payloads)
        await asyncio.gather(*(_post_loop(target, requests, payloads, k, next_index, record, None, 30.0)
                               for k in range(concurrency)))
        return records

    return run()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine_dir", type=Path)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--kill", action="store_true", help="then SIGKILL replica 0 under load, time its replacement")
    args = parser.parse_args(argv)
    print(json.dumps(measure_rolling_restart(args.engine_dir, replicas=args.replicas, workers=args.workers,
                                             concurrency=args.concurrency, device=args.device, kill=args.kill)))


if __name__ == "__main__":
    main()
