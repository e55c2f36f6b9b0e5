"""A step's GPU need in a pod, in the terms of the cluster's GPU-sharing provider (``deploy.provider``).

Names as the providers document them, the ones the deploy step renders for its service: HAMi asks for
``nvidia.com/gpu`` plus ``nvidia.com/gpumem`` (MiB) and ``nvidia.com/gpucores`` (percent) in the limits; KAI
Scheduler reads a ``gpu-memory`` (MiB) or ``gpu-fraction`` pod annotation, schedules with ``kai-scheduler`` and
queues by the ``kai.scheduler/queue`` label. A whole-GPU need is the plain resource (``kubernetes.gpu_resource``)
whatever the provider, and so is a share on a provider that has no per-step share here (MIG, time-slicing,
OrionX, gpushare): the step gets a whole GPU there. The embedded engine reads the same fields
(:mod:`aipipe.engine.gpu`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

HAMI = "hami"
KAI = "kai"
GPU = "nvidia.com/gpu"
HAMI_MEMORY = "nvidia.com/gpumem"
HAMI_CORES = "nvidia.com/gpucores"
HAMI_PRIORITY = "nvidia.com/priority"  # HAMi's task priority: 0 high, 1 (its default) and above low
KAI_MEMORY = "gpu-memory"
KAI_FRACTION = "gpu-fraction"
KAI_SCHEDULER = "kai-scheduler"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
KAI_DEFAULT_QUEUE = "default-queue"
PREEMPTIBLE = "aipipe.dev/preemptible"  # "true": the step checkpoints on SIGTERM and may be preempted
GPU_MEMORY_ENV = "AIPIPE_GPU_MEMORY_MB"  # the embedded engine hands a node its memory cap (MiB) here


@dataclass(frozen=True)
class PodGpu:
    """What a pod says to get its GPU need: container limits, pod annotations and labels, scheduler."""

    limits: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    scheduler_name: str | None = None


def pod_gpu(count: int, memory_mib: int | None, compute_percent: int | None, provider: str,
            whole_resource: str = GPU) -> PodGpu:
    """``count`` GPUs, whole when ``memory_mib`` and ``compute_percent`` are None, else that share of each."""
    if memory_mib is None and compute_percent is None:
        return PodGpu(limits={whole_resource: str(count)})
    if provider == HAMI:
        limits = {GPU: str(count)}
        if memory_mib is not None:
            limits[HAMI_MEMORY] = str(memory_mib)
        if compute_percent is not None:
            limits[HAMI_CORES] = str(compute_percent)
        return PodGpu(limits=limits)
    if provider == KAI and count == 1:  # KAI shares one GPU; more than one is asked whole
        annotation = ({KAI_MEMORY: str(memory_mib)} if memory_mib is not None
                      else {KAI_FRACTION: f"{(compute_percent or 100) / 100:.2f}"})
        return PodGpu(annotations=annotation, labels={KAI_QUEUE_LABEL: KAI_DEFAULT_QUEUE}, scheduler_name=KAI_SCHEDULER)
    return PodGpu(limits={whole_resource: str(count)})
