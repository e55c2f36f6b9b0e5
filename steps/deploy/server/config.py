"""The serving runtime's settings (``ServerConfig``), its command line, and the engine bundle it serves."""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from aipipe.contract import CLASSES_FILE, ENGINE_MANIFEST, PREPROCESS_FILE
from aipipe.errors import UserError
from aipipe.gpushare import GPU_MEMORY_ENV
from aipipe.stepkit import granted_gpu_memory_mb

DEVICES = ("auto", "cpu", "cuda")
DECODERS = ("auto", "worker", "replica")
ACCEPTORS = ("proxy", "workers")
CHOICES = {"device": DEVICES, "decode": DECODERS, "acceptors": ACCEPTORS}
MAX_QUEUE = 16384  # keeps twice the in-flight control records within a 1 MiB pipe buffer


@dataclass(frozen=True)
class ServerConfig:
    """One service: the proxy, ``cpu_workers`` CPU processes and ``gpu_procs`` model replicas."""

    engine_dir: str
    host: str = "127.0.0.1"
    port: int = 8080  # 0 = any free port (the bound URL is printed)
    gpu_procs: int = 1
    cpu_workers: int = 2
    gpu_memory_mb_per_proc: int = 0  # cap per GPU process, CUDA context included; 0 = no cap
    max_batch: int = 64
    max_delay_ms: float = 5.0
    queue_size: int = 256  # in-flight requests (= shared-memory slots); more → 503
    device: str = "auto"
    request_timeout_s: float = 10.0
    max_body_mb: float = 8.0
    default_top_k: int = 5
    # where JPEGs are decoded: "worker" (PIL in the CPU workers), "replica" (the model replica batch-decodes
    # on its device: nvJPEG on CUDA), "auto" (the replica on CUDA with torchvision, the workers otherwise)
    decode: str = "auto"
    encoded_slot_kb: int = 256  # a JPEG larger than this is decoded by the worker
    # who accepts HTTP connections: "proxy" (the supervisor's one event loop), "workers" (every CPU worker too,
    # on the same port through SO_REUSEPORT, each serving the requests it accepts itself; see .front)
    acceptors: str = "proxy"

    def __post_init__(self) -> None:
        checks = [
            ("gpu_procs", self.gpu_procs >= 1, "must be >= 1"),
            ("cpu_workers", self.cpu_workers >= 1, "must be >= 1"),
            ("gpu_memory_mb_per_proc", self.gpu_memory_mb_per_proc >= 0, "must be >= 0"),
            ("max_batch", self.max_batch >= 1, "must be >= 1"),
            ("max_delay_ms", self.max_delay_ms >= 0, "must be >= 0"),
            ("queue_size", 1 <= self.queue_size <= MAX_QUEUE, f"must be in 1..{MAX_QUEUE}"),
            ("device", self.device in DEVICES, f"must be one of {', '.join(DEVICES)}"),
            ("decode", self.decode in DECODERS, f"must be one of {', '.join(DECODERS)}"),
            ("encoded_slot_kb", 1 <= self.encoded_slot_kb <= 16384, "must be in 1..16384"),
            ("acceptors", self.acceptors in ACCEPTORS, f"must be one of {', '.join(ACCEPTORS)}"),
            ("request_timeout_s", self.request_timeout_s > 0, "must be > 0"),
            ("max_body_mb", self.max_body_mb > 0, "must be > 0"),
            ("default_top_k", self.default_top_k >= 1, "must be >= 1"),
            ("port", 0 <= self.port <= 65535, "must be in 0..65535"),
        ]
        for name, ok, reason in checks:
            if not ok:
                raise UserError(f"{reason}, got {getattr(self, name)!r}", field=name.replace("_", "-"))
        if self.acceptors == "workers" and self.queue_size < self.cpu_workers + 1:
            raise UserError(f"must be at least cpu-workers + 1 ({self.cpu_workers + 1}) with --acceptors workers: "
                            f"the proxy and each worker get their own share of the slots, got {self.queue_size}",
                            field="queue-size")

    def slot_shares(self) -> tuple[range, list[range]]:
        """The slots the proxy's router hands out, and each worker's own (``acceptors="workers"``; else all
        slots are the router's)."""
        if self.acceptors != "workers":
            return range(self.queue_size), []
        share = self.queue_size // (self.cpu_workers + 1)
        workers = [range(self.queue_size - (k + 1) * share, self.queue_size - k * share)
                   for k in range(self.cpu_workers)]
        return range(self.queue_size - self.cpu_workers * share), workers

    def replica_decodes(self) -> bool:
        """Whether the replicas may decode JPEGs (and the pool needs a byte area): "replica", or "auto" where
        the device may be CUDA and torchvision is installed (each replica then says whether it does)."""
        if self.decode != "auto":
            return self.decode == "replica"
        return self.device != "cpu" and importlib.util.find_spec("torchvision") is not None

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)

    def to_argv(self) -> list[str]:
        """The ``python -m steps.deploy.server`` flags that reproduce this config."""
        argv: list[str] = []
        for item in fields(self):
            argv += [f"--{item.name.replace('_', '-')}", str(getattr(self, item.name))]
        return argv

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m {__package__}",
        description="Serve an engine bundle: async HTTP proxy, CPU pre/post-processing workers, GPU model "
                    "replicas with dynamic batching, tensors through shared memory.")
    defaults = ServerConfig(engine_dir="")
    for item in fields(ServerConfig):
        flag = f"--{item.name.replace('_', '-')}"
        if item.name == "engine_dir":
            parser.add_argument(flag, required=True, help="engine bundle folder (engine.json, classes.json, …)")
            continue
        default = getattr(defaults, item.name)
        kind = type(default)
        extra: dict[str, Any] = {"choices": CHOICES[item.name]} if item.name in CHOICES else {}
        parser.add_argument(flag, type=kind, default=default, help=f"(default: {default})", **extra)
    return parser


