"""Object names and namespaces checked the way Kubernetes and Argo check them (DNS-1123).

Every name that reaches the API, the CLI or the run store goes through :func:`check_name`;
every namespace through :func:`check_namespace`. The messages are the Kubernetes API server's,
prefixed with the object the way Argo's server reports an invalid object.
"""

from __future__ import annotations

import re

from aipipe.errors import UserError

MAX_NAME_LENGTH = 253
MAX_NAMESPACE_LENGTH = 63
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_RE = re.compile(rf"{_LABEL}(\.{_LABEL})*")
_LABEL_RE = re.compile(_LABEL)
SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    f"'{_LABEL}(\\.{_LABEL})*')")
LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    f"end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{_LABEL}')")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid object name (DNS-1123 subdomain, at most 253 characters), or None."""
    if not name:
        return "name or generateName is required"
    if len(name) > MAX_NAME_LENGTH:
        return f"must be no more than {MAX_NAME_LENGTH} characters"
    if not _SUBDOMAIN_RE.fullmatch(name):
        return SUBDOMAIN_RULE
    return None


def namespace_problem(namespace: str) -> str | None:
    """Why ``namespace`` is not a valid namespace (DNS-1123 label, at most 63 characters), or None."""
    if not namespace:
        return "namespace is required"
    if len(namespace) > MAX_NAMESPACE_LENGTH:
        return f"must be no more than {MAX_NAMESPACE_LENGTH} characters"
    if not _LABEL_RE.fullmatch(namespace):
        return LABEL_RULE
    return None


def qualified(kind: str) -> str:
    """``Workflow`` -> ``Workflow.argoproj.io``, as the Kubernetes API server names a kind in its errors."""
    return f"{kind}.argoproj.io"


def check_name(name: str, kind: str = "Workflow.argoproj.io", field: str = "metadata.name") -> str:
    """Return ``name`` if valid, else raise :class:`UserError` in the API server's words."""
    problem = name_problem(name)
    if problem:
        raise UserError(f'{kind} "{name}" is invalid: {field}: Invalid value: "{name}": {problem}')
    return name


def check_namespace(namespace: str, field: str = "metadata.namespace") -> str:
    """Return ``namespace`` if valid, else raise :class:`UserError` in the API server's words."""
    problem = namespace_problem(namespace)
    if problem:
        raise UserError(f'namespace "{namespace}" is invalid: {field}: Invalid value: "{namespace}": {problem}')
    return namespace
