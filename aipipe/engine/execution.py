"""What the executor needs from the outside world: scratch area, storage, templates, secrets, settings, callbacks.

The entry point (aipipe: :mod:`aipipe.engine.context`) builds an :class:`ExecutionContext` and hands it to
:class:`aipipe.engine.executor.WorkflowExecutor`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aipipe.engine.secrets import SecretStore
from aipipe.engine.settings import EngineSettings
from aipipe.storage import Storage

# (kind "WorkflowTemplate" | "ClusterWorkflowTemplate", name) -> manifest or None
TemplateLookup = Callable[[str, str], "dict[str, Any] | None"]


def no_templates(kind: str, name: str) -> dict[str, Any] | None:
    """A lookup that knows no WorkflowTemplates."""
    return None


def dict_templates(manifests: list[dict[str, Any]]) -> TemplateLookup:
    """A lookup over in-memory WorkflowTemplate / ClusterWorkflowTemplate manifests."""
    index = {(m.get("kind", "WorkflowTemplate"), m["metadata"]["name"]): m for m in manifests}

    def lookup(kind: str, name: str) -> dict[str, Any] | None:
        return index.get((kind, name))

    return lookup


def _ignore_change(workflow: dict[str, Any]) -> None:
    return None


def _ignore_log(node_id: str, text: str) -> None:
    return None


@dataclass(frozen=True)
class ExecutionContext:
    """Everything one run needs besides the workflow object itself."""

    work_dir: Path  # per-run scratch; nodes' private roots live under it
    storage: Storage  # aipipe.storage.Storage
    artifact_root: str  # storage URI of the default artifact repository
    templates: TemplateLookup  # (kind, name) -> WorkflowTemplate manifest
    secrets: SecretStore  # resolves (secret name, key) -> value
    settings: EngineSettings
    # called with the whole workflow object after each state change; never contains secret values
    on_change: Callable[[dict[str, Any]], None] = _ignore_change
    # (node_id, text) log chunks, already masked
    on_log: Callable[[str, str], None] = _ignore_log
    # extra environment for every node (e.g. test hooks); secrets never go here
    extra_env: Mapping[str, str] = field(default_factory=dict)
    # number of GPUs to hand out; None = detect with nvidia-smi / CUDA_VISIBLE_DEVICES
    gpu_count: int | None = None
