"""WorkflowTemplate of the `train` step (contract TRAIN)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import TRAIN
from pipelines.templates._common import StepResources, step_template

RESOURCES = StepResources(cpu="4", memory="16Gi", deadline_seconds=6 * 3600, shm="4Gi")


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-train-v1``: one container template running ``python -m steps.train``."""
    return step_template(TRAIN, cfg, RESOURCES)
