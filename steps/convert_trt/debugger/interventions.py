"""Interventions on a layer that is out of tolerance, tried in order.

1. pin the layer to FP32;
2. also pin its parent(s) — the layers producing its inputs — to FP32;
3. exclude the tactic TensorRT chose for it (TensorRT only: needs an evaluator with tactics).
Each keeps what the previous one did, so the plan only grows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mlkit.engine.backends.base import Evaluator, PrecisionPlan


@dataclass(frozen=True)
class Intervention:
    kind: str  # pin-layer | pin-parent | exclude-tactic
    layer: str
    layers: tuple[str, ...] = ()
    tactic: str = ""

    def apply(self, plan: PrecisionPlan) -> PrecisionPlan:
        if self.kind == "exclude-tactic":
            if self.tactic in plan.exclude_tactics:
                return plan
            return replace(plan, exclude_tactics=(*plan.exclude_tactics, self.tactic))
        added = tuple(name for name in self.layers if name not in plan.fp32_layers)
        return replace(plan, fp32_layers=(*plan.fp32_layers, *added)) if added else plan

    def describe(self) -> str:
        target = self.tactic if self.kind == "exclude-tactic" else ", ".join(self.layers)
        return f"{self.kind} {target}"


def interventions_for(layer: str, evaluator: Evaluator) -> list[Intervention]:
    """The interventions for ``layer``, in the order they are tried."""
    steps = [Intervention("pin-layer", layer, (layer,))]
    parents = evaluator.parents(layer)
    if parents:
        steps.append(Intervention("pin-parent", layer, tuple(parents)))
    if evaluator.supports_tactics:
        steps.extend(Intervention("exclude-tactic", layer, tactic=t) for t in evaluator.tactics_of(layer))
    return steps
