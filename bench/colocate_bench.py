"""The inference service beside a training run on one GPU, each in its own share of the embedded engine's pool.

Ours: the serving runtime (``python -m steps.deploy.server``) runs as the node of one embedded-engine run asking
for ``nvidia.com/gpumem`` (its replica keeps to that share: ``within_share``), and a training
(``bench/pool_train.py``) as the node of another run asking for its own share of the same GPU (``stepkit`` caps
it); the pool places both on GPU 0 and its watchdog watches both. The load is an open loop at one fixed rate
(``--load`` of what the service served alone under a closed loop), so every window sees the same offered load:

- ``alone``: the service with the GPU to itself;
- ``colocated``: the same service while the training runs (from its first checkpoint on);
- the competent peer: the same two programs started by hand on GPU 0 (``CUDA_VISIBLE_DEVICES=0``), no pool and
  no caps, measured alone and beside the training the same way.

Summary: ``colocated_p99_ratio`` (p99 beside the training / p99 alone; the issue's goal is <= 1.5),
``peer_p99_ratio``, the p99s, ``offered_qps``, ``training_steps_per_s`` (beside the service), and
``serving_over_cap_mb`` / ``training_over_cap_mb`` (each node's peak GPU memory over its process tree, as NVML
reads it, minus its share: <= 0 expected; null without readings).

    python3 bench/colocate_bench.py            # the GPU machine, about 3 minutes
    python3 bench/colocate_bench.py --quick    # CPU, pinned synthetic gpus.json, tiny models: about a minute
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aipipe.engine.executor import WorkflowExecutor
from bench.loadgen import Payload, make_jpegs, measure, measure_open
from bench.pool_bench import Engine, add_row, first_gpu_mb, node_meter
from bench.results_io import write_result
from bench.serve_bench import build_bundles

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Plan:
    """The service, the training beside it and the load."""

    serve_arch: str
    serve_size: int
    precision: str
    device: str
    workers: int
    max_batch: int
    serve_mb: int
    train_argv: tuple[str, ...]
    train_mb: int
    probe_concurrency: int
    window_s: float
    jpeg_size: int


GPU_PLAN = Plan(serve_arch="resnet50", serve_size=224, precision="fp16", device="cuda", workers=4, max_batch=32,
                serve_mb=16384, train_mb=40960, probe_concurrency=64, window_s=15.0, jpeg_size=320,
                train_argv=("--arch", "resnet18", "--size", "224", "--batch", "128"))
QUICK_PLAN = Plan(serve_arch="resnet_tiny", serve_size=32, precision="fp32", device="cpu", workers=1, max_batch=8,
                  serve_mb=4096, train_mb=8192, probe_concurrency=4, window_s=4.0, jpeg_size=64,
                  train_argv=("--arch", "resnet_tiny", "--size", "16", "--batch", "4", "--threads", "1"))
TRAIN_STEPS = 10_000_000  # stopped once measured


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_argv(plan: Plan, engine_dir: Path, port: int) -> list[str]:
    return ["-m", "steps.deploy.server", "--engine-dir", str(engine_dir), "--port", str(port), "--device",
            plan.device, "--cpu-workers", str(plan.workers), "--gpu-procs", "1", "--max-batch", str(plan.max_batch),
            "--max-delay-ms", "2", "--queue-size", "512", "--acceptors", "workers"]


def train_argv(plan: Plan, ckpt: Path | str) -> list[str]:
    return ["-m", "bench.pool_train", "--steps", str(TRAIN_STEPS), *plan.train_argv, "--ckpt", str(ckpt)]


def node_workflow(engine: Engine, name: str, argv: list[str], share_mb: int, volume: str | None) -> dict[str, Any]:
    """A run of one long-running node holding ``share_mb`` of a GPU (with a scratch volume at /<volume>)."""
    container: dict[str, Any] = {"image": engine.image, "command": ["python3", *argv],
                                 "resources": {"limits": {"nvidia.com/gpu": 1, "nvidia.com/gpumem": share_mb}}}
    spec: dict[str, Any] = {"entrypoint": "main", "templates": [{"name": "main", "container": container}]}
    if volume:
        container["volumeMounts"] = [{"name": volume, "mountPath": f"/{volume}"}]
        spec["volumeClaimTemplates"] = [{"metadata": {"name": volume}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name}, "spec": spec}


class Background:
    """An embedded-engine run in a thread of its own, until it ends or is stopped."""

    def __init__(self, engine: Engine, wf: dict[str, Any]) -> None:
        self.stop = threading.Event()
        self.status: dict[str, Any] = {}
        ctx = engine.context(wf["metadata"]["name"])
        self.thread = threading.Thread(target=lambda: self.status.update(WorkflowExecutor(wf, ctx).run(self.stop)
                                                                          ["status"]), daemon=True)
        self.thread.start()

    def alive(self) -> bool:
        return self.thread.is_alive()

    def end(self) -> None:
        self.stop.set()
        self.thread.join(120)

    def why(self) -> str:
        return json.dumps({n["displayName"]: n.get("message") for n in (self.status.get("nodes") or {}).values()})


def wait_until(done: Any, alive: Any, what: str, timeout_s: float = 600.0) -> None:
    """Poll ``done()`` until true; fail when ``alive()`` turns false first or the time runs out."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if not alive():
            raise SystemExit(f"{what}: ended before it was ready")
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not ready within {timeout_s:g} s")
        time.sleep(0.2)


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def steps_done(ckpt_dir: Path) -> int:
    """The training's step as its last checkpoint says (0 before the first)."""
    import torch

    path = ckpt_dir / "ckpt.pt"
    if not path.exists():
        return 0
    return int(torch.load(path, map_location="cpu", weights_only=True)["step"])


