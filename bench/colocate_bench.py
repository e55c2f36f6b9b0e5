"""The inference service beside a training run on one GPU, each in its own share of the embedded engine's pool.

Ours: the serving runtime (``python -m steps.deploy.server``) runs as the node of one embedded-engine run asking
for ``nvidia.com/gpumem`` (its replica keeps to that share: ``within_share``), and a training
(``bench/pool_train.py``) as the node of another run asking for its own share of the same GPU (``stepkit`` caps
it); the pool places both on GPU 0. The load is an open loop at one fixed rate (``--load`` of what the service
served alone under a closed loop), so every window sees the same offered load:

- ``alone``: the service with the GPU to itself; ``alone again`` once the training has ended (the ratio divides by
  the better of the two);
- ``beside``: the same service while the training runs (from its first checkpoint on);
- the competent peer: the same two programs started by hand on GPU 0 (``CUDA_VISIBLE_DEVICES=0``), no pool and
  no caps, measured the same way.

Each sharing mode (``--sharing``) runs both: ``mps``, where the bench starts an MPS control daemon as an operator
would and each node also asks for a compute share (``nvidia.com/gpucores``: the engine makes it an MPS client with
its SM percentage and pinned memory limit; the peer sets the same percentages by hand), and ``time-sliced``, no
daemon. Summary: ``colocated_p99_ratio`` (MPS: p99 beside the training / p99 alone; the issue's goal is <= 1.5),
``peer_p99_ratio``, the p99s, ``offered_qps``, ``training_steps_per_s`` (beside the service),
``serving_over_cap_mb`` / ``training_over_cap_mb`` (peak GPU memory of the node's process tree as NVML reads it,
minus its share: <= 0 expected; null without readings); the same keys with ``_time_sliced`` for that mode.

    python3 bench/colocate_bench.py            # the GPU machine, about 6 minutes
    python3 bench/colocate_bench.py --quick    # CPU, pinned synthetic gpus.json, tiny models: about a minute
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import shutil
import signal
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
from bench.mps import mps_daemon
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


def node_workflow(engine: Engine, name: str, argv: list[str], limits: dict[str, Any],
                  volume: str | None) -> dict[str, Any]:
    """A run of one long-running node holding the GPU share ``limits`` says (with a scratch volume at /<volume>)."""
    container: dict[str, Any] = {"image": engine.image, "command": ["python3", *argv], "resources": {"limits": limits}}
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
        self.output: collections.deque[str] = collections.deque(maxlen=40)  # the node's last lines, for why()
        ctx = engine.context(wf["metadata"]["name"], lambda _node, text: self.output.append(text))

        def drive() -> None:
            try:
                self.status.update(WorkflowExecutor(wf, ctx).run(self.stop)["status"])
            except BaseException as exc:  # SystemExit too: why() reports it
                self.status["message"] = f"the engine raised {exc!r}"

        self.thread = threading.Thread(target=drive, daemon=True)
        self.thread.start()

    def alive(self) -> bool:
        return self.thread.is_alive()

    def end(self) -> None:
        self.stop.set()
        self.thread.join(120)

    def why(self) -> str:
        nodes = {n["displayName"]: n.get("message") for n in (self.status.get("nodes") or {}).values()}
        return (json.dumps({"phase": self.status.get("phase"), "message": self.status.get("message"), "nodes": nodes})
                + "\n" + "".join(self.output))


def wait_until(done: Any, alive: Any, what: str, why: Any = lambda: "", timeout_s: float = 600.0) -> None:
    """Poll ``done()`` until true; fail when ``alive()`` turns false first or the time runs out (saying ``why()``)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if not alive():
            raise SystemExit(f"{what}: ended before it was ready {why()}")
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
    finally:  # SIGTERM first, so the serving runtime frees its shared memory
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


