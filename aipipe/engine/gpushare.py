"""How a granted GPU share is kept on this machine: the node's environment and the words its message says.

Memory: the cap is handed to the node in ``AIPIPE_GPU_MEMORY_MB`` (``aipipe.stepkit`` makes PyTorch keep to it).
Compute: where a CUDA MPS daemon runs (its control pipe ``control`` in ``CUDA_MPS_PIPE_DIRECTORY``, default
``/tmp/nvidia-mps``, as the engine sees it), the node gets ``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`` and the pipe
folder, so MPS bounds its share of the SMs; otherwise the GPU is time-sliced between the processes on it and the
share is only the pool's accounting. The node's message says which.
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
MPS_DEFAULT_PIPE = "/tmp/nvidia-mps"


def mps_pipe(env: Mapping[str, str] | None = None) -> str | None:
    """The MPS pipe folder when a daemon listens there (its ``control`` FIFO exists), else None."""
    folder = (os.environ if env is None else env).get(MPS_PIPE_ENV) or MPS_DEFAULT_PIPE
    try:
        return folder if stat.S_ISFIFO((Path(folder) / "control").stat().st_mode) else None
    except OSError:
        return None


def node_env(devices: str | None, request: GpuRequest, pipe: str | None) -> dict[str, str]:
    """What the node's environment says of its grant (``devices`` None: it got no GPU)."""
    env = {"CUDA_VISIBLE_DEVICES": devices or ""}
    if devices is None:
        return env
    if request.memory_mb is not None:
        env[GPU_MEMORY_ENV] = str(request.memory_mb)  # the step's cap on its share
    if request.cores is not None and pipe is not None:
        env[MPS_PERCENT_ENV] = str(request.cores)
        env[MPS_PIPE_ENV] = pipe
    return env


def sharing_note(request: GpuRequest, pipe: str | None) -> str:
    """How the compute share is kept, for the node's message ("" for none asked)."""
    if request.cores is None:
        return ""
    if pipe is not None:
        return f"GPU compute share {request.cores}%: MPS ({MPS_PERCENT_ENV}={request.cores})"
    return (f"GPU compute share {request.cores}%: time-slicing (no MPS daemon: the share is the pool's accounting, "
            "not enforced)")
