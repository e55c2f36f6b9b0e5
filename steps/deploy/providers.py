"""Fractional-GPU providers: how each one is asked for a share of a GPU in a pod.

One small class per provider turns the service's share (memory budget, compute percent) into container
limits, environment, pod annotations/labels and a scheduler name. Each rounds *up* to its own units: the
request is the smallest quantity of that provider that holds the budget, and ``granted`` says what that
quantity is, so the report shows any difference.

Resource names follow each project's documentation: HAMi (``nvidia.com/gpu`` + ``gpumem`` in MiB or
``gpumem-percentage``, ``gpucores`` in percent), the NVIDIA device plugin with MIG (mixed strategy,
``nvidia.com/mig-<profile>``) and with time-slicing renamed resources (``nvidia.com/gpu.shared``), KAI
Scheduler / Run:ai (``gpu-memory`` in MiB or ``gpu-fraction`` annotations, ``kai.scheduler/queue`` label,
``schedulerName: kai-scheduler``), OrionX (``virtaitech.com/gpu`` with ``ORION_GMEM`` MiB and ``ORION_RATIO``
percent), Aliyun gpushare (``aliyun.com/gpu-mem`` in GiB).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

from aipipe.errors import UserError

ShareBy = Literal["memory", "fraction"]
SHARE_BY: tuple[str, ...] = get_args(ShareBy)


@dataclass(frozen=True)
class GpuShare:
    """What the service needs from one GPU."""

    memory_mib: int  # the service's GPU memory budget
    compute_percent: int  # its share of the GPU's compute
    gpu_total_mib: int = 81920  # memory of the cluster's GPU model (MIG profiles, fractions)
    share_by: str = "memory"  # ask by absolute memory or by a fraction of the GPU, where a provider has both
    queue: str = "default-queue"  # scheduling queue (KAI)


@dataclass
class GpuRequest:
    """How a pod asks for the share; ``granted`` is what the provider's units give (memory_mib, compute_percent)."""

    limits: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    scheduler_name: str | None = None
    granted: dict[str, Any] = field(default_factory=dict)
    isolation: str = ""  # how the memory share is enforced


def _percent_of(memory_mib: int, total_mib: int) -> int:
    return min(100, math.ceil(memory_mib * 100 / total_mib))


class Provider(ABC):
    """A fractional-GPU mechanism of a cluster."""

    name: ClassVar[str]

    @abstractmethod
    def request(self, share: GpuShare) -> GpuRequest:
        """The pod-level request for ``share``."""


class HamiProvider(Provider):
    """HAMi device plugin + scheduler: memory and core limits enforced in the container by HAMi-core."""

    name = "hami"

    def request(self, share: GpuShare) -> GpuRequest:
        limits = {"nvidia.com/gpu": "1", "nvidia.com/gpucores": str(share.compute_percent)}
        if share.share_by == "fraction":
            percent = _percent_of(share.memory_mib, share.gpu_total_mib)
            limits["nvidia.com/gpumem-percentage"] = str(percent)
            granted = math.floor(share.gpu_total_mib * percent / 100)
        else:
            limits["nvidia.com/gpumem"] = str(share.memory_mib)
            granted = share.memory_mib
        return GpuRequest(limits=limits, granted={"memory_mib": granted, "compute_percent": share.compute_percent},
                          isolation="HAMi-core caps device memory and SM use in the container")


@dataclass(frozen=True)
class MigProfile:
    name: str  # e.g. 1g.10gb
    slices: int  # compute slices out of 7
    memory_mib: int  # usable memory (nominal GB, conservatively in MiB)


def _profiles(*names: str) -> tuple[MigProfile, ...]:
    out = []
    for profile in names:
        compute, memory = profile.split(".")
        out.append(MigProfile(profile, int(compute.rstrip("g")), int(memory.removesuffix("gb")) * 950))
    return tuple(out)


