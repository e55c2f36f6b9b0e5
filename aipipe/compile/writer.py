"""Write compiled manifests as YAML files, one resource per file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from aipipe.compile.compiler import CompiledPipeline
from aipipe.compile.links import LINKS_FILENAME


def manifest_filename(doc: dict[str, Any]) -> str:
    """``<kind>-<name>.yaml``; a Workflow with only generateName uses it without the trailing dash."""
    meta = doc.get("metadata") or {}
    name = meta.get("name") or str(meta.get("generateName", "workflow")).rstrip("-")
    return f"{str(doc.get('kind', 'resource')).lower()}-{name}.yaml"


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings (descriptions, ``links: |``) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_BlockDumper.add_representer(str, _str)


def dump_yaml(doc: dict[str, Any]) -> str:
    """Block-style YAML with keys in the order Hera emitted them."""
    return yaml.dump(doc, Dumper=_BlockDumper, sort_keys=False, default_flow_style=False, width=120,
                     allow_unicode=True)


def write_manifests(compiled: CompiledPipeline, out_dir: Path) -> list[Path]:
    """Write the Workflow, WorkflowTemplates, CronWorkflows and argo-events manifests into ``out_dir``, and
    the Argo UI's MLflow links as :data:`~aipipe.compile.links.LINKS_FILENAME` when there are any."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [(out_dir / manifest_filename(doc), doc) for doc in [*compiled.documents(), *compiled.events]]
    if compiled.links is not None:
        files.append((out_dir / LINKS_FILENAME, compiled.links))
    for target, doc in files:
        target.write_text(dump_yaml(doc))
    return [target for target, _ in files]
