"""Compare a candidate tensor with its FP32 reference: atol, rtol and an error statistic.

As Polygraphy's comparator with ``--check-error-stat``: a tensor fails when the chosen statistic
(mean | median | max) of the absolute error exceeds ``atol`` *and* the relative error exceeds
``rtol``. The relative error is taken per tensor, ``stat(|cand - ref|) / stat(|ref|)``, since
element-wise ratios explode on the near-zero values ReLU networks are full of. A non-finite
candidate value where the reference is finite always fails (that is how an FP16 overflow shows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .config import ERROR_STATS

_STATS: dict[str, Callable[[np.ndarray], Any]] = {"mean": np.mean, "median": np.median, "max": np.max}


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float
    stat: str = "mean"

    def __post_init__(self) -> None:
        if self.stat not in ERROR_STATS:
            raise ValueError(f"error statistic must be one of {ERROR_STATS}, got {self.stat!r}")


@dataclass(frozen=True)
class Comparison:
    """The outcome for one tensor."""

    name: str
    passed: bool
    abs_error: float  # the statistic of |candidate - reference|
    rel_error: float  # abs_error / the statistic of |reference|
    max_abs_error: float
    nonfinite: int  # candidate values that are inf/nan where the reference is finite

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def compare(name: str, candidate: np.ndarray, reference: np.ndarray, tol: Tolerance) -> Comparison:
    """Compare one tensor; shapes must match."""
    cand = np.asarray(candidate, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    if cand.shape != ref.shape:
        raise ValueError(f"{name}: candidate shape {cand.shape} != reference shape {ref.shape}")
    finite_ref = np.isfinite(ref)
    nonfinite = int(np.count_nonzero(~np.isfinite(cand) & finite_ref))
    if cand.size == 0:
        return Comparison(name, True, 0.0, 0.0, 0.0, 0)
    with np.errstate(invalid="ignore", over="ignore"):
        absdiff = np.abs(cand - ref)
    absdiff = np.where(np.isnan(absdiff), np.inf, absdiff)
    stat = _STATS[tol.stat]
    abs_err, scale = float(stat(absdiff)), float(stat(np.abs(ref[finite_ref]))) if finite_ref.any() else 0.0
    rel_err = 0.0 if abs_err == 0 else abs_err / scale if scale > 0 else float("inf")
    passed = nonfinite == 0 and not (abs_err > tol.atol and rel_err > tol.rtol)
    return Comparison(name, passed, abs_err, rel_err, float(np.max(absdiff)), nonfinite)
