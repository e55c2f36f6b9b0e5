"""The sprig functions Argo exposes as ``sprig.*``, with sprig's arities (``add``, ``list``, ``cat`` … take any
number of arguments) and its lenient number conversion (text that is not a number counts as 0)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.builtins import duration, from_json
from aipipe.engine.grammar.gotime import GoTime, go_date, now, parse_date
from aipipe.engine.grammar.sprig_more import MORE, with_musts
from aipipe.engine.grammar.values import NIL, ExprError, go_sprint, to_json

_ZERO_TIME = -62135596800.0  # Go's zero time.Time (0001-01-01 UTC) as epoch seconds


def to_int64(value: Any) -> int:
    """sprig's ``toInt64`` (spf13/cast): numbers truncate, numeric text parses, anything else is 0."""
    if isinstance(value, (bool, int, float)):
        return int(value)
    text = str(value).strip() if value is not NIL and value is not None else ""
    text = re.sub(r"\.0*$", "", text)
    try:
        return int(text, 0)
    except ValueError:
        return 0


def to_float64(value: Any) -> float:
    """sprig's ``toFloat64``: numeric text parses, anything else is 0."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return 0.0


def empty(value: Any) -> bool:
    """sprig's ``empty``: nil, zero, false, and empty text, lists and maps."""
    return value is NIL or value is None or (not isinstance(value, bool) and value in (0, "")) \
        or value is False or (isinstance(value, (list, tuple, dict)) and not value)


def _strings(items: Any) -> list[str]:
    if not isinstance(items, (list, tuple)):
        items = [items]
    return [go_sprint(i) for i in items if i is not NIL and i is not None]


def _div(a: Any, b: Any) -> int:
    den = to_int64(b)
    return 0 if den == 0 else int(to_int64(a) / den)


def _mul(a: Any, *rest: Any) -> int:
    out = to_int64(a)
    for b in rest:
        out *= to_int64(b)
    return out


def _mulf(a: Any, *rest: Any) -> float:
    out = to_float64(a)
    for b in rest:
        out *= to_float64(b)
    return out


def _divf(a: Any, *rest: Any) -> float:
    out = to_float64(a)
    for b in rest:
        out /= to_float64(b)
    return out


def _until(count: Any) -> list[int]:
    n = to_int64(count)
    return list(range(0, n, 1 if n >= 0 else -1))


def _until_step(start: Any, stop: Any, step: Any) -> list[int]:
    """sprig's untilStep(int, int, int): Go refuses any other argument type (a string parameter needs ``asInt``)."""
    for value in (start, stop, step):
        if isinstance(value, bool) or not isinstance(value, int):
            kind = "string" if isinstance(value, str) else "float64" if isinstance(value, float) else "interface {}"
            raise ExprError(f"reflect: Call using {kind} as type int")
    if stop < start:
        return list(range(start, stop, step)) if step < 0 else []
    return list(range(start, stop, step)) if step > 0 else []


def _to_date(layout: Any, text: Any) -> GoTime:
    """sprig's ``toDate``: the text read with a Go layout; text the layout cannot read is Go's zero time."""
    try:
        return parse_date(go_sprint(text), go_sprint(layout))
    except ValueError:
        return GoTime(_ZERO_TIME)


def _date_modify(change: Any, when: Any) -> Any:
    """sprig's ``dateModify``: the time moved by a Go duration; a duration that does not parse leaves it as it is."""
    try:
        return GoTime(float(when)) + duration(change)
    except ExprError:
        return when


