"""Reference checks: every ``{{…}}`` simple tag names something that exists and is upstream."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from aipipe.compile.dag import ancestors, task_edges
from aipipe.compile.diagnostics import Resource

TAG = re.compile(r"{{\s*([^=}][^}]*?)\s*}}")
KnownTemplates = Mapping[str, Mapping[str, Mapping[str, Any]]]  # WorkflowTemplate -> template name -> template


def calls(tmpl: Mapping[str, Any], where: list[str | int]) -> Iterator[tuple[Mapping[str, Any], list[str | int]]]:
    """DAG tasks and steps of a template, with their field paths."""
    dag = tmpl.get("dag")
    if isinstance(dag, Mapping):
        for i, task in enumerate(dag.get("tasks") or []):
            if isinstance(task, Mapping):
                yield task, [*where, "dag", "tasks", i]
    for g, group in enumerate(tmpl.get("steps") or []):
        for s, step in enumerate(group or []):
            if isinstance(step, Mapping):
                yield step, [*where, "steps", g, s]


def callee(call: Mapping[str, Any], local: Mapping[str, tuple[int, Mapping[str, Any]]],
            library: KnownTemplates) -> Mapping[str, Any] | None:
    inline = call.get("inline")
    if isinstance(inline, Mapping):
        return inline
    ref = call.get("templateRef")
    if isinstance(ref, Mapping):
        return (library.get(str(ref.get("name"))) or {}).get(str(ref.get("template")))
    name = call.get("template")
    return local[name][1] if isinstance(name, str) and name in local else None


def param_names(section: Any) -> list[str]:
    params = (section or {}).get("parameters") or [] if isinstance(section, Mapping) else []
    return [str(p.get("name")) for p in params if isinstance(p, Mapping)]


def _strings(node: Any, path: list[str | int]) -> Iterator[tuple[str, list[str | int]]]:
    """Every string below ``node`` with its path, except inside a task's or step's ``inline`` template (a template
    of its own, with its own inputs: checked on its own)."""
    if isinstance(node, str):
        yield node, path
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if key != "inline":
                yield from _strings(value, [*path, str(key)])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, [*path, i])


def _output_names(target: Mapping[str, Any] | None, section: str) -> set[str] | None:
    if target is None:
        return None
    items = (target.get("outputs") or {}).get(section) or []
    return {str(p.get("name")) for p in items if isinstance(p, Mapping)}


def check_references(res: Resource, tmpl: Mapping[str, Any], where: list[str | int], template: str,
                      local: Mapping[str, tuple[int, Mapping[str, Any]]], library: KnownTemplates,
                      workflow_params: set[str] | None) -> None:
    inputs = tmpl.get("inputs") or {}
    declared = {"parameters": set(param_names(inputs)),
                "artifacts": {str(a.get("name")) for a in inputs.get("artifacts") or [] if isinstance(a, Mapping)}}
    callees = {}
    for call, path in calls(tmpl, where):
        callees[str(call.get("name"))] = callee(call, local, library)
        if isinstance(call.get("inline"), Mapping):
            check_references(res, call["inline"], [*path, "inline"], template, local, library, workflow_params)
    scope = "tasks" if isinstance(tmpl.get("dag"), Mapping) else "steps" if tmpl.get("steps") else None
    for text, path in _strings(tmpl, where):
        for match in TAG.finditer(text):
            parts = match.group(1).split(".")
            message = _undefined(parts, declared, callees, scope, workflow_params)
            if message is None and parts[0] == scope and len(parts) >= 2:
                message = _not_upstream(tmpl, path[len(where):], parts[1])
            if message:
                res.report(f"{message} in {{{{{match.group(1)}}}}}", path, template, "reference")


def _not_upstream(tmpl: Mapping[str, Any], rel: list[str | int], referenced: str) -> str | None:
    """A task/step may use outputs only of tasks it depends on (transitively) or of earlier step groups."""
    if rel[:2] == ["dag", "tasks"] and len(rel) > 2 and isinstance(rel[2], int):
        tasks = [t for t in tmpl["dag"].get("tasks") or [] if isinstance(t, Mapping)]
        user = str(tasks[rel[2]].get("name"))
        allowed = ancestors(user, task_edges(tasks)) | ({user} if "hooks" in rel else set())
        if referenced not in allowed:
            return f"task {user!r} uses task {referenced!r} but does not depend on it"
    elif rel[:1] == ["steps"] and len(rel) > 2 and isinstance(rel[1], int) and isinstance(rel[2], int):
        groups = tmpl.get("steps") or []
        earlier = {str(step.get("name")) for group in groups[:rel[1]] for step in group or []
                   if isinstance(step, Mapping)}
        user = str(groups[rel[1]][rel[2]].get("name"))
        if referenced not in earlier | ({user} if "hooks" in rel else set()):
            return f"step {user!r} uses step {referenced!r}, which is not in an earlier step group"
    return None


def _undefined(parts: list[str], declared: Mapping[str, set[str]], callees: Mapping[str, Any], scope: str | None,
               workflow_params: set[str] | None) -> str | None:
    """Why a simple tag's reference is undefined, or None when it is fine (or not ours to judge)."""
    head = parts[0]
    if head == "inputs" and len(parts) >= 3 and parts[1] in declared:
        if parts[2] not in declared[parts[1]]:
            return f"undefined input {parts[1][:-1]} {parts[2]!r}"
    elif head == "workflow" and len(parts) >= 3 and parts[1] == "parameters" and workflow_params is not None:
        if ".".join(parts[2:]) not in workflow_params and parts[2] not in ("json",):
            return f"undefined workflow parameter {'.'.join(parts[2:])!r}"
    elif head in ("tasks", "steps") and len(parts) >= 2:
        if scope != head:
            return f"{head}.* reference outside a {'DAG' if head == 'tasks' else 'steps'} template"
        if parts[1] not in callees:
            return f"unknown {head[:-1]} {parts[1]!r} (known: {', '.join(sorted(callees)) or 'none'})"
        if len(parts) >= 5 and parts[2] == "outputs" and parts[3] in ("parameters", "artifacts"):
            names = _output_names(callees[parts[1]], parts[3])
            if names is not None and parts[4] not in names:
                return f"{head[:-1]} {parts[1]!r} has no output {parts[3][:-1]} {parts[4]!r}"
    return None


def template_refs(doc: Mapping[str, Any]) -> set[str]:
    """Names of the (namespaced) WorkflowTemplates a manifest's tasks and steps reference."""
    spec = doc.get("spec") or {}
    spec = spec.get("workflowSpec") or spec
    names = set()
    for tmpl in spec.get("templates") or []:
        for call, _ in calls(tmpl, []) if isinstance(tmpl, Mapping) else ():
            ref = call.get("templateRef")
            if isinstance(ref, Mapping) and not ref.get("clusterScope") and ref.get("name"):
                names.add(str(ref["name"]))
    return names
