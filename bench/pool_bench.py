"""The embedded engine's GPU pool: N small trainings packed on one GPU vs one after another, and preemption.

Each training is ``bench/pool_train.py`` (ResNet-18 at 128 px, batch 64, synthetic data made on the GPU, bf16)
run as a script node of a real embedded-engine run, so the pool does the placement:

- ``sequential``: what a user does without a pool: N runs one after another, each asking for a whole GPU;
- ``packed``: one run of N parallel nodes, each asking for 1/N of the GPU's memory (``nvidia.com/gpumem``), which
  the pool packs onto one GPU (each node capped by ``stepkit``, watched by the pool's watchdog);
- ``naive_all_at_once``: the N trainings started at once as plain processes with ``CUDA_VISIBLE_DEVICES=0`` and no
  cap (no engine: no queue, no isolation; what works when they happen to fit);
- ``preemption``: a preemptible low-priority run asking for 70 % of the GPU trains; once it checkpointed, a
  high-priority run asking for 70 % arrives, preempts it (SIGTERM: it checkpoints and exits), runs, and the low
  run resumes from its checkpoint. It trains with deterministic algorithms (``torch.use_deterministic_algorithms``,
  ``CUBLAS_WORKSPACE_CONFIG``), so its final weights must equal those of the same training run uninterrupted
  (``preempted_weights_max_abs_diff``: every step's batch comes from a generator seeded by the step's number, and
  the checkpoint holds the model, BatchNorm statistics and the optimizer's momentum). 0.0 on CPU; on CUDA the
  pooling layers' backward kernels have no deterministic version (``warn_only``: their atomics may differ in the
  last bits, which training can grow), so there the difference is reported, not required to be 0.

Summary: ``packed_speedup`` (sequential makespan / packed makespan; also ``packed_train_speedup`` over training
time only, without process start-up), ``preempted_lost_steps`` (optimizer steps run twice: those an attempt did
beyond the checkpoint the next resumed from; 0 when the checkpoint is taken at SIGTERM), ``max_over_cap_mb`` (over
every share-holding node, its peak GPU memory as NVML reads it over its process tree, minus its share; <= 0
expected; null without a source of readings, or when the readings never named a node's processes: an engine in
a container without the host's PID namespace).

    python3 bench/pool_bench.py            # the GPU machine, about 2-3 minutes
    python3 bench/pool_bench.py --quick    # CPU, pinned synthetic gpus.json, tiny model: < 2 minutes
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aipipe.config import load_config
from aipipe.engine.context import default_context
from aipipe.engine.execution import ExecutionContext
from aipipe.engine.executor import WorkflowExecutor
from aipipe.engine.gpu import detect_inventory
from aipipe.engine.gpuwatch import usage_source
from bench.gpu_meter import NodeMeter
from bench.results_io import write_result

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Plan:
    """The trainings' size and how many."""

    runs: int
    steps: int
    low_steps: int
    arch: str
    size: int
    batch: int
    threads: int

    def argv(self, steps: int) -> list[str]:
        return ["-m", "bench.pool_train", "--steps", str(steps), "--arch", self.arch, "--size", str(self.size),
                "--batch", str(self.batch), "--threads", str(self.threads)]


GPU_PLAN = Plan(runs=4, steps=300, low_steps=1000, arch="resnet18", size=128, batch=64, threads=0)
QUICK_PLAN = Plan(runs=2, steps=40, low_steps=1500, arch="resnet_tiny", size=16, batch=4, threads=1)


