"""Evaluates a govaluate ``when`` condition tree: bare words are text, numbers are floats."""

from __future__ import annotations

import re
from typing import Any

from aipipe.engine.grammar.parse import Node, parse
from aipipe.engine.grammar.values import ExprError


def evaluate_condition(text: str) -> bool:
    """A govaluate-style ``when`` after substitution: ``heads == heads``, ``( a && b ) || !c``, ``x =~ re``."""
    return _bool(_eval(parse(text, "condition"), text), text)


def _eval(node: Node, text: str) -> Any:
    if node.op == "lit":
        return node.args[0]
    if node.op == "unary":
        return not _bool(_eval(node.args[1], text), text)
    op, left, right = node.args
    if op == "&&":
        return _bool(_eval(left, text), text) and _bool(_eval(right, text), text)
    if op == "||":
        return _bool(_eval(left, text), text) or _bool(_eval(right, text), text)
    return _compare(op, _eval(left, text), _eval(right, text), text)


def _bool(value: Any, text: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ExprError(f"condition {text!r} does not evaluate to a boolean (got {value!r})")


def _compare(op: str, a: Any, b: Any, text: str) -> bool:
    if op in ("=~", "!~"):
        found = re.search(str(b), str(a)) is not None
        return found if op == "=~" else not found
    if op in ("==", "!="):
        same = a == b if type(a) is type(b) else _text(a) == _text(b)
        return same if op == "==" else not same
    if type(a) is type(b) and isinstance(a, (float, str)):
        return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]
    raise ExprError(f"cannot compare {a!r} {op} {b!r} in condition {text!r}")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
