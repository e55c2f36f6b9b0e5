"""Reusable WorkflowTemplates, one module per step, named ``aipipe-<step>-v1`` from the contract."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from pipelines.templates import convert, deploy, evaluate, export_annotations, train

BUILDERS = {
    "export-annotations": export_annotations.build,
    "train": train.build,
    "evaluate": evaluate.build,
    "convert": convert.build,
    "deploy": deploy.build,
}


def build_all(cfg: Config) -> list[WorkflowTemplate]:
    """Every step's WorkflowTemplate, in pipeline order."""
    return [build(cfg) for build in BUILDERS.values()]