SPRIG: dict[str, Callable[..., Any]] = {
    # arithmetic, as sprig declares it: add/addf/mul/mulf/max/min/maxf/minf variadic, sub/div/mod two arguments
    "add": lambda *a: sum(to_int64(x) for x in a),
    "add1": lambda a: to_int64(a) + 1,
    "sub": lambda a, b: to_int64(a) - to_int64(b),
    "div": _div,
    "mod": lambda a, b: int(math.fmod(to_int64(a), to_int64(b))),
    "mul": _mul,
    "max": lambda a, *rest: max(to_int64(x) for x in (a, *rest)),
    "min": lambda a, *rest: min(to_int64(x) for x in (a, *rest)),
    "biggest": lambda a, *rest: max(to_int64(x) for x in (a, *rest)),
    "addf": lambda *a: sum(to_float64(x) for x in a),
    "add1f": lambda a: to_float64(a) + 1,
    "subf": lambda a, *rest: to_float64(a) - sum(to_float64(x) for x in rest),
    "mulf": _mulf,
    "divf": _divf,
    "maxf": lambda a, *rest: max(to_float64(x) for x in (a, *rest)),
    "minf": lambda a, *rest: min(to_float64(x) for x in (a, *rest)),
    "floor": lambda a: float(math.floor(to_float64(a))),
    "ceil": lambda a: float(math.ceil(to_float64(a))),
    "atoi": to_int64, "int": to_int64, "int64": to_int64, "float64": to_float64,
    "until": _until,
    "untilStep": _until_step,
    "seq": lambda *a: " ".join(str(i) for i in range(1, to_int64(a[0]) + 1)) if len(a) == 1 else "",
    # text
    "upper": lambda s: go_sprint(s).upper(),
    "lower": lambda s: go_sprint(s).lower(),
    "title": lambda s: go_sprint(s).title(),
    "trim": lambda s: go_sprint(s).strip(),
    "trimAll": lambda chars, s: go_sprint(s).strip(go_sprint(chars)),
    "trimPrefix": lambda p, s: go_sprint(s).removeprefix(go_sprint(p)),
    "trimSuffix": lambda p, s: go_sprint(s).removesuffix(go_sprint(p)),
    "nospace": lambda s: re.sub(r"\s", "", go_sprint(s)),
    "repeat": lambda n, s: go_sprint(s) * to_int64(n),
    "substr": lambda start, end, s: go_sprint(s)[to_int64(start):to_int64(end)],
    "trunc": lambda n, s: go_sprint(s)[:to_int64(n)] if to_int64(n) >= 0 else go_sprint(s)[to_int64(n):],
    "replace": lambda old, new, s: go_sprint(s).replace(go_sprint(old), go_sprint(new)),
    "contains": lambda sub, s: go_sprint(sub) in go_sprint(s),
    "hasPrefix": lambda p, s: go_sprint(s).startswith(go_sprint(p)),
    "hasSuffix": lambda p, s: go_sprint(s).endswith(go_sprint(p)),
    "cat": lambda *a: " ".join(_strings(list(a))),
    "quote": lambda *a: " ".join(json.dumps(s, ensure_ascii=False) for s in _strings(list(a))),
    "squote": lambda *a: " ".join(f"'{s}'" for s in _strings(list(a))),
    "toString": go_sprint,
    "toStrings": _strings,
    "join": lambda sep, items: go_sprint(sep).join(_strings(items)),
    "split": lambda sep, s: {f"_{i}": part for i, part in enumerate(go_sprint(s).split(go_sprint(sep)))},
    "splitList": lambda sep, s: go_sprint(s).split(go_sprint(sep)),
    "regexMatch": lambda rx, s: re.search(go_sprint(rx), go_sprint(s)) is not None,
    "regexFind": lambda rx, s: (m.group(0) if (m := re.search(go_sprint(rx), go_sprint(s))) else ""),
    "b64enc": lambda s: base64.b64encode(go_sprint(s).encode()).decode(),
    "b64dec": lambda s: base64.b64decode(go_sprint(s)).decode(),
    "sha256sum": lambda s: hashlib.sha256(go_sprint(s).encode()).hexdigest(),
    "date": go_date,
    "htmlDate": lambda when: go_date("2006-01-02", when),
    "toDate": _to_date,
    "dateModify": _date_modify,
    "unixEpoch": lambda when: str(int(float(when) // 1)),
    "now": now,  # sprig's now: the current time, which date and the time methods take
    # defaults and data
    "default": lambda d, *given: d if not given or empty(given[0]) else given[0],
    "empty": empty,
    "coalesce": lambda *a: next((x for x in a if not empty(x)), NIL),
    "ternary": lambda yes, no, cond: yes if cond is True else no,
    "toJson": to_json,
    "fromJson": from_json,
    "list": lambda *a: list(a),
    "first": lambda v: v[0] if v else NIL,
    "last": lambda v: v[-1] if v else NIL,
    "rest": lambda v: list(v[1:]),
    "initial": lambda v: list(v[:-1]),
    "append": lambda v, x: [*v, x],
    "prepend": lambda v, x: [x, *v],
    "concat": lambda *lists: [x for lst in lists for x in lst],
    "has": lambda x, v: x in v,
    "uniq": lambda v: list(dict.fromkeys(v)),
    "reverse": lambda v: list(reversed(v)),
    "compact": lambda v: [x for x in v if not empty(x)],
    "sortAlpha": lambda v: sorted(_strings(v)),
    "dict": lambda *a: {go_sprint(a[i]): (a[i + 1] if i + 1 < len(a) else "") for i in range(0, len(a), 2)},
    "get": lambda d, k: d.get(k, ""),
    "hasKey": lambda d, k: k in d,
    "keys": lambda *ds: [k for d in ds for k in d],
}
SPRIG = with_musts({**SPRIG, **MORE})
