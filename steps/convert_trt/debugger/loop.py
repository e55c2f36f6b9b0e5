"""The iteration loop of the precision debugger (engine-agnostic).

1. FP32 reference values of every layer output and of the final outputs;
2. evaluate the candidate plan with the layers the strategy marks (final outputs always marked);
3. compare each marked tensor with atol / rtol / the error statistic;
4. the earliest layer out of tolerance gets interventions in order (pin it, pin its parent,
   exclude a tactic) until it is within tolerance;
5. repeat from the layer after it until the final outputs are within tolerance — or give up with
   a report when the evaluation budget is spent or no intervention helps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mlkit.engine.backends.base import Evaluator, PrecisionPlan

from ..comparator import Comparison, Tolerance, compare
from ..config import PrecisionConfig
from .interventions import interventions_for
from .strategies import make_strategy


class BudgetExhausted(Exception):
    """The evaluation budget ran out before the final outputs were within tolerance."""


@dataclass
class DebugResult:
    """The precision config found, whether it meets the tolerance, and the report."""

    config: PrecisionConfig
    plan: PrecisionPlan
    success: bool
    report: dict[str, Any] = field(default_factory=dict)


class _Session:
    """Evaluations of one debugging run, with the FP32 reference and the history kept for the report."""

    def __init__(self, evaluator: Evaluator, inputs: np.ndarray, tol: Tolerance, max_evaluations: int) -> None:
        self.evaluator = evaluator
        self.inputs = inputs
        self.tol = tol
        self.max_evaluations = max_evaluations
        self.evaluations = 0
        self.history: list[dict[str, Any]] = []
        tensors = [t for layer in evaluator.layers for t in evaluator.outputs_of(layer)]
        self.reference = evaluator.reference(inputs, list(dict.fromkeys([*tensors, *evaluator.final_outputs])))
        self.first_final: list[Comparison] = []
        self.last_final: list[Comparison] = []

    def evaluate(self, plan: PrecisionPlan, layers: Sequence[str], note: str) -> dict[str, bool]:
        """Run ``plan`` with ``layers`` marked; return {layer: within tolerance}, plus the final outputs' verdict."""
        if self.evaluations >= self.max_evaluations:
            raise BudgetExhausted
        self.evaluations += 1
        tensors = {layer: self.evaluator.outputs_of(layer) for layer in layers}
        wanted = list(dict.fromkeys([*(t for ts in tensors.values() for t in ts), *self.evaluator.final_outputs]))
        values = self.evaluator.run(plan, self.inputs, wanted)
        results = {t: compare(t, values[t], self.reference[t], self.tol) for t in wanted}
        final = [results[t] for t in self.evaluator.final_outputs]
        if not self.first_final:
            self.first_final = final
        self.last_final = final
        verdict = {layer: all(results[t].passed for t in ts) for layer, ts in tensors.items()}
        failing = [layer for layer in layers if not verdict[layer]]
        self.history.append({"evaluation": self.evaluations, "step": note, "marked": len(layers),
                             "fp32_layers": list(plan.fp32_layers),
                             "first_failing_layer": failing[0] if failing else None,
                             "final_passed": all(c.passed for c in final),
                             "final_error": {c.name: c.abs_error for c in final}})
        return verdict

    @property
    def final_ok(self) -> bool:
        return bool(self.last_final) and all(c.passed for c in self.last_final)


def _summary(comparisons: Sequence[Comparison]) -> dict[str, Any]:
    return {c.name: c.to_dict() for c in comparisons}


def debug_precision(evaluator: Evaluator, inputs: np.ndarray, tol: Tolerance, *, precision: str = "fp16",
                    strategy: str = "linear", window: int | None = None, max_evaluations: int = 10) -> DebugResult:
    """Search the FP32 pins that bring the final outputs of ``precision`` within ``tol``."""
    session = _Session(evaluator, inputs, tol, max_evaluations)
    layers = list(evaluator.layers)
    plan = PrecisionPlan(precision)
    reason = ""
    start = 0
    try:
        while True:
            search = make_strategy(strategy, layers[start:], window)
            failed: set[str] = set()
            while (marks := search.marks()) is not None:
                verdict = session.evaluate(plan, marks, f"search:{strategy}")
                if session.final_ok:
                    break
                failed.update(name for name in marks if not verdict[name])
                search.step(all(verdict.values()))
            if session.final_ok:
                break
            culprit = next((name for name in search.suspects if name in failed), None)
            if culprit is None:
                reason = ("final outputs are out of tolerance but every layer is within it: the error accumulates "
                          "across layers; loosen the tolerance or run in FP32")
                break
            for step in interventions_for(culprit, evaluator):
                candidate = step.apply(plan)
                if candidate == plan:
                    continue
                plan = candidate
                verdict = session.evaluate(plan, [culprit], step.describe())
                if session.final_ok or verdict[culprit]:
                    break
            else:
                reason = f"no intervention brings layer {culprit!r} within tolerance"
                break
            if session.final_ok:
                break
            start = layers.index(culprit) + 1
    except BudgetExhausted:
        reason = f"evaluation budget of {max_evaluations} spent before the final outputs were within tolerance"
    success = session.final_ok
    pinned = set(plan.fp32_layers)
    fp16_layers = sum(1 for name in layers if name not in pinned)
    report = {
        "success": success, "reason": reason if not success else "", "evaluator": evaluator.name,
        "strategy": strategy, "precision": precision,
        "tolerance": {"atol": tol.atol, "rtol": tol.rtol, "check-error-stat": tol.stat},
        "layers_pinned": list(plan.fp32_layers), "tactics_excluded": list(plan.exclude_tactics),
        "error_before": _summary(session.first_final), "error_after": _summary(session.last_final),
        "layers_total": len(layers), "layers_fp16": fp16_layers,
        "fp16_share": fp16_layers / len(layers) if layers else 1.0,
        "evaluations": session.evaluations, "samples": int(inputs.shape[0]), "history": session.history,
    }
    config = PrecisionConfig(plan.fp32_layers, plan.exclude_tactics, tol.atol, tol.rtol, tol.stat)
    return DebugResult(config, plan, success, report)
