"""Serving benchmark: ours next to the naive server and the competent peer, in one run on one machine.

Same model (ResNet-50, 1000 classes, 224 px; ``--quick``: resnet_tiny at 32 px on CPU), same photo-like
320-px JPEG requests, same loopback load generator (aiohttp clients in their own processes, pinned to their
own cores; the server gets the others). Rows:

- ``a-naive``: one process decodes (PIL) and infers (PyTorch FP32, batch 1) each request inline;
- ``a-peer-xN``: the competent peer, N copies of that server on one port (SO_REUSEPORT), N = our CPU workers;
- ``f-front-ceiling``: one aiohttp process answering a fixed JSON: the single-process front's HTTP ceiling;
- ``ours-{fp32,fp16}-{worker,replica}``: our server, the JPEGs decoded by the CPU workers (PIL) or by the
  model replicas on the GPU (nvJPEG, ``--decode replica``);
- closed-loop QPS and p50/p99 at each concurrency, unloaded latency (c=1), open-loop latency at a fixed
  offered load, CPU time of the server's whole process tree per request, the load generator's busy cores;
- ``d-…``: N memory-capped FP16 services (one replica each, replica decode, the server cores split evenly) on
  one GPU vs one such service; NVML per-process memory sampled and checked against the cap; each service's CPU
  (its process tree's and its replica's) per request and cores busy over the window, NVML's GPU utilisation; the
  ratio is the median of ``--packing-runs`` runs.

A SIGTERM (``timeout``, a lease ending) stops the bench's services and writes the rows and packing runs measured
so far, the interrupted configuration named in ``errors``.

``--mps`` runs every server of the bench under an MPS daemon it starts on the load generator's cores (kernels of
several processes then share the SMs instead of taking turns); ``--only packing --mps`` packs the services that way.
With ``--packing-sm-percent P`` each packed service also runs on P % of the SMs (``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE``).

Engine bundles are built here with the conversion step's own code (``--quick``: its ONNX Runtime backend).
Run from the repo root: ``python3 bench/serve_bench.py`` (GPU) or ``python3 bench/serve_bench.py --quick``
(CPU smoke); ``--only`` picks configurations.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from aipipe.engine.gpushare import MPS_PERCENT_ENV  # noqa: E402
from bench.loadgen import Payload, make_jpegs, measure, measure_open  # noqa: E402
from bench.mps import mps_daemon  # noqa: E402
from bench.proc_cpu import process_cpu_s, tree_cpu_s  # noqa: E402
from bench.results_io import write_result  # noqa: E402
from bench.serve_peers import NaiveServer, TrivialFront  # noqa: E402
from steps.deploy.server.front import STATS_EVERY_S  # noqa: E402


# --- bundles -----------------------------------------------------------------------------------------
def build_bundles(work: Path, arch: str, image_size: int, num_classes: int, precisions: Sequence[str],
                  max_batch: int, backend: str = "pytorch", compiled: bool = True) -> tuple[Path, dict[str, Path]]:
    """A model bundle (random weights) and one engine bundle per precision (``backend``: pytorch | onnxruntime).

    On a GPU the PyTorch engines are compiled at build time as the convert step does (``torch.compile``
    mode ``default``, compile cache in the bundle): replicas start uncompiled and swap the compiled engine in.
    ``compiled=False`` leaves that out (replicas serve the eager engine)."""
    import torch

    from mlkit.engine.backends.base import PrecisionPlan
    from mlkit.engine.backends.onnx_fp16 import OnnxRuntimeBackend
    from mlkit.engine.backends.torch_backend import TorchBackend
    from mlkit.engine.inspect import inspect_model, load_onnx
    from mlkit.export import write_model_bundle
    from mlkit.model import build_model, model_config, preprocess_spec
    from steps.convert_trt.bundle import write_engine_bundle
    from steps.convert_trt.config import PrecisionConfig

    torch.manual_seed(0)
    model = build_model(arch, num_classes).eval()
    classes = [f"class_{i:04d}" for i in range(num_classes)]
    model_dir = write_model_bundle(work / "model", model, model_config(arch, num_classes), classes,
                                   preprocess_spec(image_size))
    onnx_model = load_onnx(model_dir / "model.onnx")
    info = inspect_model(onnx_model, expected_input="input", batch=(1, max_batch // 2, max_batch))
    engines = {}
    for precision in precisions:
        cuda = torch.cuda.is_available()
        mode = "default" if cuda and compiled else None
        builder = (TorchBackend(model_dir, device="cuda" if cuda else "cpu", compile_mode=mode,
                                input_shape=(3, image_size, image_size), max_batch=max_batch)
                   if backend == "pytorch" else OnnxRuntimeBackend())
        built = builder.build(onnx_model, PrecisionPlan(precision), work / f"build-{precision}")
        engines[precision] = write_engine_bundle(work / f"engine-{precision}", engine=built, info=info,
                                                 config=PrecisionConfig(), model_bundle=model_dir,
                                                 model_version=f"bench-{precision}")
    return model_dir, engines


# --- (d) GPU memory per process ----------------------------------------------------------------------
class NvmlSampler:
    """Peak NVML memory per process on GPU 0 while running, and NVML's GPU utilisation (the share of time a kernel
    ran) sampled meanwhile (both empty when NVML is unavailable)."""

    def __init__(self) -> None:
        self.peak: dict[int, float] = {}
        self.busy_pct: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception:
            return
        try:
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            while not self._stop.is_set():
                for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                    used = (proc.usedGpuMemory or 0) / 2**20
                    self.peak[proc.pid] = max(self.peak.get(proc.pid, 0.0), used)
                self.busy_pct.append(int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu))
                self._stop.wait(0.2)
        finally:
            pynvml.nvmlShutdown()

    def __enter__(self) -> NvmlSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def mean_busy_pct(self) -> float:
        """NVML's GPU utilisation averaged over the samples past the first second (NaN without NVML)."""
        settled = self.busy_pct[5:]
        return round(statistics.fmean(settled), 1) if settled else math.nan


