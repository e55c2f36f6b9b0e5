"""The spec a Workflow runs: a ``workflowTemplateRef``'s WorkflowTemplate under the workflow's own fields, joined as
Argo's JoinWorkflowSpec joins them (a strategic merge: objects field by field, lists of named items by name), its
arguments merged by name."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from aipipe.engine.calls import strategic_merge
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
    return strategic_merge(base, own)


def refuse_unresolved_parts(workflow: Mapping[str, Any], spec: Mapping[str, Any]) -> None:
    """Argo's checks of a run of a ``workflowTemplateRef`` (validate.Workflow), in its order: the entrypoint and the
    exit handler are templates of the referenced template (joined ``spec``), and the run's own lifecycle hooks,
    judged before they are joined, each have an ``expression`` (only ``exit`` needs none)."""
    own = workflow.get("spec") or {}
    ref = own.get("workflowTemplateRef")
    if not isinstance(ref, Mapping):
        return
    names = {t.get("name") for t in spec.get("templates") or [] if isinstance(t, Mapping)}
    for field in ("entrypoint", "onExit"):
        if spec.get(field) and spec[field] not in names:
            raise UserError(f"template reference {ref.get('name')}.{spec[field]} not found", field=f"spec.{field}")
    for name, hook in (own.get("hooks") or {}).items():
        if name != "exit" and not (isinstance(hook, Mapping) and str(hook.get("expression") or "").strip()):
            raise UserError(f"hooks.{name} Expression required", field=f"spec.hooks.{name}")


def _overridden(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """The template's argument under the workflow's: its other fields stay, but where the workflow gives a
    ``value`` the template's ``valueFrom`` goes, and the other way round (Argo's fix for issue 14426); and its
    ``enum`` goes, as Argo's validation takes the workflow's parameter whole (MergeParameters), so the template's
    enum never binds a value the workflow gives (argo-workflows#14704)."""
    drop = {"enum"} | ({"valueFrom"} if "value" in override else {"value"} if "valueFrom" in override else set())
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
