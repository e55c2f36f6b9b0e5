"""WorkflowTemplate of the `export-annotations` step (contract EXPORT)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import EXPORT
from pipelines.templates._common import StepResources, step_template

RESOURCES = StepResources(cpu="1", memory="2Gi", deadline_seconds=3600)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-export-annotations-v1``: one container template running ``python -m steps.export_annotations``."""
    return step_template(EXPORT, cfg, RESOURCES)
