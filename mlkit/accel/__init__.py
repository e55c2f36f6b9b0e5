"""The acceleration layer: reusable pieces any PyTorch training loop can adopt, each switchable.

- :mod:`.loader` — DataLoader tuning (auto ``num_workers``, ``pin_memory``, persistent workers, prefetch).
- :mod:`.sampler` — a resumable, DDP-aware epoch sampler (``set_epoch``, start mid-epoch).
- :mod:`.prefetch` — a CUDA-stream prefetcher overlapping host→device copies with compute.
- :mod:`.amp` — bf16 where supported, else fp16 with GradScaler.
- :mod:`.seeding` — deterministic seeding and checkpointable RNG states.
- :mod:`.distributed` — torchrun/DDP helpers (rank-0-only work, metric reduction).
- :mod:`.timing` — per-step data-wait vs compute timing and the data-bound hint.
- :mod:`.settings` — the switches, logged as run params.
"""

from mlkit.accel.amp import Precision, autocast, make_grad_scaler, resolve_precision
from mlkit.accel.distributed import DistInfo, all_reduce_sum, barrier, init_distributed, shutdown_distributed
from mlkit.accel.loader import LoaderSettings, auto_num_workers, build_loader
from mlkit.accel.prefetch import CudaPrefetcher, DevicePlacer, HostBatches
from mlkit.accel.sampler import ShardedEpochSampler
from mlkit.accel.seeding import capture_rng_state, restore_rng_state, seed_everything
from mlkit.accel.settings import AccelSettings
from mlkit.accel.timing import StepTimer

__all__ = [
    "AccelSettings",
    "CudaPrefetcher",
    "DevicePlacer",
    "DistInfo",
    "HostBatches",
    "LoaderSettings",
    "Precision",
    "ShardedEpochSampler",
    "StepTimer",
    "all_reduce_sum",
    "auto_num_workers",
    "autocast",
    "barrier",
    "build_loader",
    "capture_rng_state",
    "init_distributed",
    "make_grad_scaler",
    "resolve_precision",
    "restore_rng_state",
    "seed_everything",
    "shutdown_distributed",
]
