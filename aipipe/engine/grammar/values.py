"""Values shared by the expression evaluators: expr's ``nil``, Argo's text rendering, conversions."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any


class ExprError(Exception):
    """A malformed or failing expression."""


class _Nil:
    """expr's nil; also what an absent output evaluates to."""

    _instance: _Nil | None = None

    def __new__(cls) -> _Nil:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "nil"

    def __bool__(self) -> bool:
        return False


NIL = _Nil()


def to_text(value: Any) -> str:
    """Render an expression result the way Argo substitutes it into a string."""
    if isinstance(value, str):
        return value
    if value is NIL or value is None:
        return ""
    if hasattr(value, "go_json"):  # Argo trims the quotes of a result that marshals to a JSON string (a time)
        return str(value.go_json())
    return to_json(value)


def to_json(value: Any, escape_html: bool = True) -> str:
    """Compact JSON exactly as Go's json.Marshal writes it (``toJson``, and any non-string result): map keys
    sorted, text as UTF-8 with U+2028 and U+2029 escaped (and ``<``, ``>``, ``&`` unless ``escape_html`` is off),
    numbers as :func:`go_float`. A value read from JSON text keeps that text (``json_text``: a raw number) and a map
    that ``keeps_order`` its keys' order, as a ``json.RawMessage`` does."""
    value = NIL if value is None else value
    if value is NIL:
        return "null"
    if hasattr(value, "go_json"):  # a time: RFC 3339, as Go writes one
        return to_json(value.go_json(), escape_html)
    if getattr(value, "json_text", None) is not None:
        return str(value.json_text)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).translate(_HTML_ESCAPES if escape_html else _LINE_ESCAPES)
    if isinstance(value, dict):
        keys = list(value) if getattr(value, "keeps_order", False) else sorted(value)
        return "{" + ",".join(f"{to_json(str(k), escape_html)}:{to_json(value[k], escape_html)}" for k in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(v, escape_html) for v in value) + "]"
    return to_json(str(value), escape_html)


def go_json_text(value: Any) -> str:
    """``json.Marshal`` of plain data keeping its key order (a Go struct's field order), compact, ``<``, ``>``,
    ``&`` escaped as Go escapes them."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(_HTML_ESCAPES)


def to_json_indented(value: Any, depth: int = 0) -> str:
    """JSON as Go's ``json.MarshalIndent(v, "", "  ")`` writes it (expr-lang's ``toJSON``): :func:`to_json`'s
    values, each member of a non-empty object or array on a line of its own, two spaces a level."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        members = [f"{inner}{to_json(str(k))}: {to_json_indented(v, depth + 1)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(members) + f"\n{pad}}}"
    if isinstance(value, (list, tuple)) and value:
        return "[\n" + ",\n".join(f"{inner}{to_json_indented(v, depth + 1)}" for v in value) + f"\n{pad}]"
    return to_json(value)


_LINE_ESCAPES = {0x2028: "\\u2028", 0x2029: "\\u2029"}
_HTML_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", **_LINE_ESCAPES}


def go_float(value: float) -> str:
    """A float as Go's encoding/json writes it: the shortest digits that read back the same, positional from
    1e-6 up to 1e21 (``3``, ``0.00001``, ``1152921504606847000``), else exponent form without a leading zero
    in the exponent (``1e-7``, ``1e+21``)."""
    if math.isnan(value) or math.isinf(value):
        raise ExprError(f"json: unsupported value: {value}")
    if value != 0 and not 1e-6 <= abs(value) < 1e21:
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        sign, digits = exponent[0], exponent[1:].lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits if sign == '-' else digits.zfill(2)}"
    return format(Decimal(repr(value)).normalize(), "f") if value else "0"


def go_float_v(value: float) -> str:
    """strconv's shortest 'g' form, as fmt's %v prints a float64: exponent form below 1e-4 and from 1e+06 on."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    _, digit_tuple, exp = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exp, int)
    point = len(digit_tuple) + exp  # value = 0.DIGITS x 10^point
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    sign = "-" if value < 0 else ""
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    whole, frac = digits[:point].ljust(point, "0"), digits[point:]
    return sign + whole + ("." + frac if frac else "")


def go_sprint(value: Any) -> str:
    """Go's ``fmt.Sprint`` of a value (sprig's ``toString``, ``cat``, ``join``; expr's ``string()``)."""
    if isinstance(value, str):
        return value
    if hasattr(value, "go_string"):  # a time, duration, weekday or month: its String()
        return str(value.go_string())
    if value is NIL or value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float_v(value)
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_sprint(v)}" for k, v in sorted(value.items())) + "]"
    return str(value)


def num(value: Any, what: str) -> int | float:
    """A number operand, or an error naming the operation."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExprError(f"{what}: expected a number, got {to_text(value)!r}")
    return value


def truthy(value: Any) -> bool:
    """A boolean operand (expr-lang does not coerce)."""
    if not isinstance(value, bool):
        raise ExprError(f"expected a boolean, got {to_text(value)!r}")
    return value


def equal(a: Any, b: Any) -> bool:
    """expr-lang's ``==``: numbers compare across int/float, everything else by type and value."""
    if a is NIL or b is NIL:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def as_int(value: Any) -> int:
    """Argo's ``asInt``: a number or numeric text, else an error."""
    if isinstance(value, bool):
        raise ExprError("asInt: expected a number")
    if isinstance(value, (int, float)):
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        try:
            return int(float(str(value).strip()))
        except ValueError as exc:
            raise ExprError(f"cannot convert {value!r} to int") from exc


def as_float(value: Any) -> float:
    """Argo's ``asFloat``."""
    try:
        return float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except ValueError as exc:
        raise ExprError(f"cannot convert {value!r} to float") from exc
