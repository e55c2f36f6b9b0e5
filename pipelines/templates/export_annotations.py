"""WorkflowTemplate of the `export-annotations` step (contract EXPORT)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import EXPORT
from pipelines.templates._common import StepResources, step_template

# Label Studio unreachable: the step retries within LABEL_STUDIO_WAIT_SECONDS and exits 3; Argo does not repeat that
RESOURCES = StepResources(cpu="1", memory="2Gi", deadline_seconds=3600, retries_unavailable=False)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-export-annotations-v1``: one container template running ``python -m steps.export_annotations``."""
    return step_template(EXPORT, cfg, RESOURCES)
