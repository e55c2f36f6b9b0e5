"""Bounds on what a request may carry: body size, JSON nesting, UTF-8, and typed query parameters.

The body limit defaults to 4 MiB: a Kubernetes object (an Argo Workflow included) cannot exceed
etcd's 1.5 MiB request limit, so 4 MiB leaves room for the request wrapper and pretty-printed JSON
while keeping what one request can make the server hold small. JSON nesting is measured on the raw
bytes before ``json.loads`` (which would otherwise recurse as deep as the body goes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from aipipe.errors import UserError

DEFAULT_MAX_BODY_MIB = 4
MAX_JSON_DEPTH = 100
# a string, or an unterminated one up to the end: possessive, so every quote is scanned once (linear)
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays/objects in ``raw`` (strings skipped), in one linear pass."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def parse_json(raw: bytes, field: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``raw`` as JSON, or UserError (400) for invalid UTF-8, nesting deeper than ``max_depth``, bad JSON."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"request body is not valid UTF-8 (byte {exc.start})", field=field) from exc
    depth = json_depth(raw)
    if depth > max_depth:
        raise UserError(f"JSON nested {depth} levels deep; at most {max_depth} are accepted", field=field)
    try:
        return json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and integers longer than Python converts
        raise UserError(f"request body is not valid JSON: {exc}", field=field) from exc


def query_int(query: Mapping[str, str], name: str, default: int = 0, minimum: int = 0) -> int:
    """An integer query parameter (like Kubernetes' int64 list options), 400 naming it when malformed."""
    raw = query.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise UserError(f"expected an integer, got {raw[:64]!r}", field=name) from None
    if value < minimum:
        raise UserError(f"must be at least {minimum}, got {value}", field=name)
    return value


_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})
_FALSE = frozenset({"0", "f", "F", "false", "FALSE", "False"})


def query_bool(query: Mapping[str, str], name: str) -> bool:
    """A boolean query parameter, spelled as Go's ``strconv.ParseBool`` accepts; 400 otherwise."""
    raw = query.get(name, "")
    if raw == "" or raw in _FALSE:
        return False
    if raw in _TRUE:
        return True
    raise UserError(f"expected true or false, got {raw[:64]!r}", field=name)
