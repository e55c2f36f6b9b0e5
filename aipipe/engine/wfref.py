"""The spec a Workflow runs: a ``workflowTemplateRef``'s WorkflowTemplate under the workflow's own fields, its
arguments merged by name as Argo merges them."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from aipipe.engine.execution import TemplateLookup
from aipipe.errors import UserError


def resolve_workflow_spec(workflow: Mapping[str, Any], templates: TemplateLookup) -> dict[str, Any]:
    """The effective spec: a ``workflowTemplateRef``'s spec with the workflow's own fields over it."""
    spec = dict(workflow.get("spec") or {})
    ref = spec.get("workflowTemplateRef")
    if not ref:
        return spec
    kind = "ClusterWorkflowTemplate" if ref.get("clusterScope") else "WorkflowTemplate"
    manifest = templates(kind, str(ref.get("name")))
    if manifest is None:
        raise UserError(f"{kind} {ref.get('name')!r} not found (register it first)", field="spec.workflowTemplateRef")
    if spec.get("templates"):
        raise UserError("Templates is invalid field in spec if workflow referred WorkflowTemplate reference",
                        field="spec.templates")
    base = copy.deepcopy(manifest.get("spec") or {})
    own = {k: v for k, v in spec.items() if k != "workflowTemplateRef"}
    base_args = base.get("arguments") or {}
    own_args = own.pop("arguments", None) or {}
    words = "cluster workflow template" if ref.get("clusterScope") else "workflow template"
    for section in ("parameters", "artifacts"):
        malformed = f"malformed {words} {ref.get('name')!r}: its spec.arguments.{section}"
        merged = {item["name"]: item for item in _named_items(base_args, section, "spec.workflowTemplateRef",
                                                              malformed)}
        for item in _named_items(own_args, section, f"spec.arguments.{section}"):
            merged[item["name"]] = {**_overridden(merged.get(item["name"], {}), item), **item}
        if merged:
            base.setdefault("arguments", {})[section] = list(merged.values())
    base.update(own)
    return base


def _overridden(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """The template's argument under the workflow's: its other fields stay, but where the workflow gives a
    ``value`` the template's ``valueFrom`` goes, and the other way round (Argo's fix for issue 14426)."""
    drop = {"valueFrom"} if "value" in override else {"value"} if "valueFrom" in override else set()
    return {k: v for k, v in base.items() if k not in drop}


def _named_items(arguments: Any, section: str, field: str, malformed: str = "") -> list[Mapping[str, Any]]:
    """``arguments[section]``, checked to be a list of objects that each have a name (Argo's unmarshalling
    refuses anything else); ``malformed`` words the refusal when the arguments are a referenced template's."""
    items = arguments.get(section) if isinstance(arguments, Mapping) else arguments
    if not items:
        return []
    if not isinstance(arguments, Mapping) or not isinstance(items, list) or not all(
            isinstance(i, Mapping) and i.get("name") for i in items):
        reason = "must be a list of objects, each with a name"
        raise UserError(f"{malformed} {reason}" if malformed else reason, field=field)
    return items
