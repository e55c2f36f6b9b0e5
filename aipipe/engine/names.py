"""Object names, uids and timestamps the way Argo and Kubernetes make them."""

from __future__ import annotations

import datetime as dt
import secrets
import string
import uuid

_NAME_CHARS = string.ascii_lowercase + string.digits
MAX_NAME_LENGTH = 253
_GENERATE_SUFFIX = 5
_MAX_GENERATE_PREFIX = 63 - _GENERATE_SUFFIX  # Kubernetes truncates generateName the same way


def generate_name(prefix: str) -> str:
    """``generateName`` + 5 random lowercase alphanumerics, as the Kubernetes API server does."""
    suffix = "".join(secrets.choice(_NAME_CHARS) for _ in range(_GENERATE_SUFFIX))
    return f"{prefix[:_MAX_GENERATE_PREFIX]}{suffix}"


def new_uid() -> str:
    """A Kubernetes-style object uid (uuid4)."""
    return str(uuid.uuid4())


def now_rfc3339() -> str:
    """The current UTC time at second precision, as Kubernetes writes ``creationTimestamp``."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _fnv32a(text: str) -> int:
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def pod_name(workflow_name: str, node_name: str, template_name: str) -> str:
    """The pod name Argo (pod names v2) gives a node: ``<workflow>-<template>-<fnv32a(node name)>``."""
    if workflow_name == node_name:
        return workflow_name
    prefix = workflow_name if ".inline" in node_name else f"{workflow_name}-{template_name}"
    hashed = str(_fnv32a(node_name))
    prefix = prefix[: MAX_NAME_LENGTH - len(hashed) - 1]
    return f"{prefix}-{hashed}"