def gpu_pids(server: Any) -> list[int]:
    return [int(g["pid"]) for g in server.get_json("/v1/info")[1]["gpu_processes"]]


def footprint_mb(server: Any) -> float | None:
    """The replica's NVML footprint: after the compiled engine's swap when it upgraded, else at ready."""
    info = server.get_json("/v1/info")[1]["gpu_processes"][0].get("info", {})
    value = info.get("upgrade", {}).get("footprint_mb") or info.get("memory", {}).get("footprint_mb")
    return float(value) if value is not None else None


# --- the benchmark --------------------------------------------------------------------------------------
def start_ours(engine_dir: Path, *, workers: int, gpu_procs: int, device: str, cap_mb: int = 0,
               max_batch: int = 64, decode: str = "auto", acceptors: str = "workers", cores: Sequence[int] = (),
               max_delay_ms: float = 2.0, log: Any = None) -> Any:
    """Our server, its processes on ``cores`` (all when empty)."""
    from steps.deploy.server import ServerConfig, launch

    config = ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=workers, gpu_procs=gpu_procs,
                          device=device, gpu_memory_mb_per_proc=cap_mb, max_batch=max_batch, max_delay_ms=max_delay_ms,
                          queue_size=1024, request_timeout_s=30.0, decode=decode, acceptors=acceptors)
    with pinned(cores):
        server = launch(config, timeout_s=300, log=log)
    try:
        wait_compiled(server)
    except BaseException:  # not upgraded, or the bench stopped meanwhile: no service left behind
        server.stop()
        raise
    return server