def parse_config(argv: list[str] | None = None) -> ServerConfig:
    ns = build_parser().parse_args(argv)
    return ServerConfig(**vars(ns))


def within_share(config: ServerConfig, env: Mapping[str, str]) -> ServerConfig:
    """Keep the replicas within the GPU memory share granted to the service's node (``AIPIPE_GPU_MEMORY_MB``,
    set by the embedded engine's pool): without ``--gpu-memory-mb-per-proc`` each replica gets an equal part;
    with it, the replicas together must fit the share. The supervisor and the CPU workers hold no CUDA context."""
    share = granted_gpu_memory_mb(env) if config.device != "cpu" else None
    if share is None:
        return config
    if config.gpu_memory_mb_per_proc == 0:
        return replace(config, gpu_memory_mb_per_proc=share // config.gpu_procs)
    if config.gpu_memory_mb_per_proc * config.gpu_procs > share:
        raise UserError(f"{config.gpu_procs} replica(s) x {config.gpu_memory_mb_per_proc} MiB is more than the "
                        f"node's GPU share of {share} MiB ({GPU_MEMORY_ENV})", field="gpu-memory-mb-per-proc")
    return config


@dataclass(frozen=True)
class ServingSpec:
    """What serving needs from the engine bundle: shapes, label map, preprocessing, version."""

    manifest: dict[str, Any]
    classes: list[str]
    preprocess: dict[str, Any]
    input_shape: tuple[int, int, int]

    @property
    def model_version(self) -> str:
        return str(self.manifest.get("model_version", ""))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError("missing from the engine bundle", field=str(path)) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"unreadable: {exc}", field=str(path)) from None


def load_serving_spec(engine_dir: str | Path) -> ServingSpec:
    """Read and cross-check ``engine.json``, ``classes.json`` and ``preprocess.json``."""
    root = Path(engine_dir)
    if not root.is_dir():
        raise UserError("not a folder", field=f"engine-dir {root}")
    manifest = _read_json(root / ENGINE_MANIFEST)
    classes = _read_json(root / CLASSES_FILE)
    preprocess = _read_json(root / PREPROCESS_FILE)
    if not isinstance(classes, list) or len(classes) < 1 or not all(isinstance(c, str) for c in classes):
        raise UserError("must be a non-empty JSON list of class names", field=str(root / CLASSES_FILE))
    if not isinstance(preprocess, dict):
        raise UserError("must be a JSON object", field=str(root / PREPROCESS_FILE))
    for key in ("input_size", "mean", "std"):
        if key not in preprocess:
            raise UserError(f"missing key {key!r}", field=str(root / PREPROCESS_FILE))
    if preprocess.get("layout", "NCHW") != "NCHW":
        raise UserError(f"layout {preprocess['layout']!r} is not supported (NCHW only)", field="preprocess.layout")
    if preprocess.get("color", "RGB") not in ("RGB", "BGR"):
        raise UserError(f"color {preprocess['color']!r} is not supported (RGB, BGR)", field="preprocess.color")
    if not (len(preprocess["mean"]) == len(preprocess["std"]) == 3) or min(preprocess["std"]) <= 0:
        raise UserError("mean and std need 3 values, std > 0", field=str(root / PREPROCESS_FILE))
    size = int(preprocess["input_size"])
    shape = (3, size, size)
    declared = manifest.get("input_shape") if isinstance(manifest, dict) else None
    if declared is not None and tuple(int(v) for v in declared) != shape:
        raise UserError(f"engine input_shape {list(declared)} does not match preprocess input_size {size}",
                        field=str(root / ENGINE_MANIFEST))
    return ServingSpec(manifest=dict(manifest), classes=list(classes), preprocess=dict(preprocess), input_shape=shape)
