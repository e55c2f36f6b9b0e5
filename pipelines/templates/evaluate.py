"""WorkflowTemplate of the `evaluate` step (contract EVALUATE)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import EVALUATE
from pipelines.templates._common import StepResources, step_template

RESOURCES = StepResources(cpu="2", memory="4Gi", deadline_seconds=1800)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-evaluate-v1``: one container template running ``python -m steps.evaluate``."""
    return step_template(EVALUATE, cfg, RESOURCES)
