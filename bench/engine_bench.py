"""Engine overhead: a node running ``true`` on the embedded engine vs a bare ``subprocess.run``.

Two cases, each engine vs naive baseline in the same run:
- sequential: N steps in a row, each ``true`` -> per-node overhead = engine per node - bare per node;
- fan-out: ``withItems`` of 200 ``true`` nodes with ``parallelism: 8`` vs a pool of 8 threads
  running the same 200 processes;
- with ``--large N``: a fan-out of N nodes at ``parallelism: 4``, with the most threads the engine's process held
  (a loop's waiting items should hold none) and its own CPU seconds next to its nodes' (the children's).
The engine path is the real one (run store in sqlite, executor, mount namespace per node), in a
throw-away AIPIPE_HOME. Goal: < 50 ms overhead per node. ``--quick`` runs fewer sequential steps; the
fan-out is always the issue's 200 nodes (a few seconds), so every result has ``fanout_200_seconds``.

    PYTHONPATH=. python3 bench/engine_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.results_io import write_result

GOAL_MS = 50.0
LARGE_PARALLELISM = 4
FANOUT = 200  # the fan-out size: the summary key fanout_200_seconds
TRUE_TEMPLATE = {"name": "noop", "container": {"image": "alpine:3.20", "command": ["true"]}}


def sequential_workflow(count: int) -> dict[str, Any]:
    steps = [[{"name": f"s{i}", "template": "noop"}] for i in range(count)]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "bench-seq-"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": steps}, TRUE_TEMPLATE]}}


def fanout_workflow(count: int, parallelism: int) -> dict[str, Any]:
    task = {"name": "fan", "template": "noop", "withItems": list(range(count))}
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "bench-fan-"},
            "spec": {"entrypoint": "main", "parallelism": parallelism,
                     "templates": [{"name": "main", "dag": {"tasks": [task]}}, TRUE_TEMPLATE]}}


def run_on_engine(home: Path, workflow: dict[str, Any]) -> float:
    """Submit and drive one run in this process; returns wall seconds (fails loudly unless Succeeded)."""
    from aipipe.config import load_config
    from aipipe.engine.service import EngineService

    service = EngineService(load_config(env={"AIPIPE_HOME": str(home)}))
    start = time.perf_counter()
    final = service.drive(service.submit(workflow))
    elapsed = time.perf_counter() - start
    phase = final.get("status", {}).get("phase")
    if phase != "Succeeded":
        raise SystemExit(f"benchmark run {final['metadata']['name']} ended {phase}: "
                         f"{final.get('status', {}).get('message', '')}")
    return elapsed


def run_large_fanout(home: Path, count: int, parallelism: int) -> dict[str, float]:
    """One N-node fan-out on the engine: wall seconds, peak threads, the driver's and its nodes' CPU seconds."""
    peak = [threading.active_count()]
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], threading.active_count())

    watcher = threading.Thread(target=watch, daemon=True)
    self_before, kids_before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    watcher.start()
    try:
        wall = run_on_engine(home, fanout_workflow(count, parallelism))
    finally:
        done.set()
        watcher.join()
    self_after, kids_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)

    def cpu(after: resource.struct_rusage, before: resource.struct_rusage) -> float:
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    return {"seconds": wall, "peak_threads": float(peak[0]), "driver_cpu_s": cpu(self_after, self_before),
            "nodes_cpu_s": cpu(kids_after, kids_before)}


def bare_sequential(count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        subprocess.run(["true"], check=True)
    return time.perf_counter() - start


def bare_fanout(count: int, parallelism: int) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(parallelism) as pool:
        list(pool.map(lambda _: subprocess.run(["true"], check=True), range(count)))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 sequential steps, not 50 (same 200-way fan-out)")
    parser.add_argument("--nodes", type=int, default=None, help="sequential nodes (default 50, quick 10)")
    parser.add_argument("--parallelism", type=int, default=8)
    parser.add_argument("--large", type=int, default=0, help="also a fan-out of this many nodes at parallelism 4")
    args = parser.parse_args()
    nodes = args.nodes or (10 if args.quick else 50)

    with tempfile.TemporaryDirectory(prefix="aipipe-bench-") as tmp:
        home = Path(tmp)
        run_on_engine(home, sequential_workflow(2))  # warm-up: imports, database, namespace probe
        engine_seq = run_on_engine(home, sequential_workflow(nodes))
        bare_seq = bare_sequential(nodes)
        engine_fan = run_on_engine(home, fanout_workflow(FANOUT, args.parallelism))
        bare_fan = bare_fanout(FANOUT, args.parallelism)
        large = run_large_fanout(home, args.large, LARGE_PARALLELISM) if args.large else None
        bare_large = bare_fanout(args.large, LARGE_PARALLELISM) if args.large else 0.0

    per_node_engine = engine_seq / nodes * 1000
    per_node_bare = bare_seq / nodes * 1000
    overhead = per_node_engine - per_node_bare
    rows = [
        {"case": f"sequential steps x{nodes} (true)", "engine_s": engine_seq, "bare_s": bare_seq,
         "engine_ms_per_node": per_node_engine, "bare_ms_per_node": per_node_bare, "overhead_ms_per_node": overhead},
        {"case": f"withItems x{FANOUT}, parallelism {args.parallelism}", "engine_s": engine_fan, "bare_s": bare_fan,
         "engine_ms_per_node": engine_fan / FANOUT * 1000, "bare_ms_per_node": bare_fan / FANOUT * 1000,
         "overhead_ms_per_node": (engine_fan - bare_fan) / FANOUT * 1000},
    ]
    summary = {"overhead_ms_per_node": round(overhead, 2), "fanout_200_seconds": round(engine_fan, 3),
               "bare_ms_per_node": round(per_node_bare, 2), "bare_fanout_200_seconds": round(bare_fan, 3),
               "goal_ms_per_node": GOAL_MS, "meets_goal": overhead < GOAL_MS, "quick": args.quick,
               "load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    if large is not None:
        rows.append({"case": f"withItems x{args.large}, parallelism {LARGE_PARALLELISM}", "engine_s": large["seconds"],
                     "bare_s": bare_large, "engine_ms_per_node": large["seconds"] / args.large * 1000,
                     "bare_ms_per_node": bare_large / args.large * 1000,
                     "overhead_ms_per_node": (large["seconds"] - bare_large) / args.large * 1000,
                     "peak_threads": large["peak_threads"], "driver_cpu_s": large["driver_cpu_s"],
                     "nodes_cpu_s": large["nodes_cpu_s"]})
        summary.update({f"fanout_{args.large}_seconds": round(large["seconds"], 3),
                        f"fanout_{args.large}_peak_threads": int(large["peak_threads"]),
                        f"fanout_{args.large}_driver_cpu_s": round(large["driver_cpu_s"], 2),
                        f"fanout_{args.large}_nodes_cpu_s": round(large["nodes_cpu_s"], 2)})
    write_result("engine_bench_quick" if args.quick else "engine_bench", rows, summary)


if __name__ == "__main__":
    main()
