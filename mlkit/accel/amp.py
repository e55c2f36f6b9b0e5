"""Automatic mixed precision: bf16 where the device supports it, else fp16 with a GradScaler."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

from aipipe.errors import UserError


@dataclass(frozen=True)
class Precision:
    """The resolved precision: ``name`` is bf16, fp16 or fp32; ``dtype`` is the autocast dtype (None = off)."""

    name: str
    dtype: torch.dtype | None

    @property
    def needs_scaler(self) -> bool:
        return self.name == "fp16"


def resolve_precision(requested: str, device: torch.device) -> Precision:
    """``auto`` → bf16 on GPUs that support it, fp16 on older GPUs, fp32 on CPU."""
    if requested not in ("auto", "bf16", "fp16", "fp32"):
        raise UserError(f"unknown precision {requested!r} (auto, bf16, fp16, fp32)", field="precision")
    if requested == "auto":
        if device.type != "cuda":
            return Precision("fp32", None)
        requested = "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    if requested == "fp32":
        return Precision("fp32", None)
    if requested == "fp16" and device.type != "cuda":
        raise UserError("fp16 autocast needs a CUDA GPU; use bf16 or fp32 on CPU", field="precision")
    if requested == "bf16" and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise UserError("this GPU does not support bf16; use fp16 or auto", field="precision")
    return Precision(requested, torch.bfloat16 if requested == "bf16" else torch.float16)


def autocast(precision: Precision, device: torch.device) -> contextlib.AbstractContextManager[object]:
    """The autocast context for the forward pass and loss (a no-op for fp32)."""
    if precision.dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=precision.dtype)


def make_grad_scaler(precision: Precision, device: torch.device) -> torch.amp.GradScaler:
    """A GradScaler, enabled only for fp16 (bf16 and fp32 need no loss scaling)."""
    return torch.amp.GradScaler(device.type, enabled=precision.needs_scaler)