class Windows:
    """The measured windows of one setup: the same open-loop rate alone and beside the training."""

    def __init__(self, plan: Plan, payloads: list[Payload], rows: list[dict[str, Any]]) -> None:
        self.plan, self.payloads, self.rows, self.rate = plan, payloads, rows, 0.0

    def probe(self, url: str, load: float, tag: str) -> None:
        """What the service serves alone under a closed loop; the open loop then offers ``load`` of it."""
        served = measure(url, self.payloads, self.plan.probe_concurrency, warmup_s=1.0, duration_s=self.plan.window_s,
                         procs=2)
        self.rate = max(1.0, load * float(served["qps"]))
        add_row(self.rows, {"config": f"{tag}: closed loop c={self.plan.probe_concurrency} (probe)", **served})

    def window(self, config: str, url: str, ckpt: Path | None = None) -> dict[str, Any]:
        before = (steps_done(ckpt), time.monotonic()) if ckpt else None
        result = measure_open(url, self.payloads, self.rate, warmup_s=1.0, duration_s=self.plan.window_s, procs=2)
        row = {"config": config, **result}
        if before is not None and ckpt is not None:
            row["training_steps_per_s"] = round((steps_done(ckpt) - before[0]) / (time.monotonic() - before[1]), 2)
        add_row(self.rows, row)
        return row


@dataclass(frozen=True)
class Sharing:
    """How the two programs share the GPU: ``mps`` (an MPS daemon runs; each asks for a compute share too) or
    ``time-sliced`` (no daemon: the driver time-slices the two processes)."""

    name: str
    serve_cores: int | None
    train_cores: int | None

    def limits(self, share_mb: int, cores: int | None) -> dict[str, Any]:
        return {"nvidia.com/gpu": 1, "nvidia.com/gpumem": share_mb,
                **({"nvidia.com/gpucores": cores} if cores is not None else {})}

    def by_hand_env(self, cores: int | None) -> dict[str, str]:
        """What the peer sets by hand: the same GPU and, under MPS, the same compute share."""
        env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "0"}
        env.pop("AIPIPE_GPU_MEMORY_MB", None)
        if cores is not None:
            env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = str(cores)
        return env


SHARINGS = {"mps": Sharing("mps", 50, 50), "time-sliced": Sharing("time-sliced", None, None)}


def ours(engine: Engine, plan: Plan, sharing: Sharing, engine_dir: Path, windows: Windows,
         load: float) -> dict[str, dict[str, Any]]:
    """The service's windows alone, beside the training, and alone again, both as embedded-engine nodes."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    tag = f"ours, {sharing.name}"
    serve_wf = node_workflow(engine, f"serve-{sharing.name}", serve_argv(plan, engine_dir, port),
                             sharing.limits(plan.serve_mb, sharing.serve_cores), None)
    serving = Background(engine, serve_wf)
    try:
        wait_until(lambda: ready(url), serving.alive, "the service", serving.why)
        windows.probe(url, load, tag)
        alone = windows.window(f"{tag}: service alone", url)
        train_run = f"train-{sharing.name}"
        training = Background(engine, node_workflow(engine, train_run, train_argv(plan, "/ckpt"),
                                                    sharing.limits(plan.train_mb, sharing.train_cores), "ckpt"))
        ckpt = engine.volume(train_run, "ckpt")
        try:
            wait_until(lambda: steps_done(ckpt) > 0, training.alive, "the training", training.why)
            beside = windows.window(f"{tag}: service beside the training", url, ckpt)
        finally:
            training.end()
        again = windows.window(f"{tag}: service alone again", url)
    finally:
        serving.end()
    return {"alone": alone, "beside": beside, "again": again}


def peer(plan: Plan, sharing: Sharing, engine_dir: Path, windows: Windows, home: Path) -> dict[str, dict[str, Any]]:
    """The same windows with both programs started by hand on GPU 0, no pool and no memory cap."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    tag = f"peer, {sharing.name}"
    with by_hand(serve_argv(plan, engine_dir, port), sharing.by_hand_env(sharing.serve_cores)) as server:
        wait_until(lambda: ready(url), lambda: server.poll() is None, "the peer's service")
        alone = windows.window(f"{tag}: service alone, by hand", url)
        ckpt = home / f"peer-ckpt-{sharing.name}"
        ckpt.mkdir()
        with by_hand(train_argv(plan, ckpt), sharing.by_hand_env(sharing.train_cores)) as trainer:
            wait_until(lambda: steps_done(ckpt) > 0, lambda: trainer.poll() is None, "the peer's training")
            beside = windows.window(f"{tag}: service beside the training, both by hand", url, ckpt)
        again = windows.window(f"{tag}: service alone again, by hand", url)
    return {"alone": alone, "beside": beside, "again": again}


