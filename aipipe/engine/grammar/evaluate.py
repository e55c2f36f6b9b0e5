"""Evaluates an expr-lang tree against an environment of nested dicts; nothing reaches Python's ``eval``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.builtins import FUNCTIONS
from aipipe.engine.grammar.gotime import GoDuration, GoTime
from aipipe.engine.grammar.parse import Node
from aipipe.engine.grammar.sprig import SPRIG
from aipipe.engine.grammar.values import NIL, ExprError, as_int, equal, num, to_text, truthy

# expr-lang's predicate builtins: the second argument is evaluated once per element, with ``#`` bound to it
PREDICATES = {"filter", "map", "all", "any", "none", "one", "count", "sum", "find", "findIndex", "findLast",
              "findLastIndex", "groupBy", "sortBy", "reduce"}


def _sort_key(value: Any) -> Any:
    return (0, value) if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, to_text(value))


class Evaluator:
    """Walks a tree; ``scopes`` holds ``let`` bindings, ``pointers`` the element ``#`` stands for."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env
        self.scopes: list[dict[str, Any]] = []
        self.pointers: list[dict[str, Any]] = []

    def eval(self, node: Node) -> Any:
        return getattr(self, f"_{node.op}")(*node.args)

    def _lit(self, value: Any) -> Any:
        return value

    def _var(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.env:
            return self.env[name]
        if name == "sprig":
            return SPRIG
        raise ExprError(f"unknown name {name}")  # expr-lang's words

    def _let(self, name: str, value: Node, body: Node) -> Any:
        self.scopes.append({name: self.eval(value)})
        try:
            return self.eval(body)
        finally:
            self.scopes.pop()

    def _sequence(self, *steps: Node) -> Any:
        """expr's ``a; b``: each in turn, the last one's value."""
        value: Any = NIL
        for step in steps:
            value = self.eval(step)
        return value

    def _pointer(self, name: str) -> Any:
        if not self.pointers:
            raise ExprError("'#' used outside a predicate")
        frame = self.pointers[-1]
        if name not in frame:
            raise ExprError(f"unknown pointer #{name}")
        return frame[name]

    def _member(self, target: Node, key_node: Node, optional: bool = False) -> Any:
        obj = self.eval(target)
        if obj is NIL or (optional and obj is None):
            return NIL
        key = self.eval(key_node)
        if isinstance(obj, dict):
            return obj.get(key, NIL)
        if isinstance(obj, (list, tuple, str)) and isinstance(key, int) and not isinstance(key, bool):
            try:
                return obj[key]
            except IndexError as exc:
                raise ExprError(f"index {key} out of range") from exc
        raise ExprError(f"cannot read {to_text(key)!r} from {type(obj).__name__}")

    def _slice(self, target: Node, low: Node | None, high: Node | None) -> Any:
        obj = self.eval(target)
        if not isinstance(obj, (list, tuple, str)):
            raise ExprError(f"cannot slice {type(obj).__name__}")
        lo = 0 if low is None else as_int(self.eval(low))
        hi = len(obj) if high is None else as_int(self.eval(high))
        return obj[lo:hi]

    def _array(self, *items: Node) -> list[Any]:
        return [self.eval(i) for i in items]

    def _map(self, *pairs: tuple[Node, Node]) -> dict[Any, Any]:
        return {self.eval(k): self.eval(v) for k, v in pairs}

    def _closure(self, body: Node) -> Any:
        return self.eval(body)

    def _each(self, body: Node, items: list[Any]) -> list[Any]:
        results = []
        for index, item in enumerate(items):
            self.pointers.append({"": item, "index": index})
            try:
                results.append(self.eval(body))
            finally:
                self.pointers.pop()
        return results

    def _predicate(self, name: str, args: tuple[Node, ...]) -> Any:
        if len(args) < 2 and name not in ("count", "sum"):
            raise ExprError(f"{name}() takes a list and a predicate")
        items = self.eval(args[0])
        items = [] if items is NIL else items
        if isinstance(items, dict):
            items = list(items.values())
        if not isinstance(items, (list, tuple)):
            raise ExprError(f"{name}(): expected a list, got {to_text(items)!r}")
        if len(args) == 1:
            return len(items) if name == "count" else sum(num(x, "sum") for x in items)
        body = args[1].args[0] if args[1].op == "closure" else args[1]
        if name == "reduce":
            return self._reduce(list(items), body, args[2:])
        results = self._each(body, list(items))
        if name == "map":
            return results
        if name == "sum":
            return sum(num(r, "sum") for r in results)
        if name == "sortBy":
            order = self.eval(args[2]) if len(args) > 2 else "asc"
            ranked = sorted(zip(results, items, strict=True), key=lambda p: _sort_key(p[0]), reverse=order == "desc")
            return [item for _, item in ranked]
        if name == "groupBy":
            groups: dict[Any, list[Any]] = {}
            for key, item in zip(results, items, strict=True):
                groups.setdefault(key, []).append(item)
            return groups
        flags = [truthy(r) for r in results]
        hits = [n for n, flag in enumerate(flags) if flag]
        return {
            "filter": lambda: [items[n] for n in hits],
            "all": lambda: len(hits) == len(items),
            "any": lambda: bool(hits),
            "none": lambda: not hits,
            "one": lambda: len(hits) == 1,
            "count": lambda: len(hits),
            "find": lambda: items[hits[0]] if hits else NIL,
            "findIndex": lambda: hits[0] if hits else -1,
            "findLast": lambda: items[hits[-1]] if hits else NIL,
            "findLastIndex": lambda: hits[-1] if hits else -1,
        }[name]()

    def _reduce(self, items: list[Any], body: Node, init: tuple[Node, ...]) -> Any:
        if init:
            acc = self.eval(init[0])
        elif items:
            acc, items = items[0], items[1:]
        else:
            raise ExprError("reduce() of an empty list needs an initial value")
        for index, item in enumerate(items):
            self.pointers.append({"": item, "index": index, "acc": acc})
            try:
                acc = self.eval(body)
            finally:
                self.pointers.pop()
        return acc

    def _call(self, name: str, args: tuple[Node, ...]) -> Any:
        if name in PREDICATES:
            return self._predicate(name, args)
        func = FUNCTIONS.get(name)
        if func is None:
            raise ExprError(f"unknown function {name}()")
        return self._invoke(name, func, [self.eval(a) for a in args])

    def _method(self, target: Node, name: str, args: tuple[Node, ...], optional: bool = False) -> Any:
        obj = self.eval(target)
        if obj is SPRIG:
            func = SPRIG.get(name)
            if func is None:
                raise ExprError(f"unknown function sprig.{name}()")
            return self._invoke(f"sprig.{name}", func, [self.eval(a) for a in args])
        if optional and obj is NIL:
            return NIL
        method = obj.method(name) if isinstance(obj, (GoTime, GoDuration)) else None
        if method is not None:
            return self._invoke(name, method, [self.eval(a) for a in args])
        raise ExprError(f"cannot call {name}() on {type(obj).__name__}")

    @staticmethod
    def _invoke(name: str, func: Callable[..., Any], values: list[Any]) -> Any:
        try:
            return func(*values)
        except ExprError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError) as exc:
            raise ExprError(f"{name}(): {exc}") from exc

    def _unary(self, op: str, operand: Node) -> Any:
        value = self.eval(operand)
        if op == "!":
            return not truthy(value)
        number = num(value, f"unary {op}")
        return -number if op == "-" else number

    def _ternary(self, cond: Node, yes: Node, no: Node) -> Any:
        return self.eval(yes) if truthy(self.eval(cond)) else self.eval(no)

    def _elvis(self, value: Node, fallback: Node) -> Any:
        result = self.eval(value)
        return self.eval(fallback) if result is NIL or result is None or result is False else result

    def _binary(self, op: str, left: Node, right: Node) -> Any:
        if op == "&&":
            return truthy(self.eval(left)) and truthy(self.eval(right))
        if op == "||":
            return truthy(self.eval(left)) or truthy(self.eval(right))
        if op == "??":
            try:
                value = self.eval(left)
            except ExprError:
                if left.op != "member":
                    raise
                value = NIL
            return self.eval(right) if value is NIL or value is None else value
        return binary(op, self.eval(left), self.eval(right))


