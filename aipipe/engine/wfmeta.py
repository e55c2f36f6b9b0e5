"""``spec.workflowMetadata``: the labels and annotations a workflow spec (or the WorkflowTemplate a run uses)
gives its run, and ``labelsFrom``: label values computed by expr-lang expressions over the run's ``workflow.*``
variables (e.g. ``workflow.parameters.project``). Argo's controller sets them on the run when it first sees
it, over what the run already has; here they are set when the run is submitted, with the variables known
then (a ``generateName`` run has no ``workflow.name`` yet).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.template import Scope
from aipipe.errors import UserError

SCHEDULED_TIME_ANNOTATION = "workflows.argoproj.io/scheduled-time"  # a CronWorkflow's run: when it was due

_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
MAX_LABEL_VALUE = 63


# strftime characters Argo offers as workflow.creationTimestamp.<char> (docs/variables.md)
STRFTIME_CHARS = "aAbBcCdDeFgGHIjklmMnpPRSTuUVwWxXyYzZ"


def workflow_variables(workflow: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, str]:
    """The flat ``workflow.*`` variables a run has before it starts (docs/variables.md, "Global"): name,
    namespace, uid, service account, entrypoint, priority, parameters (each and as JSON), labels and
    annotations (each and as JSON), and the creation time in RFC 3339 (its other forms:
    :func:`creation_variables`)."""
    meta = workflow.get("metadata") or {}
    params = [{"name": str(p.get("name")), "value": str(p.get("value", ""))}
              for p in (spec.get("arguments") or {}).get("parameters") or []]
    values = {
        "workflow.name": str(meta.get("name") or ""),
        "workflow.namespace": str(meta.get("namespace") or ""),
        "workflow.uid": str(meta.get("uid") or ""),
        "workflow.serviceAccountName": str(spec.get("serviceAccountName") or ""),
        "workflow.mainEntrypoint": str(spec.get("entrypoint") or ""),
        "workflow.parameters": _json(params),  # as Argo, the bare name is the same JSON as .json
        "workflow.parameters.json": _json(params),
    }
    if spec.get("priority") is not None:  # as Argo: only a workflow that sets one has the variable
        values["workflow.priority"] = str(spec["priority"])
    for param in params:
        values[f"workflow.parameters.{param['name']}"] = param["value"]
    for section in ("labels", "annotations"):
        given = {str(k): str(v) for k, v in (meta.get(section) or {}).items()}
        values[f"workflow.{section}"] = values[f"workflow.{section}.json"] = _json(given)
        for key, value in given.items():
            values[f"workflow.{section}.{key}"] = value
    scheduled = (meta.get("annotations") or {}).get(SCHEDULED_TIME_ANNOTATION)
    if scheduled is not None:  # as Argo's setGlobalParameters: a CronWorkflow's run carries its scheduled time
        values["workflow.scheduledTime"] = str(scheduled)
    created = creation_variables(str(meta.get("creationTimestamp") or ""))
    if created:
        values["workflow.creationTimestamp"] = created["workflow.creationTimestamp"]
    return values


def creation_variables(stamp: str) -> dict[str, str]:
    """``workflow.creationTimestamp`` (RFC 3339), ``.RFC3339`` and ``.<c>`` for each strftime character ``c``;
    none when ``stamp`` is empty or not RFC 3339. For plain ``{{...}}`` tags only: in an expression
    ``workflow.creationTimestamp`` stays the timestamp text (``sprig.date('2006', workflow.creationTimestamp)``),
    so these must not be nested under it."""
    try:
        created = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return {}
    rfc = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    values = {"workflow.creationTimestamp": rfc, "workflow.creationTimestamp.RFC3339": rfc}
    for char in STRFTIME_CHARS:
        values[f"workflow.creationTimestamp.{char}"] = created.strftime(f"%{char}")
    values["workflow.creationTimestamp.s"] = str(int(created.timestamp()))  # Unix seconds, as Argo sets it
    values["workflow.creationTimestamp.L"] = f".{created.microsecond // 1000:03d}"  # Argo's strftime: milliseconds
    return values


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=isinstance(value, dict))


def label_value_problem(value: str) -> str | None:
    """Why ``value`` cannot be a Kubernetes label value, or None."""
    if len(value) > MAX_LABEL_VALUE:
        return f"must be no more than {MAX_LABEL_VALUE} characters"
    if not _LABEL_VALUE.fullmatch(value):
        return ("must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                "an alphanumeric character")
    return None


def submitted_with_metadata(workflow: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """What a submit stores: ``workflow`` with its ``workflowMetadata`` set, or as it came when that cannot be set
    (Argo's controller sets it when it first runs the workflow, and errs the run then: the executor does the same)."""
    try:
        return with_workflow_metadata(workflow, spec)
    except UserError:
        return copy.deepcopy(dict(workflow))


def with_workflow_metadata(workflow: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``workflow`` with ``spec.workflowMetadata``'s labels, annotations and ``labelsFrom`` set
    (``spec`` is the effective spec: a ``workflowTemplateRef``'s merged with the workflow's own). An invalid label
    value, or a ``labelsFrom`` expression that fails or gives no string, is a UserError."""
    out = copy.deepcopy(dict(workflow))
    wanted = spec.get("workflowMetadata") or {}
    if not wanted:
        return out
    meta = out.setdefault("metadata", {})
    for key, value in (wanted.get("labels") or {}).items():
        problem = label_value_problem(str(value))
        if problem:  # Argo's updateWorkflowMetadata words
            raise UserError(f"invalid label value {json.dumps(str(value))} for label {json.dumps(key)}: {problem}",
                            field=f"spec.workflowMetadata.labels.{key}")
    labels = {**(meta.get("labels") or {}), **(wanted.get("labels") or {})}
    annotations = {**(meta.get("annotations") or {}), **(wanted.get("annotations") or {})}
    env = Scope(workflow_variables({**out, "metadata": {**meta, "labels": labels, "annotations": annotations}},
                                   spec)).env()
    for key, source in (wanted.get("labelsFrom") or {}).items():
        field = f"spec.workflowMetadata.labelsFrom.{key}"
        expression = str((source or {}).get("expression") or "")
        if not expression:
            raise UserError("expression is required", field=field)
        try:
            value = evaluate(expression, env)
        except ExprError as exc:
            raise UserError(f"failed to evaluate {expression!r}: {exc}", field=field) from exc
        if not isinstance(value, str):
            raise UserError(f"{expression!r} gave a {type(value).__name__}; a label value must be a string",
                            field=field)
        problem = label_value_problem(value)
        if problem:
            raise UserError(f"invalid label value {json.dumps(value)} for label {json.dumps(key)} and expression "
                            f"{json.dumps(expression)}: {problem}", field=field)
        labels[key] = value
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return out
