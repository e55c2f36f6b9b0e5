"""WorkflowTemplate of the `deploy` step (contract DEPLOY)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import DEPLOY
from pipelines.templates._common import StepResources, step_template

RESOURCES = StepResources(cpu="1", memory="1Gi", deadline_seconds=1800)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-deploy-v1``: one container template running ``python -m steps.deploy``."""
    return step_template(DEPLOY, cfg, RESOURCES)
