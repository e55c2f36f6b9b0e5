"""What Argo's validateArgumentsValues checks of the arguments a workflow, a step or a task passes, and what a call's
arguments make of the callee's ``timeout``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from aipipe.engine.lintrules import ARTIFACT_SOURCES, Problem


def argument_artifacts(step: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Each artifact a step or task passes needs a source (Argo's validateArgumentsValues)."""
    for art in (step.get("arguments") or {}).get("artifacts") or []:
        if isinstance(art, Mapping) and not any(art.get(k) not in (None, "", {}) for k in ARTIFACT_SOURCES):
            yield f"{where}.arguments.artifacts.{art.get('name')}", "from, artifact location, or key is required"
        if isinstance(art, Mapping) and art.get("from") and art.get("fromExpression"):
            yield (f"{where}.arguments.artifacts.{art.get('name')}",
                   "shouldn't have both `from` and `fromExpression` in Artifact")


def argument_values(step: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Each parameter a step or task passes has a value or a valueFrom (Argo's validateArgumentsValues: a call
    cannot leave a parameter to the callee's default by naming it without a value)."""
    for param in (step.get("arguments") or {}).get("parameters") or []:
        if not isinstance(param, Mapping):
            continue
        name = f"{where}.arguments.{param.get('name')}"
        if param.get("value") is None and not param.get("valueFrom"):
            yield name, f"{name}.value or {name}.valueFrom is required"
        yield from argument_sources(param, name)
        yield from argument_enum(param, name)


def argument_enum(param: Mapping[str, Any], name: str) -> Iterator[Problem]:
    """An argument that carries its own ``enum`` gives one of its values (Argo checks the enum of an argument, the
    workflow's or a step's/task's, never that of a template's input)."""
    enum = param.get("enum")
    if enum is None:
        return
    if not enum:
        yield f"{name}.enum", f"{name}.enum should contain at least one value"
    elif param.get("value") is not None and str(param["value"]) not in map(str, enum):
        yield f"{name}.value", (f"{name}.value should be present in {name}.enum list "
                                f"({', '.join(map(str, enum))}), not {param['value']!r}")


def argument_sources(param: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """An argument's ``valueFrom`` (the workflow's, a step's or a task's) reads a ConfigMap, an event or a supplied
    value (with a default), never a file, a JSON path, another parameter or an expression (Argo's
    validateArgumentsValues)."""
    value_from = param.get("valueFrom")
    if not isinstance(value_from, Mapping):
        return
    if not any(value_from.get(k) not in (None, "") for k in ("configMapKeyRef", "event", "supplied")) or any(
            value_from.get(k) not in (None, "") for k in ("path", "jsonPath", "parameter", "expression")):
        yield f"{where}.valueFrom", "valueFrom only allows: default, configMapKeyRef and supplied"


_INPUT_PARAMETER_TAG = re.compile(r"\{\{\s*inputs\.parameters\.([A-Za-z0-9_-]+)\s*\}\}")


def timeout_with_arguments(callee: Mapping[str, Any] | None, arguments: Any) -> str | None:
    """A template's ``timeout`` with the ``{{inputs.parameters.X}}`` tags in it filled from a call's arguments (or
    the input's own value or default), as Argo's ProcessArgs fills it before checking it; None when it has no
    tag or one stays unresolved."""
    timeout = (callee or {}).get("timeout") if isinstance(callee, Mapping) else None
    if not isinstance(timeout, str) or not _INPUT_PARAMETER_TAG.search(timeout):
        return None
    values = {p.get("name"): p.get("value", p.get("default"))
              for p in ((callee or {}).get("inputs") or {}).get("parameters") or [] if isinstance(p, Mapping)}
    values.update({p.get("name"): p.get("value") for p in ((arguments or {}).get("parameters") or [])
                   if isinstance(p, Mapping) and p.get("value") is not None})
    if any(values.get(name) is None for name in _INPUT_PARAMETER_TAG.findall(timeout)):
        return None
    return _INPUT_PARAMETER_TAG.sub(lambda found: str(values[found.group(1)]), timeout)
