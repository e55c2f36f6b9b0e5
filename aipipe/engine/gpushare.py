"""How a granted GPU share is kept on this machine: the node's environment and the words its message says.

Memory: the cap is handed to the node in ``AIPIPE_GPU_MEMORY_MB`` (``aipipe.stepkit`` makes PyTorch keep to it).
Where a CUDA MPS control daemon runs (its ``control`` socket, a FIFO on older drivers, in
``CUDA_MPS_PIPE_DIRECTORY``, default ``/tmp/nvidia-mps``, as the engine sees it), every GPU node is made its
client: it gets the pipe folder (which the node's mount view shows it, read-only), its compute share as
``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`` (MPS bounds its share of the SMs) and its memory share as
``CUDA_MPS_PINNED_DEVICE_MEM_LIMIT`` (the driver refuses allocations past it). A client that cannot reach the
daemon silently runs outside MPS, time-sliced against it, hence the pipe for every node. Without a daemon the GPU
is time-sliced between the processes on it and a compute share is only the pool's accounting. The node's message
says which.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from aipipe.engine.gpu import GpuRequest
from aipipe.gpushare import GPU_MEMORY_ENV

MPS_PIPE_ENV = "CUDA_MPS_PIPE_DIRECTORY"
MPS_PERCENT_ENV = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"
MPS_MEMORY_ENV = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"
MPS_DEFAULT_PIPE = "/tmp/nvidia-mps"


def mps_pipe(env: Mapping[str, str] | None = None) -> str | None:
    """The MPS pipe folder when a control daemon listens there (its ``control`` socket or FIFO exists), else None."""
    folder = (os.environ if env is None else env).get(MPS_PIPE_ENV) or MPS_DEFAULT_PIPE
    try:
        mode = (Path(folder) / "control").stat().st_mode
    except OSError:
        return None
    return folder if stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode) else None


def node_env(devices: str | None, request: GpuRequest, pipe: str | None) -> dict[str, str]:
    """What the node's environment says of its grant (``devices`` None: it got no GPU; ``pipe``: MPS's folder)."""
    env = {"CUDA_VISIBLE_DEVICES": devices or ""}
    if devices is None:
        return env
    if request.memory_mb is not None:
        env[GPU_MEMORY_ENV] = str(request.memory_mb)  # the step's cap on its share
    if pipe is None:
        return env
    env[MPS_PIPE_ENV] = pipe
    if request.cores is not None:
        env[MPS_PERCENT_ENV] = str(request.cores)
    if request.memory_mb is not None:  # per device, numbered as the node sees them
        env[MPS_MEMORY_ENV] = ",".join(f"{i}={request.memory_mb}M" for i in range(len(devices.split(","))))
    return env


def mps_folders(env: Mapping[str, str]) -> tuple[str, ...]:
    """The host folders a node's mount view must show it (read-only) for the environment ``node_env`` gave it."""
    return (env[MPS_PIPE_ENV],) if env.get(MPS_PIPE_ENV) else ()


def sharing_note(request: GpuRequest, pipe: str | None) -> str:
    """How the share is kept, for the node's message ("" for whole GPUs without MPS)."""
    if pipe is not None:
        kept = [*([f"{request.cores}% of the SMs ({MPS_PERCENT_ENV})"] if request.cores is not None else []),
                *([f"memory pinned at {request.memory_mb} MiB ({MPS_MEMORY_ENV})"]
                  if request.memory_mb is not None else [])]
        return "GPU shared through MPS" + (": " + ", ".join(kept) if kept else "")
    if request.cores is None:
        return ""
    return (f"GPU compute share {request.cores}%: time-slicing (no MPS daemon: the share is the pool's accounting, "
            "not enforced)")
