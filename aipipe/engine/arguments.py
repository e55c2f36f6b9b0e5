"""A step's or task's arguments rendered for the template it calls, and a template's own input artifacts.

As Argo: ``from: "{{inputs.artifacts.X}}"`` passes the calling template's input artifact on; an artifact
argument that cannot be resolved is dropped when it is ``optional``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aipipe.engine.calls import NodeFailure, as_text
from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.template import ABSENT, Scope, TemplateError, exact_reference, render, render_deep

# where an input artifact's content lives (a record with none of these has nothing to pass on)
_LOCATIONS = ("raw", "s3", "http", "git", "hdfs", "artifactory", "azure", "gcs", "oss", "plugin")


def render_arguments(arguments: Mapping[str, Any], scope: Scope, where: str) -> dict[str, Any]:
    """Render arguments; a parameter that is exactly an absent reference becomes ABSENT, and an artifact
    argument that cannot be resolved is left out when the argument itself is ``optional`` (Argo's
    resolveReferences reads the argument's flag, not the called template's input's)."""
    out: dict[str, Any] = {}
    params = [_render_parameter(dict(p), scope, where) for p in arguments.get("parameters") or []]
    if params:
        out["parameters"] = params
    arts = []
    for art in arguments.get("artifacts") or []:
        try:
            arts.append(_render_artifact(art, scope, where))
        except NodeFailure:
            if art.get("optional"):
                continue
            raise
    if arts:
        out["artifacts"] = arts
    return out


def _render_parameter(param: dict[str, Any], scope: Scope, where: str) -> dict[str, Any]:
    if "value" not in param:
        return param
    raw = as_text(param["value"])
    ref = exact_reference(raw)
    if ref is not None and scope.values.get(ref) is ABSENT:
        param["value"] = ABSENT
        return param
    try:  # as Argo's resolveReferences: a tag nothing resolves stays as written
        param["value"] = render(raw, scope, f"{where}.arguments.parameters.{param.get('name')}", lenient=True)
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    return param


def _render_artifact(art: Mapping[str, Any], scope: Scope, where: str) -> dict[str, Any]:
    label = f"{where}.arguments.artifacts.{art.get('name')}"
    try:
        if art.get("from"):
            ref = exact_reference(str(art["from"]))
            source = scope.artifacts.get(ref or "")
            if source is ABSENT:
                raise NodeFailure(f"{label}: {art['from']} refers to an absent optional output (its node was "
                                  "Skipped or Omitted)", terminal=True)
            if source is None:
                raise NodeFailure(f"{label}: cannot resolve {art['from']}")
            merged = {**source, "name": art["name"]}
            if art.get("subPath"):
                merged["subPath"] = render(str(art["subPath"]), scope, label)
            return merged
        if art.get("fromExpression"):
            value = evaluate(str(art["fromExpression"]), scope.env())
            if not isinstance(value, dict):
                raise NodeFailure(f"{label}: fromExpression did not select an artifact")
            return {**value, "name": art["name"]}
        return dict(render_deep(dict(art), scope, label))
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    except ExprError as exc:
        raise NodeFailure(f"{label}: {exc}") from exc


def input_artifact_source(spec: Mapping[str, Any], source: Mapping[str, Any] | None,
                          path: str | None) -> dict[str, Any]:
    """What ``{{inputs.artifacts.X}}`` names inside the template: the input with its location (the argument
    it received, else a location of its own); an optional input nobody supplied is the bare artifact, with no
    location (as Argo's scope holds every declared input), which an optional input it is passed to skips."""
    located = source if source is not None else spec
    if not any(located.get(k) for k in _LOCATIONS):
        return {"name": spec["name"]}
    record = {k: v for k, v in located.items() if k not in ("from", "fromExpression", "optional")}
    record["name"] = spec["name"]
    if path:
        record["path"] = path
    return record


def recorded_input(artifact: dict[str, Any]) -> dict[str, Any]:
    """An input artifact as the node records it: its spec plus where it came from (Argo records the source's
    repository key, which is what the UI's and the API's input-artifact downloads read)."""
    source = artifact.get("_source") or {}
    recorded = {k: v for k, v in artifact.items() if k != "_source"}
    for location in ("s3", "raw"):
        if location in source and location not in recorded:
            recorded[location] = source[location]
    return recorded