def binary(op: str, a: Any, b: Any) -> Any:
    """A strict (both sides evaluated) binary operator of expr-lang."""
    if op == "==":
        return equal(a, b)
    if op == "!=":
        return not equal(a, b)
    if op in ("<", ">", "<=", ">="):
        if not (isinstance(a, str) and isinstance(b, str)):
            a, b = num(a, op), num(b, op)
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if op == "in":
        if isinstance(b, dict):
            return a in b
        if isinstance(b, (list, tuple)):
            return any(equal(a, x) for x in b)
        raise ExprError(f"'in' needs a list or map, got {to_text(b)!r}")
    if op == "matches":
        return re.search(str(b), str(a)) is not None
    if op in ("contains", "startsWith", "endsWith"):
        text, part = str(a), str(b)
        return part in text if op == "contains" else text.startswith(part) if op == "startsWith" \
            else text.endswith(part)
    if op == "..":
        return list(range(as_int(a), as_int(b) + 1))
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if op == "+" and isinstance(a, list) and isinstance(b, list):
        return a + b
    a, b = num(a, op), num(b, op)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise ExprError("division by zero")
        return a / b
    if op == "%":
        if not isinstance(a, int) or not isinstance(b, int):
            raise ExprError("% needs integers")
        if b == 0:
            raise ExprError("division by zero")
        return int(math.fmod(a, b))
    if op in ("**", "^"):
        return float(a) ** float(b)
    raise ExprError(f"unsupported operator {op}")
