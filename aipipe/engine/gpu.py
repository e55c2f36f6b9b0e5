"""GPUs of this machine and what a node asks of them: inventory and requests (placement: :mod:`gpupolicy`).

Inventory, first found: ``<state dir>/gpus.json`` (a pinned list, ``[{"index": 0, "memory_mb": 81920}]``: to hand
out only some GPUs, or for tests), NVML (``nvidia-ml-py``, imported only when needed), ``nvidia-smi``; when
``CUDA_VISIBLE_DEVICES`` is set in the engine's environment only the GPUs it names (by index) are handed out.
A GPU whose memory is unknown (``memory_mb`` 0) is only ever granted whole.

Requests (limits, else requests), HAMi's names: ``nvidia.com/gpu: N`` is N whole GPUs; with
``nvidia.com/gpumem: M`` (MiB) and/or ``nvidia.com/gpucores: C`` (percent of the GPU's compute) it is N shares,
each on another GPU (``gpumem``/``gpucores`` alone mean one share; a compute share without memory takes all of
the GPU's memory). Fractional GPU counts (``"0.5"``) are refused: a share is said in memory and compute. KAI's
pod annotations are read too when the resources ask for no GPU: ``gpu-memory: M`` is one share of M MiB,
``gpu-fraction: F`` is honoured with one whole GPU (more than asked: the pool shares by memory, not fractions).
Priority in the pool's queue: HAMi's ``nvidia.com/priority`` (limits, else requests) when the template sets it,
else the workflow's ``spec.priority``; the node's own setting wins, being the more specific. HAMi's 0 (its high
class) queues as priority 1 and its low class (1 and above, HAMi's default) as 0, an unset ``spec.priority``'s
level: a HAMi-high node goes ahead of default work and behind workflows of ``spec.priority`` 2 or more.
A node may be preempted only when its template says so: ``metadata.annotations["aipipe.dev/preemptible"]:
"true"`` (it checkpoints on SIGTERM), within ``aipipe.dev/preemption-grace-seconds`` (default 30) before SIGKILL.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aipipe import gpushare
from aipipe.errors import UserError

GPU, GPUMEM, GPUCORES = gpushare.GPU, gpushare.HAMI_MEMORY, gpushare.HAMI_CORES
HAMI_PRIORITY = gpushare.HAMI_PRIORITY
HAMI_HIGH, HAMI_LOW = 1, 0  # the pool priorities HAMi's high (0) and low (1+) classes queue at
PREEMPTIBLE = gpushare.PREEMPTIBLE
GRACE = "aipipe.dev/preemption-grace-seconds"
DEFAULT_GRACE_S = 30.0
INVENTORY_FILE = "gpus.json"
FRACTION_HINT = ("a GPU share is said in memory: ask for nvidia.com/gpu: 1 and nvidia.com/gpumem: <MiB> "
                 "(and nvidia.com/gpucores: <percent> for compute; the embedded engine and HAMi pack such "
                 "shares onto one GPU)")


@dataclass(frozen=True)
class GpuInfo:
    """One GPU: its index (what CUDA_VISIBLE_DEVICES names), total memory in MiB (0: unknown), model."""

    index: int
    memory_mb: int = 0
    name: str = ""


@dataclass(frozen=True)
class Inventory:
    """The GPUs the pool hands out and where that list came from."""

    gpus: tuple[GpuInfo, ...]
    source: str

    def by_index(self) -> dict[int, GpuInfo]:
        return {g.index: g for g in self.gpus}


@dataclass(frozen=True)
class GpuRequest:
    """``count`` GPUs; whole ones when ``memory_mb`` and ``cores`` are None, else a share on each of that many
    MiB (None: all the memory) and that percent of compute (None: no claim, time-sliced)."""

    count: int
    memory_mb: int | None = None
    cores: int | None = None
    preemptible: bool = False
    priority: int | None = None  # from HAMi's nvidia.com/priority; None: the workflow's spec.priority

    def describe(self) -> str:
        if self.memory_mb is None and self.cores is None:
            return f"{self.count} GPU" + ("s" if self.count != 1 else "")
        share = " + ".join([*([f"{self.memory_mb} MiB"] if self.memory_mb is not None else []),
                            *([f"{self.cores}% compute"] if self.cores is not None else [])])
        return share + (f" on each of {self.count} GPUs" if self.count > 1 else "")


@dataclass(frozen=True)
class Lease:
    """A grant held now on one GPU: ``memory_mb`` None for all its memory, ``cores`` None for no compute claim."""

    gpu: int
    memory_mb: int | None
    cores: int | None = None

    def describe(self) -> str:
        if self.memory_mb is None and self.cores is None:
            return "whole"
        return GpuRequest(1, self.memory_mb, self.cores).describe()


def _visible_indices() -> list[int] | None:
    """The indices CUDA_VISIBLE_DEVICES names in the engine's environment, None when unset or not indices."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return None
    parts = [d.strip() for d in visible.split(",") if d.strip()]
    if "-1" in parts:
        parts = parts[:parts.index("-1")]
    return [int(p) for p in parts] if all(p.isdigit() for p in parts) else None


