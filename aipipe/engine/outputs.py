"""Outputs into the scope (``steps.X.*``, ``tasks.X.*``, aggregated for loops) and template outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aipipe.engine.calls import Call, NodeFailure, TemplateSet, as_text, loop_index
from aipipe.engine.expr import NIL, ExprError, evaluate, to_text
from aipipe.engine.manifest import StepSpec
from aipipe.engine.phases import NodePhase
from aipipe.engine.template import ABSENT, Scope, TemplateError, exact_reference, render

if TYPE_CHECKING:
    from aipipe.engine.runtime import Runtime


class Outputs:
    """How finished nodes become variables for the nodes after them, and a steps/dag template's own outputs."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def register(self, prefix: str, step: StepSpec, nodes: list[dict[str, Any]], scope: Scope,
                 tset: TemplateSet, group: Mapping[str, Any] | None = None) -> None:
        """Make ``steps.X.*`` / ``tasks.X.*`` resolvable (aggregated for loops; absent/default when skipped);
        ``group``: a looped DAG task's TaskGroup node, whose id and times its dependants read too."""
        if step.loop is None:
            node = nodes[0] if nodes else None
            if node is None:
                return
            scope.set(f"{prefix}.status", node.get("phase", ""))
            scope.set(f"{prefix}.id", node.get("id", ""))
            for key in ("startedAt", "finishedAt", "hostNodeName"):  # as Argo's buildLocalScope
                if node.get(key):
                    scope.set(f"{prefix}.{key}", str(node[key]))
            if node.get("podIP"):  # a daemon's address (Argo's steps.X.ip / tasks.X.ip)
                scope.set(f"{prefix}.ip", node["podIP"])
            self._node_outputs_into(prefix, node, step, scope, tset)
            return
        for key in ("id", "startedAt", "finishedAt"):  # as Argo's buildLocalScopeFromTask for a TaskGroup
            if group is not None and group.get(key):
                scope.set(f"{prefix}.{key}", str(group[key]))
        ordered = sorted(nodes, key=lambda n: loop_index(n.get("name", "")))
        ran = [n for n in ordered if n.get("phase") == NodePhase.SUCCEEDED]  # as Argo: Succeeded children only
        per_child: list[dict[str, str]] = []
        names: list[str] = []
        for n in ran:
            params = {p["name"]: p.get("value", "") for p in (n.get("outputs") or {}).get("parameters") or []}
            per_child.append(params)
            for pname in params:
                if pname not in names:
                    names.append(pname)
        scope.set(f"{prefix}.outputs.parameters", json.dumps(per_child, separators=(",", ":")))
        for pname in names:
            scope.set(f"{prefix}.outputs.parameters.{pname}", _aggregated([c.get(pname, "") for c in per_child]))
        results = [(n.get("outputs") or {}).get("result") for n in ran]
        scope.set(f"{prefix}.outputs.result", json.dumps([_unmarshalled(r) for r in results if r is not None],
                                                         separators=(",", ":")))
        if prefix.startswith("steps."):  # Argo's executeStepGroup keys a status by each item's display name only
            return
        failed = any(n.get("phase") in (NodePhase.FAILED, NodePhase.ERROR) for n in ordered)
        scope.set(f"{prefix}.status", (NodePhase.FAILED if failed else NodePhase.SUCCEEDED).value)

    def _declared_outputs(self, step: StepSpec, tset: TemplateSet) -> Mapping[str, Any]:
        """The ``outputs`` the step's template declares (none when it cannot be found)."""
        try:
            return self.rt.resolve_call(step.source, tset).template.get("outputs") or {}
        except NodeFailure:
            return {}

    def _node_outputs_into(self, prefix: str, node: Mapping[str, Any], step: StepSpec, scope: Scope,
                           tset: TemplateSet) -> None:
        outputs = node.get("outputs") or {}
        declared = self._declared_outputs(step, tset)
        if node.get("phase") in (NodePhase.SKIPPED, NodePhase.OMITTED):
            for spec in declared.get("parameters") or []:
                default = (spec.get("valueFrom") or {}).get("default")
                scope.set(f"{prefix}.outputs.parameters.{spec['name']}",
                          as_text(default) if default is not None else ABSENT)
            for spec in declared.get("artifacts") or []:
                scope.set_artifact(f"{prefix}.outputs.artifacts.{spec['name']}", ABSENT)
            scope.set(f"{prefix}.outputs.result", ABSENT)
            scope.set(f"{prefix}.exitCode", ABSENT)
            return
        for p in outputs.get("parameters") or []:
            scope.set(f"{prefix}.outputs.parameters.{p['name']}", p.get("value", ""))
        saved = {a["name"] for a in outputs.get("artifacts") or []}
        for spec in declared.get("artifacts") or []:  # an optional one the node did not make: the bare artifact
            if spec.get("optional") and spec.get("name") not in saved:
                scope.set_artifact(f"{prefix}.outputs.artifacts.{spec['name']}", {"name": spec["name"]})
        for a in outputs.get("artifacts") or []:
            scope.set_artifact(f"{prefix}.outputs.artifacts.{a['name']}", a)
        if "result" in outputs:
            scope.set(f"{prefix}.outputs.result", outputs["result"])
        if "exitCode" in outputs:
            scope.set(f"{prefix}.exitCode", str(outputs["exitCode"]))

    def of_template(self, call: Call, scope: Scope) -> dict[str, Any] | None:
        """Outputs of a steps/dag template: valueFrom.parameter/expression, artifacts from/fromExpression."""
        declared = call.template.get("outputs") or {}
        params = []
        for spec in declared.get("parameters") or []:
            value_from = spec.get("valueFrom") or {}
            default = value_from.get("default")
            value: Any = None
            if not value_from:  # Argo's getTemplateOutputsFromScope: a literal `value` is for a pod's outputs only
                raise NodeFailure("output parameters must have a valueFrom specified", controller=True)
            try:
                if "parameter" in value_from:
                    value = resolve_var(str(value_from["parameter"]), scope)
                elif "expression" in value_from:  # nil (a skipped task's output) takes the default, if any
                    result = evaluate(str(value_from["expression"]), scope.env())
                    value = None if result is NIL and default is not None else to_text(result)
            except (TemplateError, ExprError) as exc:
                if default is None:
                    raise NodeFailure(f"outputs.parameters.{spec['name']}: {exc}", controller=True) from exc
                value = None
            if value is ABSENT or value is None:
                if default is None:
                    raise NodeFailure(f"outputs.parameters.{spec['name']}: refers to an absent optional output and "
                                      "declares no default", controller=True)
                value = as_text(default)
            params.append({"name": spec["name"], "value": value})
            if spec.get("globalName"):
                with self.rt.tree.lock:
                    self.rt.global_params[spec["globalName"]] = value
        artifacts = []
        for spec in declared.get("artifacts") or []:
            try:
                if spec.get("from"):
                    ref = exact_reference(str(spec["from"]))
                    source = scope.artifacts.get(ref or "")
                elif spec.get("fromExpression"):
                    source = evaluate(str(spec["fromExpression"]), scope.env())
                else:
                    source = None
            except ExprError as exc:
                raise NodeFailure(f"outputs.artifacts.{spec['name']}: {exc}") from exc
            if not isinstance(source, dict):
                if spec.get("optional"):
                    continue
                raise NodeFailure(f"outputs.artifacts.{spec['name']}: cannot resolve its source")
            record = {**source, "name": spec["name"]}
            artifacts.append(record)
            if spec.get("globalName"):
                with self.rt.tree.lock:
                    self.rt.global_artifacts[spec["globalName"]] = {**record, "name": spec["globalName"]}
        out: dict[str, Any] = {}
        if params:
            out["parameters"] = params
        if artifacts:
            out["artifacts"] = artifacts
        return out or None


