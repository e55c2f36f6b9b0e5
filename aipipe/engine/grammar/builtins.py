"""expr-lang's builtin functions and the ones Argo adds (``asInt``, ``asFloat``, ``jsonpath``, ``toJson``)."""

from __future__ import annotations

import base64
import json
import math
import re
import statistics
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from aipipe.engine.grammar.gotime import NANOS, GoDuration, GoTime, now, parse_date
from aipipe.engine.grammar.values import (
    NIL,
    ExprError,
    as_float,
    as_int,
    go_sprint,
    num,
    to_json,
    to_json_indented,
    to_text,
)


def jsonpath(doc: Any, path: str) -> Any:
    """Argo's ``jsonpath(json, path)``: a definite path's one match bare; a path that can match several
    (a wildcard, a deep scan, a filter, a slice or a union) always a list, as its library returns it."""
    from jsonpath_ng.ext import parse as jp_parse

    data = json.loads(doc) if isinstance(doc, str) else doc
    try:
        matches = [m.value for m in jp_parse(path).find(data)]
    except Exception as exc:  # jsonpath_ng raises plain Exceptions for syntax errors
        raise ExprError(f"jsonpath {path!r}: {exc}") from exc
    if not matches:
        raise ExprError(f"jsonpath {path!r} matched nothing")
    definite = not re.search(r"\*|\.\.|\[\?|\[[^\]]*[:,][^\]]*\]", path)
    return matches[0] if definite and len(matches) == 1 else matches


def from_json(value: Any) -> Any:
    """``fromJSON``: parse text as JSON; numbers are floats, as Go's json.Unmarshal gives them to expr."""
    try:
        return json.loads(str(value), parse_int=float)
    except json.JSONDecodeError as exc:
        raise ExprError(f"fromJson: not JSON: {value!r}") from exc


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1, "us": 1000, "\u00b5s": 1000, "ms": 1_000_000, "s": NANOS, "m": 60 * NANOS,
                   "h": 3600 * NANOS}


def duration(text: Any) -> GoDuration:
    """Go's ``time.ParseDuration`` ("1h30m", "-90s", "1.5h"), in whole nanoseconds as Go keeps it."""
    raw = str(text).strip()
    sign, body = (-1, raw[1:]) if raw.startswith("-") else (1, raw.lstrip("+"))
    parts = _DURATION.findall(body)
    if not body or "".join(n + u for n, u in parts) != body:
        raise ExprError(f"duration(): invalid duration {raw!r}")
    return GoDuration(sign * sum(int(Decimal(n) * _DURATION_UNITS[u]) for n, u in parts))


def _numbers(name: str, args: tuple[Any, ...]) -> list[Any]:
    """expr's max, min, mean and median take numbers and arrays of them, at any depth, as one flat list."""
    return [num(x, name) for x in _flatten(args)]


def _extreme(pick: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    items = _numbers("max/min", args)
    if not items:
        raise ExprError("needs at least one value")
    return pick(items)


def _flatten(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        out.extend(_flatten(item) if isinstance(item, (list, tuple)) else [item])
    return out


def _split_after(text: str, sep: str, n: int) -> list[str]:
    """expr's ``splitAfter``: split after each ``sep``, keeping it; at most ``n`` parts when ``n`` > 0."""
    parts = text.split(sep, n - 1 if n > 0 else -1)
    return [part + sep for part in parts[:-1]] + parts[-1:]


def _type(value: Any) -> str:
    if value is NIL or value is None:
        return "nil"
    if isinstance(value, (GoTime, GoDuration)):
        return "time" if isinstance(value, GoTime) else "duration"
    names = {bool: "bool", int: "int", float: "float", str: "string", list: "array", dict: "map"}
    return names.get(type(value), "unknown")


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "asInt": as_int, "asFloat": as_float, "int": as_int, "float": as_float,
    "string": go_sprint, "type": _type,  # expr-lang's string() is fmt.Sprintf("%v")
    "toJson": to_json, "toJSON": to_json_indented, "fromJson": from_json, "fromJSON": from_json,
    "jsonpath": jsonpath,
    "toBase64": lambda s: base64.b64encode(str(s).encode()).decode(),
    "fromBase64": lambda s: base64.b64decode(str(s)).decode(),
    "len": lambda v: len(v),
    "upper": lambda s: str(s).upper(),
    "lower": lambda s: str(s).lower(),
    "trim": lambda s, chars=None: str(s).strip(chars),
    "trimPrefix": lambda s, p: str(s).removeprefix(str(p)),
    "trimSuffix": lambda s, p: str(s).removesuffix(str(p)),
    "split": lambda s, sep, n=-1: str(s).split(sep, n - 1 if n > 0 else -1),
    "splitAfter": lambda s, sep, n=-1: _split_after(str(s), str(sep), as_int(n)),
    "replace": lambda s, old, new: str(s).replace(str(old), str(new)),
    "repeat": lambda s, n: str(s) * as_int(n),
    "indexOf": lambda s, sub: str(s).find(str(sub)),
    "lastIndexOf": lambda s, sub: str(s).rfind(str(sub)),
    "hasPrefix": lambda s, p: str(s).startswith(str(p)),
    "hasSuffix": lambda s, p: str(s).endswith(str(p)),
    "join": lambda items, sep="": str(sep).join(to_text(i) for i in items),
    "keys": lambda m: list(m.keys()),
    "values": lambda m: list(m.values()),
    "toPairs": lambda m: [[k, v] for k, v in m.items()],
    "fromPairs": lambda pairs: {k: v for k, v in pairs},
    "abs": lambda x: abs(num(x, "abs")),
    "ceil": lambda x: float(math.ceil(num(x, "ceil"))),
    "floor": lambda x: float(math.floor(num(x, "floor"))),
    "round": lambda x: math.copysign(math.floor(abs(num(x, "round")) + 0.5), num(x, "round")),  # halves away from 0
    "max": lambda *a: _extreme(max, a),
    "min": lambda *a: _extreme(min, a),
    "mean": lambda *a: sum(_numbers("mean", a)) / len(_numbers("mean", a)) if _numbers("mean", a) else 0.0,
    "median": lambda *a: float(statistics.median(_numbers("median", a))) if _numbers("median", a) else 0.0,
    "first": lambda v: v[0] if v else NIL,
    "last": lambda v: v[-1] if v else NIL,
    "take": lambda v, n: v[:as_int(n)],
    "get": lambda v, k: (v.get(k, NIL) if isinstance(v, dict)
                         else v[k] if isinstance(k, int) and -len(v) <= k < len(v) else NIL),
    "reverse": lambda v: list(reversed(v)),
    "sort": lambda v, order="asc": sorted(v, reverse=order == "desc"),
    "uniq": lambda v: list(dict.fromkeys(v)),
    "concat": lambda *lists: [x for lst in lists for x in lst],
    "flatten": _flatten,
    "now": now,
    "duration": duration,
    "date": parse_date,
    "bitand": lambda a, b: as_int(a) & as_int(b), "bitor": lambda a, b: as_int(a) | as_int(b),
    "bitxor": lambda a, b: as_int(a) ^ as_int(b), "bitnand": lambda a, b: as_int(a) & ~as_int(b),
    "bitnot": lambda a: ~as_int(a), "bitshl": lambda a, b: as_int(a) << as_int(b),
    "bitshr": lambda a, b: as_int(a) >> as_int(b),
}
