"""Replica start of a converted (compiled, Mega-Cache) engine: a fresh process against replicas forked
from the service's pre-imported fork server.

Builds the engine bundle as ``bench/convert_bench.py`` does (the convert step's PyTorch backend,
compiled once, its Mega-Cache in the bundle), then measures: (1) a fresh process loading the bundle
with empty inductor/Triton caches (convert_bench's ``shipped`` child), and the same on a tiered start
(``shipped-tiered``: ready uncompiled, serving batch-1 requests while the compiled engine loads and warms
in a thread, then timed compiled); (2) the service's first start
(the fork server's imports, then each replica) and (3) each replica's restart, by a rolling restart
under load (failed requests counted) and by SIGKILL (``bench/replica_restart.py``). Prints one JSON
object. ``--merge RESULT.json --raw RAW.json`` writes those numbers into a convert_bench result file.

    python3 bench/replica_start.py [--quick] > raw.json
    python3 bench/replica_start.py --merge bench/results/convert_bench_nvidia-h200_20261124.json --raw raw.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def measure(quick: bool) -> dict[str, Any]:
    """Build the engine, then the three starts; their times, phases and failures."""
    import numpy as np
    import torch

    from bench.convert_bench import _run_child, _write_model_bundle
    from bench.replica_restart import measure_rolling_restart
    from bench.results_io import host_info

    on_gpu = torch.cuda.is_available() and not quick
    args = argparse.Namespace(device="cuda" if on_gpu else "cpu", arch="resnet_tiny" if quick else "resnet50",
                              classes=10 if quick else 1000, image_size=32 if quick else 224,
                              batch=8 if quick else 64, iterations=10 if quick else 20, child_timeout=420,
                              compile_mode="default" if on_gpu else None)
    with tempfile.TemporaryDirectory(prefix="aipipe-replica-start-") as tmp:
        work = Path(tmp)
        _write_model_bundle(work, args)
        (work / "pins.json").write_text("[]")
        inputs = np.random.default_rng(0).standard_normal((args.batch, 3, args.image_size, args.image_size))
        np.save(work / "inputs.npy", inputs.astype(np.float32))
        started = time.perf_counter()
        runtime, _ = _run_child("build", args, work, args.compile_mode)
        build_s = time.perf_counter() - started
        print(f"replica_start: engine built in {build_s:.1f} s: {json.dumps(runtime)}", file=sys.stderr, flush=True)
        fresh, _ = _run_child("shipped", args, work, fresh_caches=True)
        print(f"replica_start: fresh process ready in {fresh['ready_s']:.1f} s", file=sys.stderr, flush=True)
        tiered, _ = _run_child("shipped-tiered", args, work, fresh_caches=True)
        print(f"replica_start: fresh process, tiered start: ready in {tiered['ready_s']:.1f} s, compiled after "
              f"{tiered.get('compiled_after_s', float('nan')):.1f} s", file=sys.stderr, flush=True)
        restart = measure_rolling_restart(work / "engine", replicas=2, workers=1 if quick else 4,
                                          concurrency=4 if quick else 32, device=args.device,
                                          timeout_s=120 if quick else 240, kill=True)
    return {"engine_runtime": runtime, "engine_build_s": round(build_s, 1),
            "fresh_process": {key: fresh[key] for key in ("ready_s", "first_inference_s", "latency_ms_b1",
                                                          "throughput_b64", "compile_note")},
            "fresh_process_tiered": {key: tiered.get(key) for key in (
                "ready_s", "first_inference_s", "compiled_after_s", "served_while_compiling",
                "slowest_ms_while_compiling", "latency_ms_b1", "throughput_b64", "compile_note")},
            "serving": restart, "host": host_info(), "device": args.device}


def merge(result_path: Path, raw: dict[str, Any]) -> None:
    """Write the measured starts into a convert_bench result's summary; the spawned-replica run is kept."""
    doc = json.loads(result_path.read_text())
    summary = doc["summary"]
    serving = raw["serving"]
    restarts = [*serving["replica_ready_s"], serving["kill"]["replica_ready_s"]]
    if "replica_ready_spawned_s" not in summary:  # the earlier run (spawn start method) stays on record
        summary["replica_ready_spawned_s"] = summary.get("replica_ready_s")
        summary["rolling_restart_spawned"] = summary.get("rolling_restart")
    summary.update({
        "replica_ready_s": max(restarts),
        "replica_ready_fresh_process_s": round(raw["fresh_process_tiered"]["ready_s"], 2),
        "replica_compiled_fresh_process_s": round(raw["fresh_process_tiered"]["compiled_after_s"], 2),
        "replica_ready_fresh_process_untiered_s": round(raw["fresh_process"]["ready_s"], 2),
        "replica_first_start_s": max(serving["replica_first_start_s"]),
        "service_first_ready_s": serving["service_first_ready_s"],
        "fork_server_start_s": serving["fork_server"].get("start_s"),
        "failed_during_restart": serving["failed_during_restart"],
        "rolling_restart": serving,
        "replica_start_run": {"date": raw["date"], "commit": raw["commit"], "host": raw["host"],
                              "engine_runtime": raw["engine_runtime"], "engine_build_s": raw["engine_build_s"],
                              "fresh_process": raw["fresh_process"],
                              "fresh_process_tiered": raw["fresh_process_tiered"],
                              "note": "replica_ready_s: the slowest restart (rolling restart and SIGKILL) of a "
                                      "replica forked from the service's fork server, which imported torch, "
                                      "dynamo and inductor once; replica_ready_fresh_process_s: a fresh "
                                      "process importing everything itself on a tiered start (ready uncompiled, "
                                      "serving while the compiled engine loads: replica_compiled_fresh_process_s); "
                                      "replica_ready_fresh_process_untiered_s: the same process waiting for the "
                                      "compiled engine before it serves; same machine and run"},
    })
    result_path.write_text(json.dumps(doc, indent=2, default=str))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CPU smoke run: tiny model, uncompiled")
    parser.add_argument("--merge", type=Path, help="a convert_bench result file to write the numbers into")
    parser.add_argument("--raw", type=Path, help="with --merge: this script's JSON output")
    args = parser.parse_args(argv)
    if args.merge:
        if args.raw is None:
            parser.error("--merge needs --raw")
        merge(args.merge, json.loads(args.raw.read_text()))
        return
    import datetime as dt

    from bench.results_io import commit_id

    raw = measure(args.quick)
    raw["date"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    raw["commit"] = commit_id()  # AIPIPE_COMMIT on a copy whose .git is not the tree's
    print(json.dumps(raw))


if __name__ == "__main__":
    main()
