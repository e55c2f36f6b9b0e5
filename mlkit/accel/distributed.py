"""DDP helpers for processes launched by ``torchrun --nproc-per-node N``.

torchrun sets RANK, WORLD_SIZE and LOCAL_RANK; without them the run is a single process and
every helper is a cheap no-op, so one training loop serves both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class DistInfo:
    """This process's place in the job."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    local_world_size: int = 1

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """Rank 0 alone logs, checkpoints and talks to MLflow."""
        return self.rank == 0


def dist_info_from_env() -> DistInfo:
    """Read the torchrun environment (a single process when it is absent)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return DistInfo(rank=int(os.environ.get("RANK", "0")), world_size=world,
                    local_rank=int(os.environ.get("LOCAL_RANK", "0")),
                    local_world_size=int(os.environ.get("LOCAL_WORLD_SIZE", str(world))))


def init_distributed(device_type: str) -> DistInfo:
    """Join the process group (NCCL on GPUs, gloo on CPU) when launched by torchrun; pin the local GPU."""
    info = dist_info_from_env()
    if device_type == "cuda":
        torch.cuda.set_device(info.local_rank)
    if info.enabled and not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo")
    return info


def device_for(info: DistInfo) -> torch.device:
    """This process's device: its local GPU, else the CPU."""
    return torch.device("cuda", info.local_rank) if torch.cuda.is_available() else torch.device("cpu")


def all_reduce_sum(values: list[float], device: torch.device) -> list[float]:
    """Sum a few numbers over all ranks (identity in a single process)."""
    if not (dist.is_available() and dist.is_initialized()):
        return list(values)
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor.tolist()


def broadcast_flag(flag: bool, device: torch.device) -> bool:
    """Rank 0's boolean, on every rank."""
    if not (dist.is_available() and dist.is_initialized()):
        return flag
    tensor = torch.tensor([1 if flag else 0], device=device)
    dist.broadcast(tensor, src=0)
    return bool(tensor.item())


def barrier() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.barrier()


def shutdown_distributed() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
