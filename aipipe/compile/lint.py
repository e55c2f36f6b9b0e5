"""Lint Argo manifests: structure (the CRD schemas) and what the CRDs cannot express.

Semantic checks, each reported with file, resource, template and field:
- ``template-ref``: unknown template names (entrypoint, onExit, DAG tasks, steps) and
  ``templateRef``s to unknown WorkflowTemplates or templates inside them;
- ``reference``: undefined ``{{inputs.parameters.x}}``, ``{{workflow.parameters.x}}``,
  ``{{tasks.t.outputs.parameters.y}}`` and ``{{steps.s.outputs.parameters.y}}`` references, and
  references to tasks a task does not depend on (or steps of a later group);
- ``cycle``: dependency cycles (and dependencies on unknown tasks) in DAGs;
- ``argument``: required inputs without an argument, workflow arguments without a value;
- ``metrics``: custom metrics (one type each, real-time gauges, one type and help per name; see
  :mod:`aipipe.compile.metric_check`), whose ``{{outputs.parameters.x}}`` are ``reference`` checks;
- ``gpu``: GPU requests the embedded engine cannot honour (a fractional ``nvidia.com/gpu``, a share out of range,
  a bad ``aipipe.dev/preemptible`` or KAI annotation; :func:`aipipe.engine.gpu.request_problem`);
- ``links``: the ``links`` of a workflow-controller ConfigMap (the Argo UI's links, see
  :mod:`aipipe.compile.links`): a YAML list of ``{name, scope, url, target}`` with a known scope.
Expression tags (``{{=…}}``) are not parsed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aipipe.compile.dag import check_dag, depends_tasks
from aipipe.compile.diagnostics import ERROR, WARNING, Diagnostic, Resource, format_path
from aipipe.compile.links import CONTROLLER_CONFIGMAP, link_errors
from aipipe.compile.metric_check import check_metrics
from aipipe.compile.references import KnownTemplates, calls, check_references, param_names
from aipipe.compile.schema import load_validators, schema_errors, unknown_fields
from aipipe.compile.strict import UNDECLARED_REASON, undeclared_fields
from aipipe.engine.gpu import request_problem

WORKFLOW_KINDS = ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")


def lint_documents(docs: Sequence[tuple[str, dict[str, Any]]], schema_dir: Path | None = None,
                   known_templates: KnownTemplates | Sequence[dict[str, Any]] | None = None) -> list[Diagnostic]:
    """Lint ``(file, manifest)`` pairs.

    ``templateRef``s resolve against the WorkflowTemplates among ``docs`` and ``known_templates``
    (WorkflowTemplate manifests, or a :func:`template_library` mapping), which are not linted.
    ``schema_dir`` (the Argo CRDs) adds the structural check.
    """
    found = [Diagnostic(file, "?", _name(doc), "not a Kubernetes manifest (no apiVersion/kind)", "kind",
                        check="schema") for file, doc in docs if not doc.get("kind") or not doc.get("apiVersion")]
    manifests = [(file, doc) for file, doc in docs if doc.get("kind") and doc.get("apiVersion")]
    found += _structural(manifests, schema_dir) if schema_dir is not None else _undeclared(manifests)
    library: dict[str, Mapping[str, Mapping[str, Any]]]
    if isinstance(known_templates, Mapping):
        library = dict(known_templates)
    else:
        library = dict(template_library([("", t) for t in known_templates or ()]))
    library.update(template_library(manifests))
    resources = []
    for file, doc in manifests:
        if _is_controller_config(doc):
            found += [Diagnostic(file, "ConfigMap", CONTROLLER_CONFIGMAP, message, field, check="links")
                      for field, message in link_errors(doc)]
        resource = _resource(file, doc, found)
        if resource is not None:
            _lint_spec(resource, library)
            resources.append(resource)
    check_metrics(resources)
    return found


def _structural(docs: Sequence[tuple[str, dict[str, Any]]], schema_dir: Path) -> list[Diagnostic]:
    validators = load_validators(schema_dir)
    found = []
    for file, doc in docs:
        kind, name = str(doc.get("kind")), _name(doc)
        validator = validators.get(kind)
        if _is_controller_config(doc):
            continue  # a core ConfigMap, no CRD: its links are checked in lint_documents
        if validator is None:
            severity = ERROR if kind in WORKFLOW_KINDS or not str(doc.get("apiVersion", "")).startswith(
                "argoproj.io/") else WARNING  # argo-events kinds have no full CRD: not checked here
            found.append(Diagnostic(file, kind, name, f"no CRD schema for kind {kind!r} in {schema_dir}",
                                    "kind", severity=severity, check="schema"))
            continue
        for path, message in schema_errors(validator, doc):
            found.append(Diagnostic(file, kind, name, message, format_path(path), _template_at(doc, path),
                                    check="schema"))
        for path, key in unknown_fields(validator.schema, doc):
            found.append(Diagnostic(file, kind, name, f"unknown field {key!r} (the API server would drop it)",
                                    format_path(path), _template_at(doc, path), check="schema"))
    return found


def _undeclared(docs: Sequence[tuple[str, dict[str, Any]]]) -> list[Diagnostic]:
    """Without the CRDs: the fields Argo's types lack, as ``argo lint`` and ``argo submit`` refuse them."""
    return [Diagnostic(file, str(doc.get("kind")), _name(doc), f"{problem} ({UNDECLARED_REASON})",
                       format_path(path), _template_at(doc, path), check="schema")
            for file, doc in docs for path, problem in undeclared_fields(doc)]