def wait_compiled(server: Any, timeout_s: float = 240.0) -> None:
    """Wait until every replica of a tiered start has swapped its compiled engine in (or said why not):
    the service's steady state, which is what the benchmark measures."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replicas = [g.get("info", {}) for g in server.get_json("/v1/info")[1]["gpu_processes"]]
        if all(not info.get("tiered") or "upgrade" in info for info in replicas):
            return
        time.sleep(0.5)
    raise TimeoutError(f"replicas not upgraded to the compiled engine within {timeout_s:g} s")


@contextlib.contextmanager
def pinned(cores: Sequence[int]) -> Iterator[None]:
    """Run the block on ``cores`` (all when empty): processes started inside inherit them."""
    saved = os.sched_getaffinity(0)
    if cores:
        os.sched_setaffinity(0, set(cores))
    try:
        yield
    finally:
        os.sched_setaffinity(0, saved)


def batches_seen(server: Any) -> tuple[float, float]:
    """(requests, batches) the service's replicas have run so far, from its batch-size histogram."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(server.url + "/metrics", timeout=5.0) as resp:
        text = resp.read().decode()
    found = {sample.name: sample.value for family in text_string_to_metric_families(text)
             if family.name == "aipipe_serving_batch_size" for sample in family.samples}
    return found.get("aipipe_serving_batch_size_sum", 0.0), found.get("aipipe_serving_batch_size_count", 0.0)


def cpu_probe(server: Any) -> Callable[[], tuple[float, float]]:
    """Reads (CPU seconds of the server's whole process tree, of its model replicas) so far."""
    replicas = gpu_pids(server)
    return lambda: (tree_cpu_s(server.pid), process_cpu_s(replicas))


def with_cpu_columns(point: dict[str, Any], duration_s: float) -> dict[str, Any]:
    """A point measured with :func:`cpu_probe` as its window probe, its ``window_delta`` turned into the CPU the
    server's tree and its replicas used per request (NaN when no request completed) and the cores each kept busy."""
    row = dict(point)
    used, replica_used = row.pop("window_delta")
    requests = row["requests"]
    return {**row, "cpu_ms_per_request": round(1000 * used / requests, 3) if requests else math.nan,
            "replica_cpu_ms_per_request": round(1000 * replica_used / requests, 3) if requests else math.nan,
            "cores_busy": round(used / duration_s, 2), "replica_cores_busy": round(replica_used / duration_s, 2)}


