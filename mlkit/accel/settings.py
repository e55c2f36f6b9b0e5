"""The acceleration switches of one run; logged as MLflow params under ``accel.*``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class AccelSettings:
    """Each piece of the acceleration layer, on or off (resolved values, not requests)."""

    num_workers: int
    pin_memory: bool
    persistent_workers: bool
    prefetch_factor: int | None
    cuda_prefetcher: bool
    precision: str
    channels_last: bool
    compile: bool
    grad_accum: int
    deterministic: bool
    world_size: int
    compile_mode: str | None = None  # with compile: None is inductor's default, "reduce-overhead" CUDA graphs

    def as_params(self) -> dict[str, Any]:
        """Flat ``accel.<name>`` params for the tracker."""
        return {f"accel.{key}": ("none" if value is None else value) for key, value in asdict(self).items()}