def _from_file(path: Path) -> list[GpuInfo] | None:
    if not path.is_file():
        return None
    try:
        rows = json.loads(path.read_text())
        return [GpuInfo(int(r["index"]), int(r.get("memory_mb") or 0), str(r.get("name") or "")) for r in rows]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise UserError(f"must be a JSON list of {{\"index\": N, \"memory_mb\": MiB}} ({exc})",
                        field=str(path)) from exc


def _from_nvml() -> list[GpuInfo] | None:
    try:
        nvml: Any = importlib.import_module("pynvml")
    except ImportError:
        return None
    try:
        nvml.nvmlInit()
    except nvml.NVMLError:  # no driver, or no library behind the bindings
        return None
    try:
        found = []
        for i in range(nvml.nvmlDeviceGetCount()):
            handle = nvml.nvmlDeviceGetHandleByIndex(i)
            name = nvml.nvmlDeviceGetName(handle)
            found.append(GpuInfo(i, int(nvml.nvmlDeviceGetMemoryInfo(handle).total) // 2**20,
                                 name.decode() if isinstance(name, bytes) else str(name)))
        return found
    finally:
        nvml.nvmlShutdown()


def _from_nvidia_smi() -> list[GpuInfo]:
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.total,name", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.stdout.splitlines():
        parts = [p.strip() for p in line.split(",", 2)]
        if len(parts) == 3 and parts[0].isdigit():
            found.append(GpuInfo(int(parts[0]), int(parts[1]) if parts[1].isdigit() else 0, parts[2]))
    return found


def detect_inventory(state_dir: Path) -> Inventory:
    """This machine's GPUs as the pool sees them (see the module docstring for the order)."""
    pinned = _from_file(state_dir / INVENTORY_FILE)
    if pinned is not None:
        return Inventory(tuple(pinned), str(state_dir / INVENTORY_FILE))
    visible = _visible_indices()
    nvml = _from_nvml()
    gpus, source = (nvml, "nvml") if nvml is not None else (_from_nvidia_smi(), "nvidia-smi")
    if visible is not None:
        known = {g.index: g for g in gpus}
        gpus = [known.get(i, GpuInfo(i)) for i in visible]
        source += " (CUDA_VISIBLE_DEVICES)"
    return Inventory(tuple(gpus), source)


def counted_inventory(count: int) -> Inventory:
    """``count`` GPUs of unknown memory (an entry point that says how many GPUs there are)."""
    return Inventory(tuple(GpuInfo(i) for i in range(count)), "given count")


def _whole(raw: Any, field: str) -> int:
    text = str(raw).strip()
    if not text.isdigit():
        try:
            float(text)
        except ValueError:
            raise UserError(f"must be a whole number, got {raw!r}", field=field) from None
        raise UserError(f"must be a whole number of GPUs, got {raw!r}; {FRACTION_HINT}", field=field)
    return int(text)


