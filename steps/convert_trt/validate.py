"""Validation: the engine against the source model on the held-out set (top-1 agreement, accuracy delta)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from aipipe.errors import UserError


class ValidationFailed(UserError):
    """The engine loses more accuracy than allowed; retrying cannot help (exit 2)."""


@dataclass(frozen=True)
class Validation:
    samples: int
    top1_agreement: float
    source_accuracy: float
    engine_accuracy: float
    accuracy_delta: float  # source - engine (positive = the engine is worse)
    max_abs_logit_error: float
    median_abs_logit_error: float
    max_accuracy_delta: float
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _batched(fn: Callable[[np.ndarray], np.ndarray], images: np.ndarray, batch: int) -> np.ndarray:
    return np.concatenate([fn(images[i:i + batch]) for i in range(0, len(images), batch)])


def validate_engine(source: Callable[[np.ndarray], np.ndarray], engine: Callable[[np.ndarray], np.ndarray],
                    images: np.ndarray, labels: np.ndarray, max_accuracy_delta: float, batch: int = 32) -> Validation:
    """Compare engine and source logits on ``images``; ``passed`` when the accuracy drop is within bounds."""
    if len(images) == 0:
        raise UserError("the held-out split has no items to validate the engine on", field="dataset-uri")
    ref = _batched(source, images, batch)
    got = _batched(engine, images, batch)
    err = np.abs(got.astype(np.float64) - ref)
    source_acc = float(np.mean(ref.argmax(1) == labels))
    engine_acc = float(np.mean(got.argmax(1) == labels))
    delta = source_acc - engine_acc
    return Validation(len(images), float(np.mean(ref.argmax(1) == got.argmax(1))), source_acc, engine_acc,
                      delta, float(err.max()), float(np.median(err)), max_accuracy_delta,
                      bool(np.isfinite(got).all()) and delta <= max_accuracy_delta)


def require_passed(result: Validation) -> None:
    """Raise :class:`ValidationFailed` with the numbers when the engine is not accurate enough."""
    if not result.passed:
        raise ValidationFailed(
            f"engine accuracy {result.engine_accuracy:.4f} vs source {result.source_accuracy:.4f} "
            f"(drop {result.accuracy_delta:.4f} > allowed {result.max_accuracy_delta:.4f}; top-1 agreement "
            f"{result.top1_agreement:.4f}); see precision-report.json", field="max-accuracy-delta")