def resolve_var(text: str, scope: Scope) -> Any:
    """A steps/dag template's ``valueFrom.parameter`` as Argo's ResolveVar reads it: one leading ``{{`` and trailing
    ``}}`` come off, ``=…`` is an expression, and anything else must be the whole name of one of the template's
    inputs or of its steps'/tasks' outputs (so the bare ``inputs.parameters.x`` works). A tag naming an input or a
    global was already substituted with the template, so its *value* is what gets looked up (and rarely found)."""
    ref = exact_reference(text)
    if ref is not None and ref.startswith(("inputs.", "workflow.")):
        text = render(text, scope)
    tag = text.removeprefix("{{").removesuffix("}}").strip()
    if tag.startswith("="):
        result = evaluate(tag[1:], scope.env())
        if result is NIL:
            raise TemplateError(f"Unable to resolve: {json.dumps(tag)}")
        return to_text(result)
    if tag.startswith(("inputs.", "steps.", "tasks.")) and tag in scope.values:
        return scope.values[tag]
    raise TemplateError(f"Unable to resolve: {json.dumps(tag)}")


def _aggregated(values: list[str]) -> str:
    """One output parameter of every loop child, as Argo's aggregatedJSONValueList writes it: the parsed values
    when every one is a JSON list or object (so ``{{item.key}}`` reads them after ``withParam``), else the texts."""
    parsed: list[Any] = []
    for value in values:
        try:
            parsed.append(json.loads(value))
        except json.JSONDecodeError:
            break
        if not isinstance(parsed[-1], (list, dict)):
            break
    else:
        return json.dumps(parsed, separators=(",", ":"))
    return json.dumps(values, separators=(",", ":"))


def _unmarshalled(result: str) -> Any:
    """A loop child's result as Argo aggregates it: a JSON value as itself (``10``, ``true``, an object that
    ``{{item.key}}`` reads after ``withParam``); text that is not JSON stays text."""
    try:
        return json.loads(result)
    except json.JSONDecodeError:
        return result
