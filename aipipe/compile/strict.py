"""Strict decoding, as ``argo submit`` and ``argo lint`` do by default: a field the Argo types lack is an error, and so
is a value of the wrong shape (a string where the types want a list or an object, a list where they want an object).

The Argo types are Hera's models, generated from Argo's own OpenAPI document. Hera is already what pipelines are
written with, so no schema is shipped twice; the CRD check (``aipipe lint --schema-dir``) reaches the same keys.
Pydantic keeps or drops unknown keys silently, so the manifest is walked beside the models' declared fields.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from functools import cache
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, RootModel

from aipipe.compile.diagnostics import format_path
from aipipe.errors import UserError

FieldPath = list[str | int]
# Fields Argo v4.1 added after the v4.0.5 schema Hera 7.1's models are generated from (found by walking the v4.1.2
# CRDs beside the models); their contents are not checked.
ADDED_IN_4_1: dict[str, tuple[str, ...]] = {
    "Container": ("restartPolicyRules",), "ContainerNode": ("restartPolicyRules",),
    "ScriptTemplate": ("restartPolicyRules",), "UserContainer": ("restartPolicyRules",),
    "EnvVarSource": ("fileKeyRef",), "VolumeProjection": ("podCertificate",),
    "HTTPArtifact": ("saveStreamViaFile",), "S3Artifact": ("addressingStyle",),
    "S3ArtifactRepository": ("addressingStyle",),
    "Template": ("pendingTimeout", "podResources", "resourceClaims"),
    "WorkflowSpec": ("executorPlugins", "podResources", "resourceClaims"),
}
UNDECLARED_REASON = "Argo v4's types refuse it: `argo submit` and `argo lint` do not decode it"
MISSHAPEN = "cannot unmarshal"  # Go's decoder, on a value of the wrong shape
MISSHAPEN_REASON = "Argo's server cannot decode it into its types"


@cache
def _root_models() -> dict[str, type[BaseModel]]:
    from hera.workflows.models import ClusterWorkflowTemplate, CronWorkflow, Workflow, WorkflowTemplate

    return {m.__name__: m for m in (Workflow, WorkflowTemplate, ClusterWorkflowTemplate, CronWorkflow)}


def undeclared_fields(doc: dict[str, Any]) -> Iterator[tuple[FieldPath, str]]:
    """(path, problem) for each key of a Workflow-family manifest the Argo types do not declare ("unknown field 'x'")
    and each value of the wrong shape (other kinds: none)."""
    model = _root_models().get(str(doc.get("kind")))
    if model is not None:
        yield from _walk(model, doc, [])


def refuse_undeclared(*docs: dict[str, Any]) -> None:
    """Raise :class:`UserError` naming the first field the Argo types lack in ``docs``, as ``argo submit`` decodes."""
    for doc in docs:
        for path, problem in undeclared_fields(doc):
            raise UserError(f"{problem} ({UNDECLARED_REASON})", field=format_path(path))


def refuse_misshapen(*docs: dict[str, Any]) -> None:
    """Raise :class:`UserError` naming the first value of the wrong shape in ``docs``, as Argo's server decodes a
    request's body into its types: a string where they want a list is refused, while an unknown field is dropped."""
    for doc in docs:
        for path, problem in undeclared_fields(doc):
            if problem.startswith(MISSHAPEN):
                raise UserError(f"{problem} ({MISSHAPEN_REASON})", field=format_path(path))


@cache
def _declared(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON key of each of the model's fields, with the field's type (Any: not checked further)."""
    declared = {info.alias or name: info.annotation for name, info in model.model_fields.items()}
    return declared | dict.fromkeys(ADDED_IN_4_1.get(model.__name__, ()), Any)


def _walk(model: type[BaseModel], node: dict[str, Any], path: FieldPath) -> Iterator[tuple[FieldPath, str]]:
    """The object's problems in the order Go's decoder meets them: the CLI turns YAML into JSON through Go maps, whose
    keys come out sorted, and the decoder reports the first problem it meets."""
    fields = _declared(model)
    for key, value in sorted(node.items(), key=lambda pair: str(pair[0])):
        if key not in fields:
            yield [*path, key], f"unknown field {key!r}"
        else:
            yield from _walk_value(fields[key], value, [*path, key])


def _walk_value(annotation: Any, value: Any, path: FieldPath) -> Iterator[tuple[FieldPath, str]]:
    origin = get_origin(annotation)
    if value is None:
        return
    if origin in (Union, types.UnionType):
        members = [m for m in get_args(annotation) if m is not type(None)]
        accepted = next((m for m in members if _accepts(m, value)), None)
        if accepted is None:
            yield path, f"{MISSHAPEN} {_shape(value)} into {_shape_of(members[0])}"
        else:
            yield from _walk_value(accepted, value, path)
    elif not _accepts(annotation, value):
        yield path, f"{MISSHAPEN} {_shape(value)} into {_shape_of(annotation)}"
    elif origin is list:
        [item] = get_args(annotation)
        for i, element in enumerate(value):
            yield from _walk_value(item, element, [*path, i])
    elif origin is dict:
        item = get_args(annotation)[1]
        for key, element in value.items():
            yield from _walk_value(item, element, [*path, key])
    elif _is_object_model(annotation):
        yield from _walk(annotation, value, path)
    elif isinstance(annotation, type) and issubclass(annotation, RootModel):  # e.g. a steps group: a list of steps
        yield from _walk_value(annotation.model_fields["root"].annotation, value, path)


def _accepts(annotation: Any, value: Any) -> bool:
    """Whether a value has the shape a type decodes from: a list for a list, an object for a map or a model, a whole
    number for an integer and true/false for a boolean (Go's decoder refuses "3" for an int64, as for
    ``parallelism``); strings and Argo's own lenient scalars (RootModels such as IntOrString) take any scalar."""
    origin = get_origin(annotation)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is list:
        return isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict)
    if _is_object_model(annotation):
        return isinstance(value, dict)
    return True


def _shape(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return "a boolean" if isinstance(value, bool) else "a number" if isinstance(value, (int, float)) else "a string"


def _shape_of(annotation: Any) -> str:
    if annotation in (bool, int):
        return "a boolean" if annotation is bool else "an integer"
    return "a list" if get_origin(annotation) is list else "an object"


def _is_object_model(annotation: Any) -> bool:
    """A model decoded from a JSON object (a RootModel such as IntOrString or Quantity is a scalar)."""
    return isinstance(annotation, type) and issubclass(annotation, BaseModel) and not issubclass(annotation, RootModel)
