"""The templates a workflow reaches through ``templateRef``, at any depth (as Argo's validation follows them)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aipipe.engine.execution import TemplateLookup
from aipipe.engine.manifest import is_dynamic_ref


def referenced_templates(spec: Mapping[str, Any], templates: TemplateLookup) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(where, template)`` for each template of a WorkflowTemplate or ClusterWorkflowTemplate that the workflow's
    own templates call through a ``templateRef``, and each one those call in turn (by ``template`` inside their own
    manifest, or by another ``templateRef``). A dynamic reference, or one naming nothing stored, is not followed."""
    seen: set[tuple[str, str, str]] = set()
    todo: list[tuple[Mapping[str, Any] | None, Mapping[str, Any]]] = [(None, t) for t in spec.get("templates") or []
                                                                      if isinstance(t, Mapping)]
    while todo:
        home, tmpl = todo.pop()
        for call in _call_sites(tmpl):
            target = _target(call, home, templates)
            if target is None:
                continue
            key, manifest, found = target
            if key in seen:
                continue
            seen.add(key)
            yield f"{key[0]}.{key[1]}.templates.{key[2]}", found
            todo.append((manifest, found))


def called_template(call: Mapping[str, Any], local: Mapping[str, Any],
                    templates: TemplateLookup) -> Mapping[str, Any] | None:
    """The template a step or task runs: by name among ``local``, inline, or the stored one its static templateRef
    names (as Argo's validateSteps resolves it before adding its outputs to the scope); None when not found."""
    if call.get("template"):
        return local.get(call["template"])
    if not isinstance(call.get("templateRef"), Mapping):
        return call.get("inline")
    target = _target(call, None, templates)
    return None if target is None else target[2]


def _target(call: Mapping[str, Any], home: Mapping[str, Any] | None,
            templates: TemplateLookup) -> tuple[tuple[str, str, str], Mapping[str, Any], Mapping[str, Any]] | None:
    """The manifest template a call site names: through its templateRef, or by name inside ``home`` (the
    referenced manifest the caller lives in; None for the workflow's own templates, checked on their own)."""
    tref = call.get("templateRef")
    manifest: Mapping[str, Any] | None
    if isinstance(tref, Mapping):
        if is_dynamic_ref(tref) or not tref.get("name") or not tref.get("template"):
            return None
        kind = "ClusterWorkflowTemplate" if tref.get("clusterScope") else "WorkflowTemplate"
        manifest, name = templates(kind, str(tref["name"])), str(tref["template"])
    elif isinstance(call.get("template"), str) and home is not None:
        manifest, name = home, call["template"]
        kind = str(home.get("kind") or "WorkflowTemplate")
    else:
        return None
    if not isinstance(manifest, Mapping):
        return None
    local = {t.get("name"): t for t in (manifest.get("spec") or {}).get("templates") or [] if isinstance(t, Mapping)}
    if name not in local:
        return None
    meta = manifest.get("metadata") or {}
    return (kind, str(meta.get("name")), name), manifest, local[name]


def _call_sites(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every mapping inside a template that calls another (a step, a task, a hook): it names ``template`` or
    ``templateRef``."""
    if isinstance(value, Mapping):
        if isinstance(value.get("template"), str) or isinstance(value.get("templateRef"), Mapping):
            yield value
        for item in value.values():
            yield from _call_sites(item)
    elif isinstance(value, list):
        for item in value:
            yield from _call_sites(item)


def reached_from(spec: Mapping[str, Any], entry: str) -> list[str]:
    """The names of the workflow's own templates that ``entry`` runs through its steps and tasks (and their inline
    templates), ``entry`` first, in the depth-first order Argo's validation walks them; hooks are left out (their
    templates resolve when they fire)."""
    local = {t.get("name"): t for t in spec.get("templates") or [] if isinstance(t, Mapping)}
    order: list[str] = []
    stack = [entry]
    while stack:
        name = stack.pop()
        if name in order or name not in local:
            continue
        order.append(name)
        stack.extend(reversed(_callees(local[name])))
    return order


def _callees(tmpl: Any) -> list[str]:
    """The templates a template's steps and tasks name, in order (an inline template's own calls in its place)."""
    if not isinstance(tmpl, Mapping):
        return []
    calls = [s for g in tmpl.get("steps") or [] if isinstance(g, list) for s in g]
    calls += list((tmpl.get("dag") or {}).get("tasks") or [])
    names: list[str] = []
    for call in calls:
        if isinstance(call, Mapping):
            names += [call["template"]] if isinstance(call.get("template"), str) else _callees(call.get("inline"))
    return names