# Profiles by GPU memory class (MiB upper bound): A100 40GB; A100/H100 80GB; H100 NVL 94GB; H200 141GB.
MIG_PROFILES: tuple[tuple[int, tuple[MigProfile, ...]], ...] = (
    (43_000, _profiles("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")),
    (86_000, _profiles("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
    (100_000, _profiles("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb")),
    (150_000, _profiles("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")),
)


class MigProvider(Provider):
    """NVIDIA MIG (mixed strategy): the smallest profile whose memory holds the budget; isolated in hardware."""

    name = "mig"

    def request(self, share: GpuShare) -> GpuRequest:
        table = next((profiles for bound, profiles in MIG_PROFILES if share.gpu_total_mib <= bound), None)
        if table is None:
            raise UserError(f"no MIG profile table for a GPU of {share.gpu_total_mib} MiB", field="gpu-total-mib")
        fitting = [p for p in table if p.memory_mib >= share.memory_mib]
        if not fitting:
            raise UserError(f"no MIG profile holds {share.memory_mib} MiB (largest: {table[-1].name})",
                            field="gpu-memory-mib")
        profile = min(fitting, key=lambda p: (p.memory_mib, p.slices))
        return GpuRequest(limits={f"nvidia.com/mig-{profile.name}": "1"},
                          granted={"memory_mib": profile.memory_mib, "compute_percent": math.floor(
                              profile.slices * 100 / 7), "mig_profile": profile.name},
                          isolation="MIG partitions memory and SMs in hardware")


class TimeSlicingProvider(Provider):
    """NVIDIA device plugin time-slicing (renamed resource): no isolation, the runtime's per-process caps hold it."""

    name = "time-slicing"

    def request(self, share: GpuShare) -> GpuRequest:
        return GpuRequest(limits={"nvidia.com/gpu.shared": "1"},
                          granted={"memory_mib": share.memory_mib, "compute_percent": share.compute_percent},
                          isolation="none from the cluster: each GPU process caps its own memory")


class KaiProvider(Provider):
    """KAI Scheduler (Run:ai): GPU sharing by annotation, scheduled by kai-scheduler from a queue."""

    name = "kai"

    def request(self, share: GpuShare) -> GpuRequest:
        if share.share_by == "fraction":
            fraction = min(1.0, math.ceil(share.memory_mib * 100 / share.gpu_total_mib) / 100)
            annotations = {"gpu-fraction": f"{fraction:.2f}"}
            granted = math.floor(share.gpu_total_mib * fraction)
        else:
            annotations = {"gpu-memory": str(share.memory_mib)}
            granted = share.memory_mib
        return GpuRequest(annotations=annotations, labels={"kai.scheduler/queue": share.queue},
                          scheduler_name="kai-scheduler",
                          granted={"memory_mib": granted, "compute_percent": share.compute_percent},
                          isolation="scheduling only: each GPU process caps its own memory")


class OrionXProvider(Provider):
    """OrionX (VirtAI) vGPU: one virtual GPU sized by ORION_GMEM (MiB) and ORION_RATIO (compute percent)."""

    name = "orionx"

    def request(self, share: GpuShare) -> GpuRequest:
        return GpuRequest(limits={"virtaitech.com/gpu": "1"},
                          env={"ORION_GMEM": str(share.memory_mib), "ORION_RATIO": str(share.compute_percent)},
                          granted={"memory_mib": share.memory_mib, "compute_percent": share.compute_percent},
                          isolation="OrionX vGPU caps memory and compute")


class GpushareProvider(Provider):
    """Aliyun gpushare scheduler extender: GPU memory in whole GiB, no compute limit."""

    name = "gpushare"

    def request(self, share: GpuShare) -> GpuRequest:
        gib = math.ceil(share.memory_mib / 1024)
        return GpuRequest(limits={"aliyun.com/gpu-mem": str(gib)},
                          granted={"memory_mib": gib * 1024, "compute_percent": share.compute_percent},
                          isolation="scheduling only: each GPU process caps its own memory")


PROVIDERS: dict[str, Provider] = {p.name: p for p in (HamiProvider(), MigProvider(), TimeSlicingProvider(),
                                                     KaiProvider(), OrionXProvider(), GpushareProvider())}


def get_provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise UserError(f"unknown provider {name!r} (known: {', '.join(PROVIDERS)})", field="provider") from None
