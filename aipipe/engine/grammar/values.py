"""Values shared by the expression evaluators: expr's ``nil``, Argo's text rendering, conversions."""

from __future__ import annotations

import json
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
    return to_json(value)


def to_json_value(value: Any) -> Any:
    """A plain JSON value: nil becomes null, whole floats become ints (Go's encoder does the same)."""
    if value is NIL:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    return value


def to_json(value: Any) -> str:
    """Compact JSON, as Go's json.Marshal writes it (``toJson``, and any non-string result): map keys sorted."""
    return json.dumps(to_json_value(value), separators=(",", ":"), sort_keys=True)


def go_sprint(value: Any) -> str:
    """Go's ``fmt.Sprint`` of a value (sprig's ``toString``, ``cat``, ``join``)."""
    if isinstance(value, str):
        return value
    if value is NIL or value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
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