def _annotations(template: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = template.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    return annotations if isinstance(annotations, Mapping) else {}


def preemptible(template: Mapping[str, Any], where: str = "metadata") -> bool:
    """Whether the template's node may be preempted (``aipipe.dev/preemptible: "true"``; default not)."""
    raw = str(_annotations(template).get(PREEMPTIBLE, "false")).strip().lower()
    if raw not in ("true", "false"):
        raise UserError(f'must be "true" or "false", got {raw!r}', field=f"{where}.annotations.{PREEMPTIBLE}")
    return raw == "true"


def grace_seconds(template: Mapping[str, Any], where: str = "metadata") -> float:
    """Seconds between SIGTERM and SIGKILL when the node is preempted."""
    raw = _annotations(template).get(GRACE)
    if raw is None:
        return DEFAULT_GRACE_S
    try:
        value = float(str(raw))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise UserError(f"must be a number of seconds from 0 to 3600, got {raw!r}",
                        field=f"{where}.annotations.{GRACE}")
    return value


def _kai_request(template: Mapping[str, Any], where: str = "metadata") -> GpuRequest | None:
    """One GPU share asked for by KAI Scheduler's annotations, None when there are none."""
    annotations = _annotations(template)
    raw_mem, raw_fraction = annotations.get(gpushare.KAI_MEMORY), annotations.get(gpushare.KAI_FRACTION)
    if raw_mem is not None:
        memory = _whole(raw_mem, f"{where}.annotations.{gpushare.KAI_MEMORY}")
        if memory <= 0:
            raise UserError(f"must be a positive number of MiB, got {raw_mem!r}",
                            field=f"{where}.annotations.{gpushare.KAI_MEMORY}")
        return GpuRequest(1, memory, None, preemptible(template, where))
    if raw_fraction is not None:
        try:
            fraction = float(str(raw_fraction))
        except ValueError:
            fraction = 0.0
        if not 0 < fraction <= 1:
            raise UserError(f"must be a fraction of one GPU, above 0 and at most 1, got {raw_fraction!r}",
                            field=f"{where}.annotations.{gpushare.KAI_FRACTION}")
        return GpuRequest(1, preemptible=preemptible(template, where))
    return None


def _hami_priority(limits: Mapping[str, Any], requests: Mapping[str, Any], where: str) -> int | None:
    """The pool priority HAMi's ``nvidia.com/priority`` (limits, else requests) asks for, None when unset."""
    section = "limits" if HAMI_PRIORITY in limits else "requests"
    raw = (limits if section == "limits" else requests).get(HAMI_PRIORITY)
    if raw is None:
        return None
    text = str(raw).strip()
    if not text.isdigit():
        raise UserError(f"must be 0 (high) or a higher whole number (low), got {raw!r}",
                        field=f"{where}.{section}.{HAMI_PRIORITY}")
    return HAMI_HIGH if int(text) == 0 else HAMI_LOW


def gpu_request(template: Mapping[str, Any], resource: str = GPU, where: str = "resources") -> GpuRequest | None:
    """What a container/script template asks for (limits, else requests), None for nothing; UserError when the
    request is one the engine cannot honour."""
    body = template.get("container") or template.get("script") or {}
    resources = body.get("resources") if isinstance(body, Mapping) else None
    if not isinstance(resources, Mapping):
        return None
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    priority = _hami_priority(limits, requests, where)
    section = "limits" if any(name in limits for name in (resource, GPUMEM, GPUCORES)) else "requests"
    chosen = limits if section == "limits" else requests
    raw_count, raw_mem, raw_cores = chosen.get(resource), chosen.get(GPUMEM), chosen.get(GPUCORES)
    count = _whole(raw_count, f"{where}.{section}.{resource}") if raw_count is not None else None
    if raw_mem is None and raw_cores is None:
        if count is None:
            kai = _kai_request(template)
            return replace(kai, priority=priority) if kai is not None else None
        return GpuRequest(count, preemptible=preemptible(template), priority=priority) if count else None
    memory = cores = None
    if raw_mem is not None:
        memory = _whole(raw_mem, f"{where}.{section}.{GPUMEM}")
        if memory <= 0:
            raise UserError(f"must be a positive number of MiB, got {raw_mem!r}", field=f"{where}.{section}.{GPUMEM}")
    if raw_cores is not None:
        cores = _whole(raw_cores, f"{where}.{section}.{GPUCORES}")
        if not 1 <= cores <= 100:
            raise UserError(f"must be a percent of the GPU's compute from 1 to 100, got {raw_cores!r}",
                            field=f"{where}.{section}.{GPUCORES}")
    if count == 0:
        raise UserError(f"is 0 while {GPUMEM}/{GPUCORES} ask for a share; drop one of them",
                        field=f"{where}.{section}.{resource}")
    return GpuRequest(count or 1, memory, cores, preemptible(template), priority)


def request_problem(template: Mapping[str, Any], where: str) -> UserError | None:
    """The error ``template``'s GPU request would end its node with (checked at submit and lint; a request
    with ``{{…}}`` in it is checked when the node runs)."""
    body = template.get("container") or template.get("script") or {}
    if "{{" in json.dumps([body.get("resources") if isinstance(body, Mapping) else None, _annotations(template)],
                          default=str):
        return None
    try:
        preemptible(template, f"{where}.metadata")
        grace_seconds(template, f"{where}.metadata")
        _kai_request(template, f"{where}.metadata")
        gpu_request(template, GPU, f"{where}.{'script' if template.get('script') else 'container'}.resources")
    except UserError as exc:
        return exc
    return None


def fits_at_all(inventory: Inventory, request: GpuRequest) -> str:
    """Why ``request`` can never be granted on ``inventory`` ("" when it can)."""
    if request.count > len(inventory.gpus):
        return f"the step requests {request.describe()} but this machine has {len(inventory.gpus)} GPU(s)"
    if request.memory_mb is not None:
        big = sorted((g.memory_mb or 0 for g in inventory.gpus), reverse=True)[request.count - 1]
        if big and big < request.memory_mb:
            return f"the step requests {request.describe()} but the largest GPU here has {big} MiB"
    return ""
