"""Evaluates a govaluate ``when`` condition tree: bare words are text, numbers are floats, as govaluate reads a
condition with no parameters (Argo substitutes ``{{...}}`` first)."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.parse import Node, parse
from aipipe.engine.grammar.values import ExprError, go_sprint


def evaluate_condition(text: str) -> bool:
    """A govaluate-style ``when`` after substitution: ``heads == heads``, ``( a && b ) || !c``, ``x =~ re``."""
    return _bool(_eval(parse(text, "condition"), text), text)


def _eval(node: Node, text: str) -> Any:
    if node.op == "lit":
        return node.args[0]
    if node.op == "unary":
        sign, operand = node.args
        if sign == "!":
            return not _bool(_eval(operand, text), text)
        value = _number(_eval(operand, text), sign, text)
        return -value if sign == "-" else value
    if node.op == "in":
        needle = _eval(node.args[0], text)
        return any(_same(needle, _eval(option, text)) for option in node.args[1])
    op, left, right = node.args
    if op == "&&":
        return _bool(_eval(left, text), text) and _bool(_eval(right, text), text)
    if op == "||":
        return _bool(_eval(left, text), text) or _bool(_eval(right, text), text)
    if op in ARITHMETIC:
        return _arithmetic(op, _eval(left, text), _eval(right, text), text)
    return _compare(op, _eval(left, text), _eval(right, text), text)


# govaluate's modifiers on numbers (``^`` is its bitwise xor, on the values as 64-bit integers)
ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": math.fmod,
    "**": operator.pow, "^": lambda x, y: float(int(x) ^ int(y))}


def _arithmetic(op: str, a: Any, b: Any, text: str) -> Any:
    """``+`` joins when either side is text (as govaluate does); every other modifier takes numbers only."""
    if op == "+" and (isinstance(a, str) or isinstance(b, str)):
        return go_sprint(a) + go_sprint(b)
    try:
        return float(ARITHMETIC[op](_number(a, op, text), _number(b, op, text)))
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise ExprError(f"{a!r} {op} {b!r} in condition {text!r}: {exc}") from None


def _number(value: Any, op: str, text: str) -> float:
    if isinstance(value, float):
        return value
    raise ExprError(f"value {value!r} cannot be used with the modifier {op!r}, it is not a number "
                    f"(condition {text!r}; quote text that holds - + * / %)")


def _same(a: Any, b: Any) -> bool:
    """govaluate's reflect.DeepEqual: '5' is not 5, 'true' is not true."""
    return type(a) is type(b) and a == b


def _bool(value: Any, text: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ExprError(f"condition {text!r} does not evaluate to a boolean (got {value!r})")


def _compare(op: str, a: Any, b: Any, text: str) -> bool:
    if op in ("=~", "!~"):
        found = re.search(str(b), str(a)) is not None
        return found if op == "=~" else not found
    if op in ("==", "!="):
        same = _same(a, b)
        return same if op == "==" else not same
    if type(a) is type(b) and isinstance(a, (float, str)):
        return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]
    raise ExprError(f"cannot compare {a!r} {op} {b!r} in condition {text!r}")