class Engine:
    """Real embedded-engine runs under one AIPIPE_HOME, metered."""

    def __init__(self, home: Path, meter: NodeMeter | None) -> None:
        self.home, self.meter = home, meter
        self.cfg = load_config(env={"AIPIPE_HOME": str(home)})
        self.image = str(self.cfg.get("kubernetes.steps_image"))

    def workflow(self, name: str, argv: list[list[str]], limits: dict[str, Any], priority: int = 0,
                 preemptible: bool = False) -> dict[str, Any]:
        """A run of ``len(argv)`` parallel trainings, each with its own checkpoint volume."""
        notes = {"aipipe.dev/preemptible": "true", "aipipe.dev/preemption-grace-seconds": "60"} if preemptible else {}
        templates = [{"name": f"t{i}", "metadata": {"annotations": notes},
                      "container": {"image": self.image, "command": ["python3", *args, "--ckpt", f"/ckpt{i}"],
                                    "resources": {"limits": limits},
                                    "volumeMounts": [{"name": f"ckpt{i}", "mountPath": f"/ckpt{i}"}]}}
                     for i, args in enumerate(argv)]
        claims = [{"metadata": {"name": f"ckpt{i}"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                             "resources": {"requests": {"storage": "1Gi"}}}}
                  for i in range(len(argv))]
        return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
                "spec": {"entrypoint": "main", "priority": priority, "volumeClaimTemplates": claims,
                         "templates": [{"name": "main", "steps": [[{"name": f"t{i}", "template": f"t{i}"}
                                                                   for i in range(len(argv))]]}, *templates]}}

    def context(self, run: str, on_log: Callable[[str, str], None] | None = None) -> ExecutionContext:
        """The execution context of one run, its changes followed by the meter (its nodes' output to ``on_log``)."""
        meter = self.meter
        return default_context(self.cfg, self.home / "runs" / run,
                               on_change=meter.on_change if meter else lambda _change: None,
                               on_log=on_log or (lambda _node, _text: None))

    def run(self, wf: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """(final status, seconds); raises when a node did not succeed."""
        ctx = self.context(wf["metadata"]["name"])
        start = time.monotonic()
        status = WorkflowExecutor(wf, ctx).run()["status"]
        took = time.monotonic() - start
        if status["phase"] != "Succeeded":
            bad = {n["displayName"]: n.get("message") for n in status["nodes"].values() if n["phase"] != "Succeeded"}
            raise SystemExit(f"run {wf['metadata']['name']} ended {status['phase']}: {bad}")
        return status, took

    def volume(self, run: str, name: str) -> Path:
        return self.home / "runs" / run / "volumes" / name


def results(status: dict[str, Any]) -> list[dict[str, Any]]:
    """Each training's JSON line (its last attempt), by node name."""
    pods = sorted((n for n in status["nodes"].values() if n["type"] == "Pod"), key=lambda n: n["name"])
    return [json.loads(n["outputs"]["result"].splitlines()[-1]) for n in pods]


def lost_steps(attempts_file: Path) -> tuple[int, int]:
    """(steps run twice, attempts) from a training's ``attempts`` lines."""
    rows = [tuple(map(int, line.split())) for line in attempts_file.read_text().splitlines() if line.strip()]
    lost = sum(max(first + done - rows[i + 1][0], 0) for i, (first, done) in enumerate(rows[:-1]))
    return lost, len(rows)


def naive_all_at_once(plan: Plan, home: Path) -> float:
    """The N trainings as plain processes started together on GPU 0, no cap: their makespan."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "0"}
    env.pop("AIPIPE_GPU_MEMORY_MB", None)
    start = time.monotonic()
    procs = []
    for i in range(plan.runs):
        folder = home / "naive" / str(i)
        folder.mkdir(parents=True)
        procs.append(subprocess.Popen([sys.executable, *plan.argv(plan.steps), "--ckpt", str(folder)], cwd=REPO,
                                      env=env, stdout=subprocess.DEVNULL))
    codes = [p.wait(timeout=600) for p in procs]
    if any(codes):
        raise SystemExit(f"naive trainings failed: exit codes {codes}")
    return time.monotonic() - start


def weights_diff(a: Path, b: Path) -> float:
    """The largest absolute difference between two checkpoints' model tensors."""
    import torch

    left, right = torch.load(a, map_location="cpu")["model"], torch.load(b, map_location="cpu")["model"]
    if left.keys() != right.keys():
        return float("inf")
    return max(float((left[k].double() - right[k].double()).abs().max()) if left[k].numel() else 0.0
               for k in left)


def uninterrupted(plan: Plan, home: Path) -> Path:
    """The low run's training without a preemption, as a plain process: its checkpoint."""
    folder = home / "reference"
    folder.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "0"}
    env.pop("AIPIPE_GPU_MEMORY_MB", None)
    subprocess.run([sys.executable, *plan.argv(plan.low_steps), "--deterministic", "--ckpt", str(folder)], cwd=REPO,
                   env=env, stdout=subprocess.DEVNULL, check=True, timeout=600)
    return folder / "ckpt.pt"


def preemption(engine: Engine, plan: Plan, part_mb: int) -> dict[str, Any]:
    """The low run (deterministic algorithms), preempted by the urgent one once it has a checkpoint; both must
    succeed, and the low run's final weights are compared with an uninterrupted run's."""
    limits = {"nvidia.com/gpu": 1, "nvidia.com/gpumem": part_mb}
    box: dict[str, Any] = {}
    low = threading.Thread(target=lambda: box.update(low=engine.run(engine.workflow(
        "low", [[*plan.argv(plan.low_steps), "--deterministic"]], limits, 0, preemptible=True))), daemon=True)
    low.start()
    ckpt = engine.volume("low", "ckpt0") / "ckpt.pt"
    deadline = time.monotonic() + 300
    while not ckpt.exists() and low.is_alive():
        if time.monotonic() > deadline:
            raise SystemExit("the low-priority training wrote no checkpoint in 300 s")
        time.sleep(0.05)
    urgent_status, urgent_s = engine.run(engine.workflow("urgent", [plan.argv(plan.steps)], limits, 10))
    low.join(600)
    if "low" not in box:
        raise SystemExit("the low-priority run did not end")
    lost, attempts = lost_steps(engine.volume("low", "ckpt0") / "attempts")
    [final] = results(box["low"][0])
    diff = weights_diff(engine.volume("low", "ckpt0") / "ckpt.pt", uninterrupted(plan, engine.home))
    return {"attempts": attempts, "lost_steps": lost, "low_steps": final["step"], "low_s": box["low"][1],
            "urgent_s": urgent_s, "urgent_first": results(urgent_status)[0]["first"], "weights_max_abs_diff": diff}