@contextlib.contextmanager
def by_hand(argv: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """A plain process of this interpreter in the repository (the peer's way), ended on exit."""
    proc = subprocess.Popen([sys.executable, *argv], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.wait(30)


class Windows:
    """The measured windows of one setup: the same open-loop rate alone and beside the training."""

    def __init__(self, plan: Plan, payloads: list[Payload], rows: list[dict[str, Any]]) -> None:
        self.plan, self.payloads, self.rows, self.rate = plan, payloads, rows, 0.0

    def probe(self, url: str, load: float) -> None:
        """What the service serves alone under a closed loop; the open loop then offers ``load`` of it."""
        served = measure(url, self.payloads, self.plan.probe_concurrency, warmup_s=1.0, duration_s=self.plan.window_s,
                         procs=2)
        self.rate = max(1.0, load * float(served["qps"]))
        add_row(self.rows, {"config": f"closed loop c={self.plan.probe_concurrency} (probe)", **served})

    def window(self, config: str, url: str, ckpt: Path | None = None) -> dict[str, Any]:
        before = (steps_done(ckpt), time.monotonic()) if ckpt else None
        result = measure_open(url, self.payloads, self.rate, warmup_s=1.0, duration_s=self.plan.window_s, procs=2)
        row = {"config": config, **result}
        if before is not None and ckpt is not None:
            row["training_steps_per_s"] = round((steps_done(ckpt) - before[0]) / (time.monotonic() - before[1]), 2)
        add_row(self.rows, row)
        return row


def ours(engine: Engine, plan: Plan, engine_dir: Path, windows: Windows, load: float) -> tuple[dict, dict]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    serving = Background(engine, node_workflow(engine, "serve", serve_argv(plan, engine_dir, port), plan.serve_mb,
                                               None))
    try:
        wait_until(lambda: ready(url), serving.alive, f"the service ({serving.why()})")
        windows.probe(url, load)
        alone = windows.window(f"ours: service alone ({plan.serve_mb} MiB share)", url)
        training = Background(engine, node_workflow(engine, "train", train_argv(plan, "/ckpt"), plan.train_mb, "ckpt"))
        ckpt = engine.volume("train", "ckpt")
        try:
            wait_until(lambda: steps_done(ckpt) > 0, training.alive, f"the training ({training.why()})")
            beside = windows.window(f"ours: service beside the training ({plan.train_mb} MiB share)", url, ckpt)
        finally:
            training.end()
    finally:
        serving.end()
    return alone, beside


def peer(plan: Plan, engine_dir: Path, windows: Windows, home: Path) -> tuple[dict, dict]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "0"}
    env.pop("AIPIPE_GPU_MEMORY_MB", None)
    with by_hand(serve_argv(plan, engine_dir, port), env) as server:
        wait_until(lambda: ready(url), lambda: server.poll() is None, "the peer's service")
        alone = windows.window("peer: service alone, by hand, no cap", url)
        ckpt = home / "peer-ckpt"
        ckpt.mkdir()
        with by_hand(train_argv(plan, ckpt), env) as trainer:
            wait_until(lambda: steps_done(ckpt) > 0, lambda: trainer.poll() is None, "the peer's training")
            beside = windows.window("peer: service beside the training, both by hand", url, ckpt)
    return alone, beside


def over_cap(peaks: dict[str, int], run: str, share: int) -> int | None:
    mine = [peak for name, peak in peaks.items() if name.split("[")[0] == run and peak > 0]
    return max(mine) - share if mine else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CPU smoke run on a pinned synthetic inventory")
    parser.add_argument("--load", type=float, default=0.5, help="open-loop rate as a share of the probe's QPS")
    args = parser.parse_args()
    plan = QUICK_PLAN if args.quick else GPU_PLAN
    work = Path(tempfile.mkdtemp(prefix="colocate-bench-", dir="/var/tmp"))  # the nodes read the bundle here
    try:
        home = work / "home"
        home.mkdir()
        first_gpu_mb(home, args.quick)
        _, engines = build_bundles(work / "bundle", plan.serve_arch, plan.serve_size, 10, [plan.precision],
                                   plan.max_batch, compiled=False)
        payloads = [Payload(data, "image/jpeg") for data in make_jpegs(64, size=plan.jpeg_size)]
        meter, source = node_meter()
        engine = Engine(home, meter)
        rows: list[dict[str, Any]] = []
        windows = Windows(plan, payloads, rows)
        with meter if meter is not None else contextlib.nullcontext():
            alone, beside = ours(engine, plan, engines[plan.precision], windows, args.load)
        peer_alone, peer_beside = peer(plan, engines[plan.precision], windows, home)
        peaks = meter.peaks if meter else {}
        summary = {
            "quick": args.quick, "usage_source": source, "offered_qps": windows.rate,
            "serving_p99_alone_ms": alone["p99_ms"], "serving_p99_colocated_ms": beside["p99_ms"],
            "colocated_p99_ratio": round(beside["p99_ms"] / alone["p99_ms"], 3),
            "peer_p99_ratio": round(peer_beside["p99_ms"] / peer_alone["p99_ms"], 3),
            "training_steps_per_s": beside.get("training_steps_per_s"),
            "peer_training_steps_per_s": peer_beside.get("training_steps_per_s"),
            "errors": sum(r["errors"] for r in (alone, beside, peer_alone, peer_beside)),
            "serving_over_cap_mb": over_cap(peaks, "serve", plan.serve_mb),
            "training_over_cap_mb": over_cap(peaks, "train", plan.train_mb)}
        write_result("colocate_bench_quick" if args.quick else "colocate_bench", rows, summary,
                     extra={"plan": plan.__dict__, "peaks_mb": peaks})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
