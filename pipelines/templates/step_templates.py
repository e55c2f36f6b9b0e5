"""Every discovered step's WorkflowTemplate, for ``aipipe templates apply pipelines/templates``."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from pipelines.templates import build_all


def build(cfg: Config) -> list[WorkflowTemplate]:
    """One WorkflowTemplate per step folder, made from its contract."""
    return build_all(cfg)