def _is_controller_config(doc: Mapping[str, Any]) -> bool:
    return doc.get("apiVersion") == "v1" and doc.get("kind") == "ConfigMap" and _name(doc) == CONTROLLER_CONFIGMAP


def _name(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata") or {}
    return str(meta.get("name") or meta.get("generateName") or "?") if isinstance(meta, Mapping) else "?"


def _template_at(doc: Mapping[str, Any], path: Sequence[str | int]) -> str:
    """The template name a schema error path points into (``spec.templates[i]…``)."""
    for i in range(len(path) - 1):
        index = path[i + 1]
        if path[i] == "templates" and isinstance(index, int):
            spec = doc.get("spec") or {}
            templates = (spec.get("workflowSpec") or spec).get("templates") or []
            if index < len(templates) and isinstance(templates[index], Mapping):
                return str(templates[index].get("name", ""))
    return ""


def _resource(file: str, doc: dict[str, Any], found: list[Diagnostic]) -> Resource | None:
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
        return Resource(file, kind, _name(doc), spec, ["spec", "workflowSpec"], found)
    return Resource(file, str(kind), _name(doc), spec, ["spec"], found)


def template_library(docs: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """WorkflowTemplate name -> its templates by name, for resolving ``templateRef``s."""
    library = {}
    for _, doc in docs:
        if doc.get("kind") in ("WorkflowTemplate", "ClusterWorkflowTemplate"):
            templates = (doc.get("spec") or {}).get("templates") or []
            library[_name(doc)] = {t["name"]: t for t in templates if isinstance(t, Mapping) and "name" in t}
    return library


def _templates(res: Resource) -> dict[str, tuple[int, Mapping[str, Any]]]:
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


def _lint_spec(res: Resource, library: KnownTemplates) -> None:
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
        for call, call_path in calls(tmpl, where):
            target = _resolve_call(res, local, library, call, call_path, name)
            if target is not None:
                _check_arguments(res, call, call_path, target, name)
        check_references(res, tmpl, where, name, local, library, workflow_params)
        gpu = request_problem(tmpl, format_path(where))  # what the embedded engine would refuse to run
        if gpu is not None:
            res.report(str(gpu).removeprefix(f"{gpu.field}: "), [gpu.field or format_path(where)], name, "gpu")
        if isinstance(tmpl.get("dag"), Mapping):
            check_dag(res, tmpl["dag"], [*where, "dag"], name)


def _check_name(res: Resource, local: Mapping[str, Any], name: Any, field: list[str | int], template: str,
                what: str) -> None:
    if name is None or name == "":
        if what == "entrypoint":
            res.report("no entrypoint", field, template, "template-ref")
        return
    if name not in local:
        res.report(f"{what} names unknown template {name!r} (defined: {', '.join(sorted(local)) or 'none'})",
                   field, template, "template-ref")


def _resolve_call(res: Resource, local: Mapping[str, tuple[int, Mapping[str, Any]]], library: KnownTemplates,
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


def _check_arguments(res: Resource, call: Mapping[str, Any], path: list[str | int], target: Mapping[str, Any],
                     template: str) -> None:
    given = set(param_names(call.get("arguments")))
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


def _check_workflow_arguments(res: Resource) -> None:
    for i, param in enumerate((res.spec.get("arguments") or {}).get("parameters") or []):
        if isinstance(param, Mapping) and "value" not in param and "valueFrom" not in param:
            res.report(f"workflow argument {param.get('name')!r} has no value",
                       [*res.spec_path, "arguments", "parameters", i], "", "argument")


def _workflow_params(res: Resource) -> set[str] | None:
    """Names ``{{workflow.parameters.x}}`` may use, or None when they come from the caller (templates)."""
    if res.kind not in ("Workflow", "CronWorkflow") or res.spec.get("workflowTemplateRef"):
        return None
    return set(param_names(res.spec.get("arguments")))


__all__ = ["KnownTemplates", "depends_tasks", "lint_documents", "template_library"]
