"""Names and namespaces of API requests, checked with :mod:`aipipe.validation` before anything is stored."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from aipipe.errors import UserError
from aipipe.validation import check_name, check_namespace, name_problem, qualified


def path_namespace(request: web.Request) -> str:
    """The ``{namespace}`` of the route, or 400 in the API server's words."""
    return check_namespace(request.match_info["namespace"], field="metadata.namespace")


def path_name(request: web.Request, kind: str) -> str:
    """The ``{name}`` of the route, or 400 in the API server's words."""
    return check_name(request.match_info["name"], qualified(kind), field="metadata.name")


def check_object_names(obj: dict[str, Any], kind: str, namespace: str | None) -> None:
    """``metadata.name`` (or ``generateName``) of an object in a request body, and its namespace.

    ``namespace`` is the route's (None for cluster-scoped kinds); an object naming another one is
    refused, as the Kubernetes API server refuses it.
    """
    meta = obj.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise UserError("must be an object", field="metadata")
    name, generate = meta.get("name"), meta.get("generateName")
    if name not in (None, "") or not generate:
        check_name(_text(name, "metadata.name"), qualified(kind), field="metadata.name")
    else:
        check_generate_name(_text(generate, "metadata.generateName"), kind)
    given = meta.get("namespace")
    if given not in (None, ""):
        check_namespace(_text(given, "metadata.namespace"), field="metadata.namespace")
        if namespace is not None and given != namespace:
            raise UserError("the namespace of the provided object does not match the namespace sent on the "
                            f"request ({given!r} vs {namespace!r})", field="metadata.namespace")


def check_generate_name(prefix: str, kind: str) -> str:
    """A ``generateName`` prefix: what it makes (prefix + 5 characters) must be a valid name."""
    problem = name_problem(prefix[:-1] + "a" if prefix.endswith("-") else prefix)
    if problem:
        raise UserError(f'{qualified(kind)} "" is invalid: metadata.generateName: Invalid value: "{prefix}": '
                        f"{problem}")
    return prefix


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise UserError(f"must be a string, got {type(value).__name__}", field=field)
    return value
