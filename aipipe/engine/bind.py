"""Binding a call's arguments to its template's inputs: defaults, enums, artifacts, and the template's scope."""

from __future__ import annotations

import json
from typing import Any

from aipipe.engine.arguments import input_artifact_source, recorded_input
from aipipe.engine.calls import Call, NodeFailure, as_text
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.template import ABSENT, Scope, TemplateError, render, render_deep
from aipipe.errors import UserError


def _as_go_parameter(spec: dict[str, Any], value: Any) -> dict[str, Any]:
    """An input parameter as ``{{inputs.parameters}}`` shows it: Argo's Parameter struct as Go marshals it (its
    fields in declaration order, empty ones left out), with the value it was given."""
    out: dict[str, Any] = {"name": spec["name"]}
    if spec.get("default") is not None:
        out["default"] = as_text(spec["default"])
    out["value"] = value
    for key in ("valueFrom", "globalName", "enum", "description"):
        if spec.get(key) not in (None, "", [], {}):
            out[key] = [as_text(v) for v in spec[key]] if key == "enum" else spec[key]
    return out


def bind_inputs(call: Call, outer: Scope, base: Scope,
                configmaps: ConfigMapStore | None = None) -> tuple[dict[str, Any], Scope]:
    """Match arguments to inputs and build the template's scope over ``base`` (the workflow's variables);
    ``configmaps`` gives the values of ``valueFrom.configMapKeyRef`` inputs. Returns (the node's recorded
    ``inputs``, the scope)."""
    tmpl = call.template
    base.values.update({k: v for k, v in outer.values.items() if k.startswith("workflow.") and k not in
                        base.values})
    args = {p["name"]: p for p in (call.arguments.get("parameters") or [])}
    values: dict[str, Any] = {}
    params_out: list[dict[str, Any]] = []
    as_go: list[dict[str, Any]] = []  # what {{inputs.parameters}} renders
    for spec in (tmpl.get("inputs") or {}).get("parameters") or []:
        value = _parameter_value(spec, args, base.child(values), configmaps)
        values[f"inputs.parameters.{spec['name']}"] = value
        params_out.append({"name": spec["name"], "value": value})
        as_go.append(_as_go_parameter(spec, value))
    scope_vals = dict(values)
    # as Go marshals the template's Inputs.Parameters: a template that declares none has a nil list, "null"
    declared = (tmpl.get("inputs") or {}).get("parameters")
    scope_vals["inputs.parameters"] = "null" if declared is None else json.dumps(as_go, separators=(",", ":"))
    artifacts_in: list[dict[str, Any]] = []
    arg_arts = {a["name"]: a for a in (call.arguments.get("artifacts") or [])}
    for spec in (tmpl.get("inputs") or {}).get("artifacts") or []:
        if spec.get("path"):
            scope_vals[f"inputs.artifacts.{spec['name']}.path"] = spec["path"]
        source = arg_arts.get(spec["name"])
        if source is None and spec.get("raw") and call.head.kind in ("steps", "dag"):
            # a steps or dag template's own raw input, passed on with from: its tags read as Argo substituted them in
            # the whole template (a leaf's is rendered with its pod)
            spec = {**spec, "raw": render_deep(spec["raw"], base.child(values), "inputs.artifacts", lenient=True)}
        artifacts_in.append({**spec, **({"_source": source} if source is not None else {})})
    outputs = tmpl.get("outputs") or {}
    for spec in outputs.get("parameters") or []:
        path = (spec.get("valueFrom") or {}).get("path")
        if path:
            scope_vals[f"outputs.parameters.{spec['name']}.path"] = path
    for spec in outputs.get("artifacts") or []:
        if spec.get("path"):
            scope_vals[f"outputs.artifacts.{spec['name']}.path"] = spec["path"]
    scope = base.child(scope_vals)
    # paths may themselves use inputs (e.g. /tmp/{{inputs.parameters.x}})
    for key in [k for k in scope_vals if k.endswith(".path")]:
        try:
            scope.set(key, render(scope_vals[key], scope, key))
        except TemplateError as exc:
            raise NodeFailure(str(exc), terminal=exc.absent) from exc
    inputs: dict[str, Any] = {}
    if params_out:
        inputs["parameters"] = params_out
    if artifacts_in:
        inputs["artifacts"] = [recorded_input(a) for a in artifacts_in]
    for art in artifacts_in:  # {{inputs.artifacts.X}}: passed on with from: by steps and dag templates
        scope.set_artifact(f"inputs.artifacts.{art['name']}", input_artifact_source(
            art, art.get("_source"), scope.values.get(f"inputs.artifacts.{art['name']}.path")))
    scope.raw["__input_artifacts__"] = artifacts_in
    return inputs, scope


def _parameter_value(spec: dict[str, Any], args: dict[str, dict[str, Any]], scope: Scope,
                     configmaps: ConfigMapStore | None) -> str:
    """One input parameter's value: its argument, else its ConfigMap key, value or default; rendered and checked
    against enum."""
    pname = spec["name"]
    arg = args.get(pname) or {}
    ref = ((arg if "value" not in arg else {}).get("valueFrom") or spec.get("valueFrom") or {}).get("configMapKeyRef")
    if pname in args and "value" in args[pname] and args[pname]["value"] is not ABSENT:
        value = args[pname]["value"]
    elif ref and configmaps is not None:
        value = config_map_value(configmaps, ref, (arg.get("valueFrom") or spec.get("valueFrom") or {}).get("default"),
                                 f"inputs.parameters.{pname}", scope)
    elif "value" in spec and pname not in args:
        value = spec["value"]
    elif "default" in spec:
        value = spec["default"]
    elif pname in args and args[pname].get("value") is ABSENT:
        raise NodeFailure(f"inputs.parameters.{pname}: its argument refers to an absent optional output "
                          "(the producing node was Skipped or Omitted and declares no default) and the input "
                          "has no default", terminal=True)
    else:
        raise NodeFailure(f"inputs.parameters.{pname} was not supplied")
    try:  # as Argo's SubstituteParams: a tag nothing resolves stays as written
        text = render(as_text(value), scope, f"inputs.parameters.{pname}", lenient=True)
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    return text  # an input's enum is for forms (the UI); Argo checks only arguments' enums, at submit


def config_map_value(configmaps: ConfigMapStore, ref: dict[str, Any], default: Any, where: str, scope: Scope) -> str:
    """A parameter's ``valueFrom.configMapKeyRef``: the key's value, else ``valueFrom.default`` (as Argo, when the
    ConfigMap or the key is missing), else a failure saying where the key belongs."""
    try:
        name = render(str(ref.get("name") or ""), scope, f"{where}.valueFrom.configMapKeyRef.name")
        key = render(str(ref.get("key") or ""), scope, f"{where}.valueFrom.configMapKeyRef.key")
        found = configmaps.get(name, key, optional=default is not None or bool(ref.get("optional")),
                               field=f"{where}.valueFrom.configMapKeyRef")
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    except UserError as exc:
        raise NodeFailure(f"unable to retrieve {where} from ConfigMap: {exc}") from exc
    if found is not None:
        return found
    return as_text(default) if default is not None else ""
