"""Reusable WorkflowTemplates: one per discovered step folder, ``aipipe-<step>-<version>``, all made by
:func:`pipelines.templates.builder.step_template` from the step's contract."""

from __future__ import annotations

from collections.abc import Iterable

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import StepSpec
from aipipe.discovery import discover_steps
from pipelines.templates.builder import step_template


def build_all(cfg: Config, specs: Iterable[StepSpec] | None = None) -> list[WorkflowTemplate]:
    """The WorkflowTemplates of ``specs`` (default: every step folder found)."""
    return [step_template(spec, cfg) for spec in (discover_steps().values() if specs is None else specs)]
