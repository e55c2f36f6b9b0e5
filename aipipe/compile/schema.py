"""Structural check: validate manifests against the Argo CRDs' ``openAPIV3Schema``.

The CRD files (``argoproj.io_<plural>.yaml[.gz]``) are read once per folder and cached. Their
schemas are OpenAPI v3, read as Draft-4 JSON Schema: ``x-kubernetes-*`` keys (CEL rules,
int-or-string hints) are ignored, ``anyOf [integer, string]`` carries int-or-string.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft4Validator

from aipipe.compile.diagnostics import format_path
from aipipe.errors import UserError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_crd(path: Path) -> dict[str, Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        return yaml.load(handle, Loader=_Loader)


@lru_cache(maxsize=4)
def load_validators(schema_dir: Path) -> dict[str, Draft4Validator]:
    """Kind -> validator for every CRD in ``schema_dir``."""
    if not schema_dir.is_dir():
        raise UserError("schema folder not found", field=str(schema_dir))
    validators: dict[str, Draft4Validator] = {}
    for path in sorted(schema_dir.iterdir()):
        if not path.name.endswith((".yaml", ".yaml.gz", ".yml", ".yml.gz")):
            continue
        crd = _read_crd(path)
        if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
            continue
        schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        validators[crd["spec"]["names"]["kind"]] = Draft4Validator(schema)
    if not validators:
        raise UserError("no CustomResourceDefinition files found", field=str(schema_dir))
    return validators


def without_nulls(schema: dict[str, Any], node: Any) -> Any:
    """``node`` as the API server validates it: a field set to null is dropped unless its schema says
    ``nullable: true`` (structural schemas prune such nulls before defaulting and validation), so an empty
    ``inputs:`` is no inputs rather than an error."""
    if isinstance(node, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        kept: dict[str, Any] = {}
        for key, value in node.items():
            sub = props.get(key, extra if isinstance(extra, dict) else {})
            if value is None and not sub.get("nullable"):
                continue
            kept[key] = without_nulls(sub, value)
        return kept
    if isinstance(node, list) and isinstance(schema.get("items"), dict):
        return [without_nulls(schema["items"], value) for value in node]
    return node


def schema_errors(validator: Draft4Validator, doc: dict[str, Any]) -> Iterator[tuple[list[str | int], str]]:
    """(path, message) for each schema violation, deepest first within each branch (null fields pruned first,
    as the API server prunes them: :func:`without_nulls`)."""
    doc = without_nulls(validator.schema, doc)
    for error in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        best = error
        while best.context:  # anyOf/oneOf: report the most specific sub-error
            best = sorted(best.context, key=lambda e: -len(e.absolute_path))[0]
        yield list(best.absolute_path), best.message


def unknown_fields(schema: dict[str, Any], node: Any, path: list[str | int] | None = None,
                   ) -> Iterator[tuple[list[str | int], str]]:
    """(path, key) for each key the schema does not declare. Plain JSON Schema allows them, but the
    Kubernetes API server silently prunes them, so a misspelled key would simply vanish."""
    path = path or []
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(node, dict) and "properties" in schema:
        props = schema["properties"]
        for key, value in node.items():
            if key in props:
                yield from unknown_fields(props[key], value, [*path, key])
            elif not schema.get("additionalProperties"):
                yield [*path, key], key
    elif isinstance(node, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, value in node.items():
            yield from unknown_fields(schema["additionalProperties"], value, [*path, key])
    elif isinstance(node, list) and isinstance(schema.get("items"), dict):
        for i, value in enumerate(node):
            yield from unknown_fields(schema["items"], value, [*path, i])


__all__ = ["format_path", "load_validators", "schema_errors", "unknown_fields", "without_nulls"]