def first_gpu_mb(home: Path, quick: bool) -> int:
    """GPU 0's memory (MiB) as the pool under ``home`` sees it; ``quick`` pins a synthetic 80 GiB GPU there."""
    if quick:
        (home / "gpus.json").write_text(json.dumps([{"index": 0, "memory_mb": 81920}]))
    inventory = detect_inventory(home)
    if not inventory.gpus or not inventory.gpus[0].memory_mb:
        raise SystemExit(f"no GPU with known memory ({inventory.source}); use --quick on a machine without one")
    return inventory.gpus[0].memory_mb


def node_meter() -> tuple[NodeMeter | None, str]:
    """A meter of the nodes' GPU memory over the watchdog's source (None where there is none), and its name."""
    usage, source = usage_source()
    return (NodeMeter(usage) if usage is not None else None), source


def add_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> None:
    """Keep a row and print it at once (a run cut short by its time limit still shows what it measured)."""
    rows.append(row)
    print(json.dumps(row), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CPU smoke run on a pinned synthetic inventory")
    parser.add_argument("--runs", type=int, default=0, help="trainings to pack (default 4; --quick 2)")
    args = parser.parse_args()
    plan = QUICK_PLAN if args.quick else GPU_PLAN
    if args.runs:
        plan = Plan(**{**plan.__dict__, "runs": args.runs})
    with tempfile.TemporaryDirectory(prefix="pool-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        total = first_gpu_mb(home, args.quick)
        meter, source = node_meter()
        engine = Engine(home, meter)
        if meter is not None:
            meter.__enter__()
        try:
            steps = [plan.argv(plan.steps)] * plan.runs
            rows: list[dict[str, Any]] = []
            seq_s, seq_train = 0.0, 0.0
            for i in range(plan.runs):
                status, took = engine.run(engine.workflow(f"seq{i}", steps[:1], {"nvidia.com/gpu": 1}))
                seq_s, seq_train = seq_s + took, seq_train + results(status)[0]["train_s"]
            add_row(rows, {"config": "sequential (whole GPU each)", "makespan_s": seq_s, "train_s": seq_train})
            share_mb = total // plan.runs  # a quarter of the GPU each for 4 runs
            share = {"nvidia.com/gpu": 1, "nvidia.com/gpumem": share_mb}
            status, packed_s = engine.run(engine.workflow("packed", steps, share))
            packed = results(status)
            span = max(r["start"] + r["train_s"] for r in packed) - min(r["start"] for r in packed)
            add_row(rows, {"config": f"packed by the pool ({plan.runs} x {share_mb} MiB)", "makespan_s": packed_s,
                           "train_s": span})
            naive_s = naive_all_at_once(plan, home)
            add_row(rows, {"config": "naive: all at once, CUDA_VISIBLE_DEVICES=0, no cap", "makespan_s": naive_s,
                           "train_s": None})
            pre = preemption(engine, plan, total * 7 // 10)
            add_row(rows, {"config": "preemption: low 70 % preempted by urgent 70 % (low's makespan)",
                           "makespan_s": pre["low_s"], "train_s": None})
        finally:
            if meter is not None:
                meter.__exit__()
        caps = {"packed": share_mb, "low": total * 7 // 10, "urgent": total * 7 // 10}
        over = [peak - caps[name.split("[")[0]] for name, peak in (meter.peaks if meter else {}).items()
                if name.split("[")[0] in caps and peak > 0]  # 0: the readings never named the node's processes
    summary = {"quick": args.quick, "runs": plan.runs, "gpu_memory_mb": total, "usage_source": source,
               "packed_speedup": round(seq_s / packed_s, 3), "packed_train_speedup": round(seq_train / span, 3),
               "naive_speedup": round(seq_s / naive_s, 3), "preempted_lost_steps": pre["lost_steps"],
               "preempted_attempts": pre["attempts"], "preempted_final_step": pre["low_steps"],
               "urgent_first_step": pre["urgent_first"], "preempted_weights_max_abs_diff": pre["weights_max_abs_diff"],
               "max_over_cap_mb": max(over) if over else None}
    write_result("pool_bench_quick" if args.quick else "pool_bench", rows, summary,
                 extra={"plan": plan.__dict__, "preemption": pre, "peaks_mb": meter.peaks if meter else {}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
