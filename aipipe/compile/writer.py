"""Write compiled manifests as YAML files, one resource per file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from aipipe.compile.compiler import CompiledPipeline


def manifest_filename(doc: dict[str, Any]) -> str:
    """``<kind>-<name>.yaml``; a Workflow with only generateName uses it without the trailing dash."""
    meta = doc.get("metadata") or {}
    name = meta.get("name") or str(meta.get("generateName", "workflow")).rstrip("-")
    return f"{str(doc.get('kind', 'resource')).lower()}-{name}.yaml"


def dump_yaml(doc: dict[str, Any]) -> str:
    """Block-style YAML with keys in the order Hera emitted them."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=120)


def write_manifests(compiled: CompiledPipeline, out_dir: Path) -> list[Path]:
    """Write the Workflow, WorkflowTemplates, CronWorkflows and argo-events manifests into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for doc in [*compiled.documents(), *compiled.events]:
        target = out_dir / manifest_filename(doc)
        target.write_text(dump_yaml(doc))
        written.append(target)
    return written
