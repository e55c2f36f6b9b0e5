"""WorkflowTemplate of the `convert` step (contract CONVERT)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import CONVERT
from pipelines.templates._common import StepResources, step_template

RESOURCES = StepResources(cpu="2", memory="8Gi", deadline_seconds=2 * 3600)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-convert-v1``: one container template running ``python -m steps.convert_trt``."""
    return step_template(CONVERT, cfg, RESOURCES)
