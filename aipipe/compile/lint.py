"""Lint Argo manifests: structure (the CRD schemas) and what the CRDs cannot express.

Semantic checks, each reported with file, resource, template and field:
- ``template-ref``: unknown template names (entrypoint, onExit, DAG tasks, steps) and
  ``templateRef``s to unknown WorkflowTemplates or templates inside them;
- ``reference``: undefined ``{{inputs.parameters.x}}``, ``{{workflow.parameters.x}}``,
  ``{{tasks.t.outputs.parameters.y}}`` and ``{{steps.s.outputs.parameters.y}}`` references;
- ``cycle``: dependency cycles (and dependencies on unknown tasks) in DAGs;
- ``argument``: required inputs without an argument, workflow arguments without a value.
Expression tags (``{{=…}}``) are not parsed here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.compile.diagnostics import ERROR, WARNING, Diagnostic, format_path
from aipipe.compile.schema import load_validators, schema_errors

WORKFLOW_KINDS = ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")
TAG = re.compile(r"{{\s*([^=}][^}]*?)\s*}}")
DEPENDS_OPERATORS = re.compile(r"&&|\|\||!|\(|\)")
TASK_RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned", "AnySucceeded", "AllFailed")

KnownTemplates = Mapping[str, Mapping[str, Mapping[str, Any]]]  # WorkflowTemplate -> template name -> template


@dataclass
class _Resource:
    """One manifest being linted, with the helper that records its diagnostics."""

    file: str
    kind: str
    name: str
    spec: dict[str, Any]
    spec_path: list[str | int]
    found: list[Diagnostic]

    def report(self, message: str, field: Sequence[str | int] = (), template: str = "", check: str = "",
               severity: str = ERROR) -> None:
        self.found.append(Diagnostic(self.file, self.kind, self.name, message, format_path(field), template,
                                     severity, check))


def lint_documents(docs: Sequence[tuple[str, dict[str, Any]]], schema_dir: Path | None = None,
                   known_templates: KnownTemplates | None = None) -> list[Diagnostic]:
    """Lint ``(file, manifest)`` pairs; ``templateRef``s resolve against these docs and ``known_templates``."""
    found: list[Diagnostic] = []
    if schema_dir is not None:
        found += _structural(docs, schema_dir)
    library = dict(known_templates or {})
    library.update(template_library(docs))
    for file, doc in docs:
        resource = _resource(file, doc, found)
        if resource is not None:
            _lint_spec(resource, library)
    return found


def _structural(docs: Sequence[tuple[str, dict[str, Any]]], schema_dir: Path) -> list[Diagnostic]:
    validators = load_validators(schema_dir)
    found = []
    for file, doc in docs:
        kind, name = str(doc.get("kind")), _name(doc)
        validator = validators.get(kind)
        if validator is None:
            found.append(Diagnostic(file, kind, name, f"no CRD schema for kind {kind!r} in {schema_dir}",
                                    "kind", check="schema"))
            continue
        for path, message in schema_errors(validator, doc):
            found.append(Diagnostic(file, kind, name, message, format_path(path), _template_at(doc, path),
                                    check="schema"))
    return found


def _name(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata") or {}
    return str(meta.get("name") or meta.get("generateName") or "?") if isinstance(meta, Mapping) else "?"


def _template_at(doc: Mapping[str, Any], path: Sequence[str | int]) -> str:
    """The template name a schema error path points into (``spec.templates[i]…``)."""
    for i in range(len(path) - 1):
        if path[i] == "templates" and isinstance(path[i + 1], int):
            spec = doc.get("spec") or {}
            templates = (spec.get("workflowSpec") or spec).get("templates") or []
            if path[i + 1] < len(templates) and isinstance(templates[path[i + 1]], Mapping):
                return str(templates[path[i + 1]].get("name", ""))
    return ""


def _resource(file: str, doc: dict[str, Any], found: list[Diagnostic]) -> _Resource | None:
    kind = doc.get("kind")
    if kind not in WORKFLOW_KINDS:
        return None
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        found.append(Diagnostic(file, str(kind), _name(doc), "missing spec", "spec", check="schema"))
        return None
    if kind == "CronWorkflow":
        spec = spec.get("workflowSpec")
        if not isinstance(spec, dict):
            found.append(Diagnostic(file, kind, _name(doc), "missing workflowSpec", "spec.workflowSpec",
                                    check="schema"))
            return None
        return _Resource(file, kind, _name(doc), spec, ["spec", "workflowSpec"], found)
    return _Resource(file, str(kind), _name(doc), spec, ["spec"], found)


def template_library(docs: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """WorkflowTemplate name -> its templates by name, for resolving ``templateRef``s."""
    library = {}
    for _, doc in docs:
        if doc.get("kind") in ("WorkflowTemplate", "ClusterWorkflowTemplate"):
            templates = (doc.get("spec") or {}).get("templates") or []
            library[_name(doc)] = {t["name"]: t for t in templates if isinstance(t, Mapping) and "name" in t}
    return library


def _templates(res: _Resource) -> dict[str, tuple[int, Mapping[str, Any]]]:
    out: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for i, tmpl in enumerate(res.spec.get("templates") or []):
        if not isinstance(tmpl, Mapping):
            continue
        name = str(tmpl.get("name", ""))
        if name in out:
            res.report(f"duplicate template name {name!r}", [*res.spec_path, "templates", i, "name"], name,
                       "template-ref")
        out[name] = (i, tmpl)
    return out


def _lint_spec(res: _Resource, library: KnownTemplates) -> None:
    local = _templates(res)
    if res.kind in ("Workflow", "CronWorkflow") and not res.spec.get("workflowTemplateRef"):
        _check_name(res, local, res.spec.get("entrypoint"), [*res.spec_path, "entrypoint"], "", "entrypoint")
        _check_workflow_arguments(res)
    elif res.spec.get("entrypoint"):
        _check_name(res, local, res.spec["entrypoint"], [*res.spec_path, "entrypoint"], "", "entrypoint")
    if res.spec.get("onExit"):
        _check_name(res, local, res.spec["onExit"], [*res.spec_path, "onExit"], "", "onExit")
    workflow_params = _workflow_params(res)
    for name, (index, tmpl) in local.items():
        where = [*res.spec_path, "templates", index]
        calls = list(_calls(tmpl, where))
        for call, call_path in calls:
            target = _resolve_call(res, local, library, call, call_path, name)
            if target is not None:
                _check_arguments(res, call, call_path, target, name)
        _check_references(res, tmpl, where, name, local, library, workflow_params)
        if isinstance(tmpl.get("dag"), Mapping):
            _check_dag(res, tmpl["dag"], [*where, "dag"], name)


def _check_name(res: _Resource, local: Mapping[str, Any], name: Any, field: list[str | int], template: str,
                what: str) -> None:
    if name is None or name == "":
        if what == "entrypoint":
            res.report("no entrypoint", field, template, "template-ref")
        return
    if name not in local:
        res.report(f"{what} names unknown template {name!r} (defined: {', '.join(sorted(local)) or 'none'})",
                   field, template, "template-ref")


def _calls(tmpl: Mapping[str, Any], where: list[str | int]) -> Iterator[tuple[Mapping[str, Any], list[str | int]]]:
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


def _resolve_call(res: _Resource, local: Mapping[str, tuple[int, Mapping[str, Any]]], library: KnownTemplates,
                  call: Mapping[str, Any], path: list[str | int], template: str) -> Mapping[str, Any] | None:
    """The template a task/step calls, or None (after reporting) when it cannot be found."""
    ref = call.get("templateRef")
    if isinstance(ref, Mapping):
        if ref.get("clusterScope") and ref.get("name") not in library:
            return None  # ClusterWorkflowTemplates live on the cluster; nothing to check against
        wft = library.get(str(ref.get("name")))
        if wft is None:
            res.report(f"templateRef names unknown WorkflowTemplate {ref.get('name')!r} "
                       f"(known: {', '.join(sorted(library)) or 'none'})", [*path, "templateRef", "name"], template,
                       "template-ref")
            return None
        target = wft.get(str(ref.get("template")))
        if target is None:
            res.report(f"WorkflowTemplate {ref.get('name')!r} has no template {ref.get('template')!r} "
                       f"(it has: {', '.join(sorted(wft)) or 'none'})", [*path, "templateRef", "template"], template,
                       "template-ref")
        return target
    name = call.get("template")
    if name is None:
        if not call.get("inline"):
            res.report("calls no template (set template, templateRef or inline)", path, template, "template-ref")
        return call.get("inline") if isinstance(call.get("inline"), Mapping) else None
    if name not in local:
        _check_name(res, local, name, [*path, "template"], template, f"{call.get('name', 'task')!r}")
        return None
    return local[name][1]


def _param_names(section: Any) -> list[str]:
    params = (section or {}).get("parameters") or [] if isinstance(section, Mapping) else []
    return [str(p.get("name")) for p in params if isinstance(p, Mapping)]


def _check_arguments(res: _Resource, call: Mapping[str, Any], path: list[str | int], target: Mapping[str, Any],
                     template: str) -> None:
    given = set(_param_names(call.get("arguments")))
    inputs = (target.get("inputs") or {}).get("parameters") or []
    declared = set()
    for param in inputs:
        if not isinstance(param, Mapping):
            continue
        declared.add(param.get("name"))
        required = "default" not in param and "value" not in param and "valueFrom" not in param
        if required and param.get("name") not in given:
            res.report(f"missing required argument {param.get('name')!r} for template {target.get('name')!r}",
                       [*path, "arguments", "parameters"], template, "argument")
    if call.get("withItems") is None and call.get("withParam") is None:
        for extra in sorted(given - declared):
            res.report(f"argument {extra!r} is not an input of template {target.get('name')!r}",
                       [*path, "arguments", "parameters"], template, "argument", WARNING)


def _check_workflow_arguments(res: _Resource) -> None:
    for i, param in enumerate((res.spec.get("arguments") or {}).get("parameters") or []):
        if isinstance(param, Mapping) and "value" not in param and "valueFrom" not in param:
            res.report(f"workflow argument {param.get('name')!r} has no value",
                       [*res.spec_path, "arguments", "parameters", i], "", "argument")


def _workflow_params(res: _Resource) -> set[str] | None:
    """Names ``{{workflow.parameters.x}}`` may use, or None when they come from the caller (templates)."""
    if res.kind not in ("Workflow", "CronWorkflow") or res.spec.get("workflowTemplateRef"):
        return None
    return set(_param_names(res.spec.get("arguments")))


def _strings(node: Any, path: list[str | int]) -> Iterator[tuple[str, list[str | int]]]:
    if isinstance(node, str):
        yield node, path
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield from _strings(value, [*path, str(key)])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, [*path, i])


def _output_names(target: Mapping[str, Any] | None, section: str) -> set[str] | None:
    if target is None:
        return None
    items = (target.get("outputs") or {}).get(section) or []
    return {str(p.get("name")) for p in items if isinstance(p, Mapping)}


def _check_references(res: _Resource, tmpl: Mapping[str, Any], where: list[str | int], template: str,
                      local: Mapping[str, tuple[int, Mapping[str, Any]]], library: KnownTemplates,
                      workflow_params: set[str] | None) -> None:
    inputs = tmpl.get("inputs") or {}
    declared = {"parameters": set(_param_names(inputs)),
                "artifacts": {str(a.get("name")) for a in inputs.get("artifacts") or [] if isinstance(a, Mapping)}}
    callees = {}
    for call, _ in _calls(tmpl, where):
        callees[str(call.get("name"))] = _callee(call, local, library)
    scope = "tasks" if isinstance(tmpl.get("dag"), Mapping) else "steps" if tmpl.get("steps") else None
    for text, path in _strings(tmpl, where):
        for match in TAG.finditer(text):
            parts = match.group(1).split(".")
            message = _undefined(parts, declared, callees, scope, workflow_params)
            if message:
                res.report(f"{message} in {{{{{match.group(1)}}}}}", path, template, "reference")


def _callee(call: Mapping[str, Any], local: Mapping[str, tuple[int, Mapping[str, Any]]],
            library: KnownTemplates) -> Mapping[str, Any] | None:
    ref = call.get("templateRef")
    if isinstance(ref, Mapping):
        return (library.get(str(ref.get("name"))) or {}).get(str(ref.get("template")))
    name = call.get("template")
    return local[name][1] if name in local else None


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


def depends_tasks(expression: str) -> list[str]:
    """Task names in a ``depends`` expression (``a && (b.Failed || !c)`` -> a, b, c)."""
    names = []
    for token in DEPENDS_OPERATORS.sub(" ", expression).split():
        base, _, result = token.partition(".")
        if not result or result in TASK_RESULTS:
            names.append(base)
        else:
            names.append(token)
    return names


def _check_dag(res: _Resource, dag: Mapping[str, Any], where: list[str | int], template: str) -> None:
    tasks = [t for t in dag.get("tasks") or [] if isinstance(t, Mapping)]
    names = {str(t.get("name")) for t in tasks}
    edges: dict[str, list[str]] = {}
    for i, task in enumerate(tasks):
        deps = list(task.get("dependencies") or [])
        field = "dependencies"
        if task.get("depends"):
            deps += depends_tasks(str(task["depends"]))
            field = "depends"
        for dep in deps:
            if dep not in names:
                res.report(f"task {task.get('name')!r} depends on unknown task {dep!r}", [*where, "tasks", i, field],
                           template, "cycle")
        edges[str(task.get("name"))] = [d for d in deps if d in names]
    cycle = _find_cycle(edges)
    if cycle:
        index = next(i for i, t in enumerate(tasks) if t.get("name") == cycle[0])
        res.report(f"dependency cycle: {' -> '.join(cycle)}", [*where, "tasks", index], template, "cycle")


def _find_cycle(edges: Mapping[str, list[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in edges.get(node, []):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep):], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in edges:
        if node not in state and (found := visit(node)):
            return found
    return None