def p99_ratio(windows: dict[str, dict[str, Any]]) -> float:
    """p99 beside the training over the better of the two p99s alone (the stricter reading)."""
    return round(windows["beside"]["p99_ms"] / min(windows["alone"]["p99_ms"], windows["again"]["p99_ms"]), 3)


def over_cap(peaks: dict[str, int], run: str, share: int) -> int | None:
    mine = [peak for name, peak in peaks.items() if name.split("[")[0] == run and peak > 0]
    return max(mine) - share if mine else None


def summarize(plan: Plan, sharing: Sharing, mine: dict[str, dict[str, Any]], theirs: dict[str, dict[str, Any]],
              peaks: dict[str, int], rate: float) -> dict[str, Any]:
    """The summary keys of one sharing mode (suffixed ``_time_sliced`` for that mode)."""
    suffix = "" if sharing.name == "mps" else "_" + sharing.name.replace("-", "_")
    keys = {"colocated_p99_ratio": p99_ratio(mine), "peer_p99_ratio": p99_ratio(theirs), "offered_qps": rate,
            "serving_p99_alone_ms": min(mine["alone"]["p99_ms"], mine["again"]["p99_ms"]),
            "serving_p99_colocated_ms": mine["beside"]["p99_ms"],
            "training_steps_per_s": mine["beside"].get("training_steps_per_s"),
            "peer_training_steps_per_s": theirs["beside"].get("training_steps_per_s"),
            "errors": sum(r["errors"] for r in (*mine.values(), *theirs.values())),
            "serving_over_cap_mb": over_cap(peaks, f"serve-{sharing.name}", plan.serve_mb),
            "training_over_cap_mb": over_cap(peaks, f"train-{sharing.name}", plan.train_mb)}
    return {key + suffix: value for key, value in keys.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CPU smoke run on a pinned synthetic inventory")
    parser.add_argument("--load", type=float, default=0.5, help="open-loop rate as a share of the probe's QPS")
    parser.add_argument("--sharing", default=None,
                        help="comma-separated modes, of mps and time-sliced (default: both on a GPU; --quick: "
                             "time-sliced)")
    args = parser.parse_args()
    plan = QUICK_PLAN if args.quick else GPU_PLAN
    modes = (args.sharing or ("time-sliced" if args.quick else "mps,time-sliced")).split(",")
    if unknown := [m for m in modes if m not in SHARINGS]:
        parser.error(f"--sharing: unknown mode(s) {', '.join(unknown)} (known: {', '.join(SHARINGS)})")
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
        summary: dict[str, Any] = {"quick": args.quick, "usage_source": source, "sharing": modes}
        with meter if meter is not None else contextlib.nullcontext():
            for mode in modes:
                sharing = SHARINGS[mode]
                windows = Windows(plan, payloads, rows)
                with mps_daemon(work / "mps") if mode == "mps" else contextlib.nullcontext():
                    mine = ours(engine, plan, sharing, engines[plan.precision], windows, args.load)
                    theirs = peer(plan, sharing, engines[plan.precision], windows, home)
                summary |= summarize(plan, sharing, mine, theirs, meter.peaks if meter else {}, windows.rate)
        write_result("colocate_bench_quick" if args.quick else "colocate_bench", rows, summary,
                     extra={"plan": plan.__dict__, "sharings": {m: SHARINGS[m].__dict__ for m in modes},
                            "peaks_mb": meter.peaks if meter else {}})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