class Plan:
    """The sizes of one run: model, concurrencies, durations, and how the cores are split."""

    def __init__(self, quick: bool, device: str, duration: float | None, services: int | None,
                 gpu_procs: int | None = None, max_delay_ms: float = 0.0,
                 packing_concurrency: int | None = None, packing_clients: int | None = None,
                 packing_sm_percent: int | None = None) -> None:
        self.quick, self.device = quick, device
        cpus = sorted(os.sched_getaffinity(0))
        self.arch, self.size, self.classes, self.max_batch = (("resnet_tiny", 32, 10, 16) if quick
                                                              else ("resnet50", 224, 1000, 64))
        self.concurrencies = [8] if quick else [64, 128, 256]
        self.duration = duration or (1.5 if quick else 6.0)
        self.warmup = 0.5 if quick else 2.0
        self.services = services or (2 if quick else 4)
        client_cores = 0 if len(cpus) <= 4 else max(2, len(cpus) // 4)  # 16 cores: 4 for the load generator
        self.client_cores = cpus[len(cpus) - client_cores:] if client_cores else []
        self.server_cores = cpus[:len(cpus) - client_cores] if client_cores else []
        self.client_procs = max(1, client_cores)
        server = len(self.server_cores) or len(cpus)
        self.gpu_procs = gpu_procs or 1  # one replica: its pipeline keeps the GPU busy (two only time-slice it)
        self.workers = max(1, min(16, server - 1 - self.gpu_procs))  # after the proxy and the replicas
        self.workers_per_service = max(1, server // self.services - 2)  # the proxy, a replica, the workers
        self.max_delay_ms = max_delay_ms
        # each packed service gets half the headline's lowest load (c=32): at c=64 one service alone is past its
        # capacity and serves less (2.6-3.4k against 3.4-4.7k requests/s in one H200 lease), which would inflate
        # the ratio by shrinking its denominator (see the README)
        self.packing_concurrency = packing_concurrency or max(8, self.concurrencies[0] // 2)
        # load-generator processes per packed service (alone and packed alike): the client cores' share by default
        self.packing_clients = packing_clients or max(1, self.client_procs // self.services)
        # an MPS share of the SMs for each packed service, alone and packed alike (None: no compute cap)
        self.packing_sm_percent = packing_sm_percent

    def describe(self) -> dict[str, Any]:
        return {"server_cores": len(self.server_cores) or "all", "client_cores": len(self.client_cores) or "shared",
                "client_procs": self.client_procs, "cpu_workers": self.workers, "gpu_procs": self.gpu_procs,
                "services_packed": self.services, "cpu_workers_per_packed_service": self.workers_per_service,
                "duration_s": self.duration, "model": f"{self.arch}@{self.size}", "max_delay_ms": self.max_delay_ms,
                "packing_concurrency_per_service": self.packing_concurrency,
                "packing_client_procs_per_service": self.packing_clients,
                "packing_sm_percent_per_service": self.packing_sm_percent}


CONFIGS = ("naive", "peer", "front", "fp32-worker", "fp32-replica", "fp16-worker", "fp16-replica",
           "fp16-replica-proxy", "packing")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny model on CPU, short runs (smoke test)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--duration", type=float, help="measured seconds per point")
    parser.add_argument("--services", type=int, help="services packed on one GPU")
    parser.add_argument("--gpu-procs", type=int, help="model replicas of our server (default 1)")
    parser.add_argument("--packing-runs", type=int, help="runs of the packing measurement, median taken (3; --quick 1)")
    parser.add_argument("--packing-concurrency", type=int,
                        help="closed-loop connections per packed service, alone and packed alike (default: half "
                             "the first concurrency, 32; --quick 8)")
    parser.add_argument("--packing-clients", type=int,
                        help="load-generator processes per packed service, alone and packed alike (default: the "
                             "client processes split among the services, 1 on 16 cores)")
    parser.add_argument("--packing-sm-percent", type=int, metavar="P",
                        help="with --mps: cap each packed service, alone and packed alike, at P %% of the SMs "
                             "(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, as the engine sets a node's compute share); "
                             "default: memory caps only")
    parser.add_argument("--mps", action="store_true",
                        help="run every server of the bench (the peers' and ours) under an MPS daemon it starts")
    parser.add_argument("--max-delay-ms", type=float, default=0.0,
                        help="how long a replica waits to fill a batch (0, the default: a request runs as soon as "
                             "the replica has room, batches then form while the GPU is busy; on the H200 this beat "
                             "2 ms up to c=128 and lost at c=256, see the README)")
    parser.add_argument("--only", default=",".join(CONFIGS), help=f"comma-separated subset of {','.join(CONFIGS)}")
    args = parser.parse_args(argv)
    if args.packing_sm_percent is not None and not (args.mps and 1 <= args.packing_sm_percent <= 100):
        parser.error("--packing-sm-percent needs --mps and a percentage from 1 to 100")

    import torch

    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    plan = Plan(args.quick, device, args.duration, args.services, args.gpu_procs, args.max_delay_ms,
                args.packing_concurrency, args.packing_clients, args.packing_sm_percent)
    only = set(args.only.split(","))
    log = sys.stderr
    print(f"serve_bench: device={device} {plan.describe()}", file=log, flush=True)
    payloads = [Payload(d, "image/jpeg") for d in make_jpegs(32 if plan.quick else 64, size=320)]
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    extra: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="aipipe-serve-bench-") as tmp:
        started = time.monotonic()
        precisions = ("fp32", "fp16") if any("fp32" in name for name in only) else ("fp16",)
        model_dir, engines = build_bundles(Path(tmp), plan.arch, plan.size, plan.classes, precisions,
                                           plan.max_batch, backend="onnxruntime" if plan.quick else "pytorch")
        print(f"serve_bench: bundles built in {time.monotonic() - started:.0f} s", file=log, flush=True)
        run = Runner(plan, payloads, rows, log)
        phases: list[tuple[str, Callable[[], None]]] = [
            ("naive", lambda: run.peer("a-naive", model_dir, 1, c1=True)),
            ("peer", lambda: run.peer(f"a-peer-x{plan.workers}", model_dir, plan.workers)),
            ("front", run.front_ceiling),
            *[(f"{prec}-{where}", lambda prec=prec, where=where: run.ours(engines[prec], prec, where))
              for prec in ("fp32", "fp16") for where in ("worker", "replica")],
            ("fp16-replica-proxy", lambda: run.ours(engines["fp16"], "fp16", "replica", acceptors="proxy")),
            ("packing", lambda: run.packing(engines["fp16"], args.packing_runs or (1 if plan.quick else 3), extra))]
        with stopped_by_sigterm(), \
                mps_daemon(Path(tmp) / "mps-all", plan.client_cores) if args.mps else contextlib.nullcontext():
            for name, fn in phases:
                if name not in only:
                    continue
                try:
                    fn()
                except Exception as exc:  # recorded; the other configurations still run
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")
                    print(f"serve_bench: {name} failed: {exc!r}", file=log, flush=True)
                except BenchStopped:  # e.g. `timeout`: what was measured so far is still written
                    errors.append(f"{name}: stopped by SIGTERM; the rows and runs before it are kept")
                    print(f"serve_bench: stopped during {name}; writing what was measured", file=log, flush=True)
                    break
    summary = summarize(rows, plan, extra, run.cpu_ms)
    summary["under_mps"] = args.mps
    write_result("serve_bench" + ("_quick" if plan.quick else ""), rows, summary,
                 extra={"plan": plan.describe(), "errors": errors,
                        "packing": {k: v for k, v in extra.items() if k != "packing_ratio"}})


class BenchStopped(BaseException):
    """SIGTERM arrived (``timeout``, a lease ending): a BaseException, so the phases' handlers let it pass."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`BenchStopped` (servers stop in their ``finally`` blocks)."""
    def stop(signum: int, frame: object) -> None:
        raise BenchStopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Runner:
    """Runs each configuration's points and appends their rows."""

    def __init__(self, plan: Plan, payloads: list[Payload], rows: list[dict[str, Any]], log: Any) -> None:
        self.plan, self.payloads, self.rows, self.log = plan, payloads, rows, log
        self.cpu_ms: dict[str, float] = {}

    def _point(self, config: str, url: str, conc: int, extra: dict[str, Any],
               window_probe: Callable[[], tuple[float, float]] | None = None) -> dict[str, Any]:
        p = self.plan
        point = measure(url, self.payloads, conc, warmup_s=p.warmup, duration_s=p.duration,
                        procs=min(conc, p.client_procs), cores=p.client_cores, window_probe=window_probe)
        row = {"config": config, **(with_cpu_columns(point, p.duration) if window_probe else point), **extra}
        self.rows.append(row)
        print(f"serve_bench: {row}", file=self.log, flush=True)
        return row

    def peer(self, config: str, model_dir: Path, copies: int, c1: bool = False) -> None:
        p = self.plan
        threads = 4 if copies == 1 else 1
        with pinned(p.server_cores):
            server = NaiveServer(model_dir, p.device, copies=copies, threads=threads)
        try:
            for conc in ([1] if c1 else []) + p.concurrencies:
                self._point(config, server.url, conc, {"processes": copies})
        finally:
            server.stop()

    def front_ceiling(self) -> None:
        with pinned(self.plan.server_cores):
            server = TrivialFront()
        try:
            for conc in self.plan.concurrencies:
                self._point("f-front-ceiling", server.url, conc, {"processes": 1})
        finally:
            server.stop()

    def ours(self, engine: Path, precision: str, where: str, acceptors: str = "workers") -> None:
        """Our server (JPEGs decoded ``where``: by the workers or the replicas; HTTP accepted by the proxy alone
        or by every worker too)."""
        p = self.plan
        server = start_ours(engine, workers=p.workers, gpu_procs=p.gpu_procs, device=p.device,
                            max_batch=p.max_batch, decode=where, acceptors=acceptors, cores=p.server_cores,
                            max_delay_ms=p.max_delay_ms, log=self.log)
        config = f"ours-{precision}-{where}" + ("-proxy" if acceptors == "proxy" else "")
        try:
            extra = {"workers": p.workers, "gpu_procs": p.gpu_procs, "decode": where, "acceptors": acceptors}
            if precision == "fp16" and where == "replica" and acceptors == "workers":
                self._point(config, server.url, 1, extra)
            top = None
            for conc in p.concurrencies:
                seen_before = batches_seen(server)
                row = self._point(config, server.url, conc, extra, window_probe=cpu_probe(server))
                time.sleep(2 * STATS_EVERY_S)  # the workers' batch counts reach /metrics this often
                requests, batches = (now - then for now, then in zip(batches_seen(server), seen_before, strict=True))
                row["mean_batch"] = round(requests / batches, 1) if batches else math.nan
                if conc == 128 or (top is None and conc == p.concurrencies[-1]):
                    top = row
            if top is not None:
                self.cpu_ms[config] = top["cpu_ms_per_request"]
                rate = round(0.5 * top["qps"], -1) or 10.0
                opened = measure_open(server.url, self.payloads, rate, warmup_s=p.warmup, duration_s=p.duration,
                                      procs=p.client_procs, cores=p.client_cores)
                self.rows.append({"config": config, "open_loop": True, **opened, **extra})
                print(f"serve_bench: open loop {self.rows[-1]}", file=self.log, flush=True)
        finally:
            server.stop()

    def packing(self, engine: Path, runs: int, into: dict[str, Any]) -> None:
        """``runs`` times: one capped service alone, then N at once, each on its own share of the server cores.
        ``into`` is updated after every run, so a bench stopped part-way still records the runs it finished."""
        p = self.plan
        conc = p.packing_concurrency
        ratios: list[float] = []
        peaks: list[float] = []
        cap_mb = 0
        for attempt in range(runs):
            result = pack(engine, self.payloads, p, conc, cap_mb, self.log)
            cap_mb = result["cap_mb"]
            ratios.append(result["ratio"])
            peaks += result["peak_mb"]
            for row in result["rows"]:
                self.rows.append({**row, "run": attempt + 1})
            print(f"serve_bench: packing run {attempt + 1}/{runs}: ratio {result['ratio']}", file=self.log, flush=True)
            into.update({"packing_ratios": list(ratios), "packing_ratio": statistics.median(ratios),
                         "packing_cap_mb": cap_mb, "packing_peak_gpu_mb": sorted(peaks),
                         "packing_within_cap": bool(cap_mb) and bool(peaks) and all(mb <= cap_mb for mb in peaks)})


def _core_shares(cores: Sequence[int], n: int) -> list[list[int]]:
    """``cores`` split into ``n`` contiguous shares (empty lists when there is nothing to split)."""
    if len(cores) < n:
        return [[] for _ in range(n)]
    size = len(cores) // n
    return [list(cores[k * size:(k + 1) * size]) for k in range(n)]


@contextlib.contextmanager
def sm_share(percent: int | None) -> Iterator[None]:
    """Processes started in the block run on ``percent`` % of the SMs under MPS (no cap when None)."""
    saved = os.environ.get(MPS_PERCENT_ENV)
    if percent is not None:
        os.environ[MPS_PERCENT_ENV] = str(percent)
    try:
        yield
    finally:
        os.environ.pop(MPS_PERCENT_ENV, None)
        if saved is not None:
            os.environ[MPS_PERCENT_ENV] = saved


def pack(engine: Path, payloads: list[Payload], plan: Plan, conc: int, cap_mb: int, log: Any) -> dict[str, Any]:
    """One capped service alone, then ``plan.services`` capped services at once (FP16, one replica and replica
    decode each, each on its own share of the server cores, with ``--packing-sm-percent`` each on its share of
    the SMs too), each under the same load."""
    n, device = plan.services, plan.device
    shares = _core_shares(plan.server_cores, n)
    clients = plan.packing_clients

    def start(cores: Sequence[int]) -> Any:
        return start_ours(engine, workers=plan.workers_per_service, gpu_procs=1, device=device, cap_mb=cap_mb,
                          max_batch=plan.max_batch, decode="replica" if device == "cuda" else "worker", cores=cores,
                          max_delay_ms=plan.max_delay_ms, log=log)

    if not cap_mb and device == "cuda":  # the cap: the uncapped replica's footprint plus a quarter
        probe = start(shares[0])
        try:
            cap_mb = int(math.ceil((footprint_mb(probe) or 4096) * 1.25 / 64) * 64)
        finally:
            probe.stop()
    def load(server: Any) -> dict[str, Any]:
        """The service's closed-loop point, with the CPU its process tree and its replica used per request and the
        cores they kept busy over the measured window (whether the service is CPU-bound on its share)."""
        return with_cpu_columns(measure(server.url, payloads, conc, warmup_s=plan.warmup, duration_s=plan.duration,
                                        procs=clients, cores=plan.client_cores, window_probe=cpu_probe(server)),
                                plan.duration)

    with sm_share(plan.packing_sm_percent):
        return _pack_measured(start, shares, plan, load, cap_mb)


def _pack_measured(start: Callable[[Sequence[int]], Any], shares: list[list[int]], plan: Plan,
                   load: Callable[[Any], dict[str, Any]], cap_mb: int) -> dict[str, Any]:
    """The packing measurement proper: one service alone, then ``plan.services`` at once."""
    from concurrent.futures import Future, ThreadPoolExecutor

    n = plan.services
    one = start(shares[0])
    try:
        with NvmlSampler() as alone:
            single = {**load(one), "gpu_busy_pct": alone.mean_busy_pct()}
    finally:
        one.stop()
    futures: list[Future[Any]] = []
    try:
        with ThreadPoolExecutor(n) as pool:
            futures = [pool.submit(start, shares[k]) for k in range(n)]
        servers = [f.result() for f in futures if f.exception() is None]
        failed = [f.exception() for f in futures if f.exception() is not None]
        if failed:
            raise RuntimeError(f"{len(failed)} of {n} capped services failed to start: {failed[0]}")
        pids = [pid for s in servers for pid in gpu_pids(s)]
        results: list[dict[str, Any]] = [{} for _ in servers]

        def drive(k: int) -> None:
            results[k] = load(servers[k])

        with NvmlSampler() as sampler:
            threads = [threading.Thread(target=drive, args=(k,)) for k in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:  # every service that started, those still starting when the bench was stopped included
        for future in futures:
            if future.exception() is None:
                future.result().stop()
    ours = {pid: mb for pid, mb in sampler.peak.items() if pid in pids}
    seen = ours or sampler.peak  # another pid namespace: every process on the GPU is one of ours
    common = {"workers": plan.workers_per_service, "gpu_procs": 1, "cap_mb": cap_mb, "cores": len(shares[0]) or "all",
              "sm_percent": plan.packing_sm_percent or 100}
    rows = [{"config": "d-one-service", **single, **common}]
    rows += [{"config": f"d-service-{k + 1}-of-{n}", **res, **common, "gpu_busy_pct": sampler.mean_busy_pct()}
             for k, res in enumerate(results)]
    aggregate = sum(r["qps"] for r in results)
    return {"rows": rows, "cap_mb": cap_mb, "peak_mb": list(seen.values()),
            "ratio": round(aggregate / single["qps"], 2) if single["qps"] else math.nan}


def summarize(rows: list[dict[str, Any]], plan: Plan, packing: dict[str, Any],
              cpu_ms: dict[str, float]) -> dict[str, Any]:
    """The headline numbers the serving issue names (NaN where a point is missing: it cannot pass a goal)."""
    missing = {"qps": math.nan, "p50_ms": math.nan, "p99_ms": math.nan}

    def point(config: str, conc: int) -> dict[str, Any]:
        return next((r for r in rows if r["config"] == config and r.get("concurrency") == conc), missing)

    def ratio(a: float, b: float) -> float:
        return round(a / b, 2) if b and math.isfinite(a) and math.isfinite(b) else math.nan

    top = 128 if 128 in plan.concurrencies else plan.concurrencies[-1]
    peer = f"a-peer-x{plan.workers}"
    best16 = max(("ours-fp16-replica", "ours-fp16-worker"), key=lambda c: point(c, top)["qps"]
                 if math.isfinite(point(c, top)["qps"]) else -1)
    best32 = max(("ours-fp32-replica", "ours-fp32-worker"), key=lambda c: point(c, top)["qps"]
                 if math.isfinite(point(c, top)["qps"]) else -1)
    summary: dict[str, Any] = {
        f"qps_fp16_c{top}": point(best16, top)["qps"],
        f"p99_ms_fp16_c{top}": point(best16, top)["p99_ms"],
        "fp16_config": best16,
        "qps_ratio_vs_naive_copies": ratio(point(best16, top)["qps"], point(peer, top)["qps"]),
        "qps_ratio_vs_naive": ratio(point(best16, top)["qps"], point("a-naive", top)["qps"]),
        "fp16_over_fp32_qps": ratio(point(best16, top)["qps"], point(best32, top)["qps"]),
        "replica_over_worker_decode_fp16": ratio(point("ours-fp16-replica", top)["qps"],
                                                 point("ours-fp16-worker", top)["qps"]),
        "worker_acceptors_over_proxy_fp16": ratio(point("ours-fp16-replica", top)["qps"],
                                                  point("ours-fp16-replica-proxy", top)["qps"]),
        "front_ceiling_qps": max((point("f-front-ceiling", c)["qps"] for c in plan.concurrencies), default=math.nan),
        f"packing_ratio_{plan.services}": packing.get("packing_ratio", math.nan),
        "packing_services": plan.services,
        "packing_within_cap": packing.get("packing_within_cap", False),
        "packing_cap_mb": packing.get("packing_cap_mb", 0),
        "cpu_ms_per_request": cpu_ms.get(best16, math.nan),
        "cpu_ms_per_request_worker_decode": cpu_ms.get("ours-fp16-worker", math.nan),
        "p50_ms_fp16_c1": point("ours-fp16-replica", 1)["p50_ms"],
        "p50_ms_naive_c1": point("a-naive", 1)["p50_ms"],
        "ratios_at_concurrency": top,
    }
    summary.update({
        f"goal_qps_fp16_c{top}_ge_10000": summary[f"qps_fp16_c{top}"] >= 10000,
        f"goal_p99_fp16_c{top}_le_30ms": summary[f"p99_ms_fp16_c{top}"] <= 30,
        "goal_ge_10x_peer": summary["qps_ratio_vs_naive_copies"] >= 10,
        "goal_fp16_ge_1_5x_fp32": summary["fp16_over_fp32_qps"] >= 1.5,
        f"goal_packing_{plan.services}_ge_3_5x": summary[f"packing_ratio_{plan.services}"] >= 3.5,
    })
    return summary


if __name__ == "__main__":
    main()
