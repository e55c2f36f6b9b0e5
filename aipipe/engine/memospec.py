"""The ``memoize`` block of a template: its checks at submit and its rendering for one node
(:mod:`aipipe.engine.memo` uses it)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aipipe.engine.calls import NodeFailure
from aipipe.engine.configmaps import key_problem
from aipipe.engine.template import Scope, TemplateError, render
from aipipe.validation import name_problem

KEY_RULE = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9]*")  # Argo's cacheKeyRegex
_GO_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text: str) -> float:
    """Seconds of a Go ``time.ParseDuration`` string (``10s``, ``1h30m``, ``-1.5h``, ``0``); ValueError else."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0.0
    total, pos = 0.0, 0
    for match in _GO_PART.finditer(body):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _GO_UNITS[match.group(2)]
        pos = match.end()
    if not body or pos != len(body):
        raise ValueError(f'time: invalid duration "{text}"')
    return -total if text.startswith("-") else total


def _literal(value: Any) -> bool:
    return isinstance(value, str) and "{{" not in value


def memoize_problems(memoize: Any, where: str, values: bool = True) -> Iterator[tuple[str, str]]:
    """(field, message) for each problem of a template's ``memoize``: its shape (an object with key and cache, as the
    CRD requires), and with ``values`` what Argo's executeTemplate checks when the node is about to run (the key's
    and cache name's form, a maxAge that parses); values with ``{{…}}`` tags are checked once rendered."""
    if not isinstance(memoize, Mapping):
        yield where, "must be an object with key, maxAge and cache.configMap.name"
        return
    key, max_age = memoize.get("key"), memoize.get("maxAge")
    config_map = (memoize.get("cache") or {}).get("configMap") if isinstance(memoize.get("cache"), Mapping) else None
    name = config_map.get("name") if isinstance(config_map, Mapping) else None
    if not isinstance(key, str) or not key:
        yield f"{where}.key", "is required (the cache key, e.g. \"{{inputs.parameters.x}}\")"
    elif values and _literal(key) and not KEY_RULE.fullmatch(key):
        yield f"{where}.key", f"invalid cache key: {key} (letters, digits and '-', starting with a letter or digit)"
    if not isinstance(name, str) or not name:
        yield f"{where}.cache.configMap.name", "is required (the ConfigMap that holds the cache)"
    elif values and _literal(name) and name_problem(name):
        yield f"{where}.cache.configMap.name", f"invalid ConfigMap name {name!r}: {name_problem(name)}"
    if values and max_age not in (None, ""):
        if not isinstance(max_age, str):
            yield f"{where}.maxAge", "must be a string duration (e.g. \"180s\", \"24h\")"
        elif _literal(max_age):
            try:
                go_duration(max_age)
            except ValueError as exc:
                yield f"{where}.maxAge", f"invalid maxAge: {exc}"


@dataclass(frozen=True)
class Memo:
    """One node's rendered ``memoize``: the key, the cache ConfigMap, the longest age of a usable entry."""

    key: str
    cache: str
    max_age: float | None

    @classmethod
    def render(cls, memoize: Mapping[str, Any], scope: Scope, where: str) -> Memo:
        """The block rendered with ``scope`` and checked; NodeFailure (Error) naming the field when not valid."""
        field = f"{where}.memoize"
        try:
            key = render(str(memoize.get("key") or ""), scope, f"{field}.key")
            config_map = (memoize.get("cache") or {}).get("configMap") or {}
            cache = render(str(config_map.get("name") or ""), scope, f"{field}.cache.configMap.name")
            max_age = render(str(memoize.get("maxAge") or ""), scope, f"{field}.maxAge")
        except TemplateError as exc:
            raise NodeFailure(str(exc), terminal=exc.absent) from exc
        problems = list(memoize_problems({"key": key, "maxAge": max_age, "cache": {"configMap": {"name": cache}}},
                                         field))
        if not problems and key_problem(key):
            problems.append((f"{field}.key", f"invalid cache key: {key} ({key_problem(key)})"))
        if problems:  # Argo's executeTemplate returns it: the controller's error, which errs the step group
            found, message = problems[0]
            raise NodeFailure(f"{found}: {message}", controller=True)
        return cls(key, cache, go_duration(max_age) if max_age else None)

    def status(self, hit: bool) -> dict[str, Any]:
        """The node's ``memoizationStatus``."""
        return {"hit": hit, "key": self.key, "cacheName": self.cache}
