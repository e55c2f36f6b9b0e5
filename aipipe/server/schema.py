"""Request-body validation against the Argo Server API definitions.

``argo_definitions.json`` holds the swagger definitions (Argo v4.1.2 ``api/openapi-spec/swagger.json``)
reachable from the ``*Request`` types and ``Workflow``, with descriptions and titles dropped. The
generated spec types some fields more narrowly than Argo's API server accepts; those are widened
here (IntOrString and Quantity accept numbers, image may come from ``templateDefaults``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator

from aipipe.errors import UserError

DEFINITIONS_FILE = Path(__file__).with_name("argo_definitions.json")
PREFIX = "io.argoproj.workflow.v1alpha1."


def _widened(definitions: dict[str, Any]) -> dict[str, Any]:
    defs = dict(definitions)
    defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["integer", "string"]}
    defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = {"type": ["integer", "number", "string"]}
    for name, drop in ((f"{PREFIX}ScriptTemplate", "image"), ("io.k8s.api.core.v1.Container", "image")):
        required = [r for r in defs[name].get("required", []) if r != drop]
        defs[name] = {k: v for k, v in defs[name].items() if k != "required"} | ({"required": required}
                                                                              if required else {})
    return defs


@functools.cache
def definitions() -> dict[str, Any]:
    return _widened(json.loads(DEFINITIONS_FILE.read_text()))


@functools.cache
def validator(type_name: str) -> Draft4Validator:
    """A validator for one definition, e.g. ``WorkflowCreateRequest``."""
    return Draft4Validator({"$ref": f"#/definitions/{PREFIX}{type_name}", "definitions": definitions()})


def validate_body(type_name: str, body: Any) -> None:
    """UserError naming the first offending field when ``body`` does not match the definition."""
    errors = sorted(validator(type_name).iter_errors(body), key=lambda e: (len(e.absolute_path), e.message))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.absolute_path) or type_name
        raise UserError(error.message, field=where)
