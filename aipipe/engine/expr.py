"""Expressions: the expr-lang subset behind ``{{= …}}`` and the govaluate-style ``when`` conditions.

Both are tokenised and parsed into a small AST, then evaluated against an environment; nothing
is handed to Python's ``eval``. ``NIL`` stands for expr's ``nil`` (also the value of an absent
output), distinct from ``""``.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class ExprError(Exception):
    """A malformed or failing expression."""


# ----------------------------------------------------------------------------- tokens

_OPERATORS = ("??", "?.", "==", "!=", "<=", ">=", "&&", "||", "=~", "!~", "**", "..",
              "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}", "#", "^")
_WORD_OPS = {"and": "&&", "or": "||", "not": "!"}


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "str", "name", "op", "end"
    value: Any
    pos: int


def tokenize(text: str) -> list[Token]:
    """Split an expr-lang expression into tokens."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch.isdigit():
            j = i
            while j < n and (text[j].isdigit() or text[j] == "_"):
                j += 1
            is_float = False
            if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
                is_float = True
                j += 1
                while j < n and text[j].isdigit():
                    j += 1
            if j < n and text[j] in "eE":
                is_float = True
                j += 1
                if j < n and text[j] in "+-":
                    j += 1
                while j < n and text[j].isdigit():
                    j += 1
            raw = text[i:j].replace("_", "")
            tokens.append(Token("num", float(raw) if is_float else int(raw), i))
            i = j
            continue
        if ch in "'\"`":
            j, buf = i + 1, []
            while j < n and text[j] != ch:
                if text[j] == "\\" and ch != "`" and j + 1 < n:
                    esc = text[j + 1]
                    buf.append({"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}.get(esc, "\\" + esc))
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            if j >= n:
                raise ExprError(f"unterminated string at {i} in {text!r}")
            tokens.append(Token("str", "".join(buf), i))
            i = j + 1
            continue
        if ch.isalpha() or ch in "_$":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            word = text[i:j]
            if word in _WORD_OPS:
                tokens.append(Token("op", _WORD_OPS[word], i))
            elif word in ("in", "matches", "contains", "startsWith", "endsWith"):
                tokens.append(Token("op", word, i))
            else:
                tokens.append(Token("name", word, i))
            i = j
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise ExprError(f"unexpected character {ch!r} at {i} in {text!r}")
    tokens.append(Token("end", None, n))
    return tokens


# ----------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Node:
    op: str  # lit, var, member, index, call, method, unary, binary, ternary, array, map, closure, pointer
    args: tuple[Any, ...]


_BINARY_PRECEDENCE = {
    "||": 10, "&&": 15,
    "==": 20, "!=": 20, "<": 20, ">": 20, "<=": 20, ">=": 20,
    "in": 20, "matches": 20, "contains": 20, "startsWith": 20, "endsWith": 20,
    "..": 25, "+": 30, "-": 30, "*": 60, "/": 60, "%": 60, "**": 100, "^": 100, "??": 500,
}
_RIGHT_ASSOC = {"**", "^"}
_CLOSURE_FUNCS = {"filter", "map", "all", "any", "none", "one", "count", "sortBy", "groupBy", "find", "findIndex"}


class Parser:
    """Pratt parser for the expr-lang subset."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def parse(self) -> Node:
        node = self.expression()
        if self.peek().kind != "end":
            tok = self.peek()
            raise ExprError(f"unexpected {tok.value!r} at {tok.pos} in {self.text!r}")
        return node

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def accept(self, op: str) -> bool:
        tok = self.peek()
        if tok.kind == "op" and tok.value == op:
            self.pos += 1
            return True
        return False

    def expect(self, op: str) -> None:
        if not self.accept(op):
            tok = self.peek()
            raise ExprError(f"expected {op!r} at {tok.pos} in {self.text!r}, got {tok.value!r}")

    def expression(self) -> Node:
        cond = self.binary(0)
        if self.accept("?"):
            yes = self.expression()
            self.expect(":")
            no = self.expression()
            return Node("ternary", (cond, yes, no))
        return cond

    def binary(self, min_prec: int) -> Node:
        left = self.unary()
        while True:
            tok = self.peek()
            op = tok.value if tok.kind == "op" else None
            negated = False
            if op == "!" and self.tokens[self.pos + 1].kind == "op" and self.tokens[self.pos + 1].value == "in":
                op, negated = "in", True
            if op not in _BINARY_PRECEDENCE or _BINARY_PRECEDENCE[op] < min_prec:
                return left
            self.pos += 2 if negated else 1
            prec = _BINARY_PRECEDENCE[op]
            right = self.binary(prec if op in _RIGHT_ASSOC else prec + 1)
            left = Node("binary", (op, left, right))
            if negated:
                left = Node("unary", ("!", left))

    def unary(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.value in ("!", "-", "+"):
            self.pos += 1
            return Node("unary", (tok.value, self.unary()))
        return self.postfix(self.primary())

    def postfix(self, node: Node) -> Node:
        while True:
            if self.accept(".") or self.accept("?."):
                name = self.next()
                if name.kind not in ("name", "op") or (name.kind == "op" and not str(name.value).isalpha()):
                    raise ExprError(f"expected a field name at {name.pos} in {self.text!r}")
                if self.accept("("):
                    node = Node("method", (node, name.value, tuple(self.call_args(name.value))))
                else:
                    node = Node("member", (node, Node("lit", (name.value,))))
            elif self.accept("["):
                index = self.expression()
                self.expect("]")
                node = Node("member", (node, index))
            else:
                return node

    def call_args(self, func: str) -> list[Node]:
        args: list[Node] = []
        if self.accept(")"):
            return args
        while True:
            if func in _CLOSURE_FUNCS and len(args) == 1:
                if self.accept("{"):
                    body = self.expression()
                    self.expect("}")
                else:
                    body = self.expression()
                args.append(Node("closure", (body,)))
            else:
                args.append(self.expression())
            if self.accept(")"):
                return args
            self.expect(",")

    def primary(self) -> Node:
        tok = self.next()
        if tok.kind in ("num", "str"):
            return Node("lit", (tok.value,))
        if tok.kind == "name":
            if tok.value in ("true", "false"):
                return Node("lit", (tok.value == "true",))
            if tok.value == "nil":
                return Node("lit", (NIL,))
            if self.accept("("):
                return Node("call", (tok.value, tuple(self.call_args(tok.value))))
            return Node("var", (tok.value,))
        if tok.kind == "op":
            if tok.value == "(":
                inner = self.expression()
                self.expect(")")
                return inner
            if tok.value == "#":
                return Node("pointer", ())
            if tok.value == "[":
                items: list[Node] = []
                if not self.accept("]"):
                    while True:
                        items.append(self.expression())
                        if self.accept("]"):
                            break
                        self.expect(",")
                return Node("array", tuple(items))
            if tok.value == "{":
                pairs: list[tuple[Node, Node]] = []
                if not self.accept("}"):
                    while True:
                        key_tok = self.next()
                        if key_tok.kind not in ("name", "str", "num"):
                            raise ExprError(f"bad map key at {key_tok.pos} in {self.text!r}")
                        self.expect(":")
                        pairs.append((Node("lit", (key_tok.value,)), self.expression()))
                        if self.accept("}"):
                            break
                        self.expect(",")
                return Node("map", tuple(pairs))
        raise ExprError(f"unexpected {tok.value!r} at {tok.pos} in {self.text!r}")


# ----------------------------------------------------------------------------- values


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
    return json.dumps(to_json_value(value), separators=(",", ":"))


def to_json_value(value: Any) -> Any:
    if value is NIL:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    return value


def _num(value: Any, what: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExprError(f"{what}: expected a number, got {to_text(value)!r}")
    return value


def as_int(value: Any) -> int:
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
    try:
        return float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except ValueError as exc:
        raise ExprError(f"cannot convert {value!r} to float") from exc


def jsonpath(doc: Any, path: str) -> Any:
    """Argo's ``jsonpath(json, path)``: one match is returned bare, several as a list."""
    from jsonpath_ng.ext import parse as jp_parse

    data = json.loads(doc) if isinstance(doc, str) else doc
    try:
        matches = [m.value for m in jp_parse(path).find(data)]
    except Exception as exc:  # jsonpath_ng raises plain Exceptions for syntax errors
        raise ExprError(f"jsonpath {path!r}: {exc}") from exc
    if not matches:
        raise ExprError(f"jsonpath {path!r} matched nothing")
    return matches[0] if len(matches) == 1 else matches


_GO_LAYOUT = (("2006", "%Y"), ("January", "%B"), ("Jan", "%b"), ("Monday", "%A"), ("Mon", "%a"),
              ("MST", "%Z"), ("01", "%m"), ("02", "%d"), ("15", "%H"), ("03", "%I"), ("04", "%M"),
              ("05", "%S"), ("06", "%y"), ("PM", "%p"))


def go_date(layout: str, when: Any = None) -> str:
    """sprig ``date``: format a time (epoch seconds; anything else means now) with a Go layout."""
    stamp = float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else time.time()
    out, i = [], 0
    while i < len(layout):
        for go, py in _GO_LAYOUT:
            if layout.startswith(go, i):
                out.append(time.strftime(py, time.gmtime(stamp)))
                i += len(go)
                break
        else:
            out.append(layout[i])
            i += 1
    return "".join(out)


def _sprig_default(default: Any, value: Any = NIL) -> Any:
    return value if value not in (NIL, None, "", 0, False, [], {}) else default


SPRIG: dict[str, Callable[..., Any]] = {
    "date": go_date,
    "upper": lambda s: str(s).upper(),
    "lower": lambda s: str(s).lower(),
    "trim": lambda s: str(s).strip(),
    "trimAll": lambda chars, s: str(s).strip(str(chars)),
    "replace": lambda old, new, s: str(s).replace(str(old), str(new)),
    "contains": lambda sub, s: str(sub) in str(s),
    "hasPrefix": lambda p, s: str(s).startswith(str(p)),
    "hasSuffix": lambda p, s: str(s).endswith(str(p)),
    "atoi": as_int,
    "int": as_int,
    "int64": as_int,
    "float64": as_float,
    "toString": to_text,
    "toJson": lambda v: json.dumps(to_json_value(v), separators=(",", ":")),
    "default": _sprig_default,
    "add": lambda a, b: as_int(a) + as_int(b),
    "sub": lambda a, b: as_int(a) - as_int(b),
    "mul": lambda a, b: as_int(a) * as_int(b),
    "div": lambda a, b: as_int(a) // as_int(b),
    "max": lambda *a: max(as_int(x) for x in a),
    "min": lambda *a: min(as_int(x) for x in a),
    "split": lambda sep, s: {f"_{i}": part for i, part in enumerate(str(s).split(str(sep)))},
    "join": lambda sep, items: str(sep).join(to_text(i) for i in items),
    "quote": lambda s: json.dumps(to_text(s)),
    "squote": lambda s: f"'{to_text(s)}'",
    "b64enc": lambda s: __import__("base64").b64encode(str(s).encode()).decode(),
    "b64dec": lambda s: __import__("base64").b64decode(str(s)).decode(),
}


def _string(value: Any) -> str:
    return to_text(value)


def _from_json(value: Any) -> Any:
    try:
        return json.loads(str(value))
    except json.JSONDecodeError as exc:
        raise ExprError(f"fromJson: not JSON: {value!r}") from exc


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration(text: Any) -> float:
    """Go's ``time.ParseDuration`` ("1h30m", "-90s"), in seconds: the unit ``now()`` counts in."""
    raw = str(text).strip()
    sign, body = (-1.0, raw[1:]) if raw.startswith("-") else (1.0, raw.lstrip("+"))
    parts = _DURATION.findall(body)
    if not body or "".join(n + u for n, u in parts) != body:
        raise ExprError(f"duration(): invalid duration {raw!r}")
    return sign * sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "asInt": as_int,
    "asFloat": as_float,
    "int": as_int,
    "float": as_float,
    "string": _string,
    "toJson": lambda v: json.dumps(to_json_value(v), separators=(",", ":")),
    "fromJson": _from_json,
    "jsonpath": jsonpath,
    "len": lambda v: len(v),
    "upper": lambda s: str(s).upper(),
    "lower": lambda s: str(s).lower(),
    "trim": lambda s, chars=None: str(s).strip(chars),
    "split": lambda s, sep: str(s).split(sep),
    "join": lambda items, sep="": str(sep).join(to_text(i) for i in items),
    "keys": lambda m: list(m.keys()),
    "values": lambda m: list(m.values()),
    "abs": lambda x: abs(_num(x, "abs")),
    "max": lambda *a: max(a[0] if len(a) == 1 else a),
    "min": lambda *a: min(a[0] if len(a) == 1 else a),
    "first": lambda v: v[0] if v else NIL,
    "last": lambda v: v[-1] if v else NIL,
    "now": time.time,
    "duration": duration,
}


def _truthy(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ExprError(f"expected a boolean, got {to_text(value)!r}")
    return value


def _equal(a: Any, b: Any) -> bool:
    if a is NIL or b is NIL:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


class Evaluator:
    """Evaluates a parsed expression against an environment (nested dicts)."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env
        self.pointer: list[Any] = []

    def eval(self, node: Node) -> Any:
        return getattr(self, f"_{node.op}")(*node.args)

    def _lit(self, value: Any) -> Any:
        return value

    def _var(self, name: str) -> Any:
        if name in self.env:
            return self.env[name]
        if name == "sprig":
            return SPRIG
        raise ExprError(f"unknown name {name!r}")

    def _pointer(self) -> Any:
        if not self.pointer:
            raise ExprError("'#' used outside a predicate")
        return self.pointer[-1]

    def _member(self, target: Node, key_node: Node) -> Any:
        obj = self.eval(target)
        key = self.eval(key_node)
        if obj is NIL:
            return NIL
        if isinstance(obj, dict):
            return obj.get(key, NIL)
        if isinstance(obj, (list, tuple, str)) and isinstance(key, int) and not isinstance(key, bool):
            try:
                return obj[key]
            except IndexError as exc:
                raise ExprError(f"index {key} out of range") from exc
        raise ExprError(f"cannot read {to_text(key)!r} from {type(obj).__name__}")

    def _array(self, *items: Node) -> list[Any]:
        return [self.eval(i) for i in items]

    def _map(self, *pairs: tuple[Node, Node]) -> dict[str, Any]:
        return {self.eval(k): self.eval(v) for k, v in pairs}

    def _closure(self, body: Node) -> Node:
        return body

    def _apply(self, body: Node, item: Any) -> Any:
        self.pointer.append(item)
        try:
            return self.eval(body)
        finally:
            self.pointer.pop()

    def _call(self, name: str, args: tuple[Node, ...]) -> Any:
        if name in _CLOSURE_FUNCS:
            if len(args) != 2:
                raise ExprError(f"{name}() takes a list and a predicate")
            items = self.eval(args[0])
            if items is NIL:
                items = []
            if not isinstance(items, (list, tuple)):
                raise ExprError(f"{name}(): expected a list, got {to_text(items)!r}")
            body = args[1].args[0] if args[1].op == "closure" else args[1]
            results = [self._apply(body, item) for item in items]
            if name == "filter":
                return [item for item, keep in zip(items, results, strict=True) if _truthy(keep)]
            if name == "map":
                return results
            if name == "all":
                return all(_truthy(r) for r in results)
            if name == "any":
                return any(_truthy(r) for r in results)
            if name == "none":
                return not any(_truthy(r) for r in results)
            if name == "one":
                return sum(_truthy(r) for r in results) == 1
            if name == "count":
                return sum(_truthy(r) for r in results)
            if name == "find":
                return next((i for i, r in zip(items, results, strict=True) if _truthy(r)), NIL)
            if name == "findIndex":
                return next((n for n, r in enumerate(results) if _truthy(r)), -1)
            raise ExprError(f"{name}() is not supported")
        func = FUNCTIONS.get(name)
        if func is None:
            raise ExprError(f"unknown function {name}()")
        return self._invoke(name, func, [self.eval(a) for a in args])

    def _method(self, target: Node, name: str, args: tuple[Node, ...]) -> Any:
        obj = self.eval(target)
        if obj is SPRIG:
            func = SPRIG.get(name)
            if func is None:
                raise ExprError(f"unknown function sprig.{name}()")
            return self._invoke(f"sprig.{name}", func, [self.eval(a) for a in args])
        raise ExprError(f"cannot call {name}() on {type(obj).__name__}")

    @staticmethod
    def _invoke(name: str, func: Callable[..., Any], values: list[Any]) -> Any:
        try:
            return func(*values)
        except ExprError:
            raise
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise ExprError(f"{name}(): {exc}") from exc

    def _unary(self, op: str, operand: Node) -> Any:
        value = self.eval(operand)
        if op == "!":
            return not _truthy(value)
        number = _num(value, f"unary {op}")
        return -number if op == "-" else number

    def _ternary(self, cond: Node, yes: Node, no: Node) -> Any:
        return self.eval(yes) if _truthy(self.eval(cond)) else self.eval(no)

    def _binary(self, op: str, left: Node, right: Node) -> Any:
        if op == "&&":
            return _truthy(self.eval(left)) and _truthy(self.eval(right))
        if op == "||":
            return _truthy(self.eval(left)) or _truthy(self.eval(right))
        if op == "??":
            try:
                value = self.eval(left)
            except ExprError:
                if left.op != "member":
                    raise
                value = NIL
            return self.eval(right) if value is NIL or value is None else value
        a, b = self.eval(left), self.eval(right)
        if op == "==":
            return _equal(a, b)
        if op == "!=":
            return not _equal(a, b)
        if op in ("<", ">", "<=", ">="):
            if isinstance(a, str) and isinstance(b, str):
                pass
            else:
                a, b = _num(a, op), _num(b, op)
            return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        if op == "in":
            if isinstance(b, dict):
                return a in b
            if isinstance(b, (list, tuple)):
                return any(_equal(a, x) for x in b)
            raise ExprError(f"'in' needs a list or map, got {to_text(b)!r}")
        if op == "matches":
            return re.search(str(b), str(a)) is not None
        if op == "contains":
            return str(b) in str(a)
        if op == "startsWith":
            return str(a).startswith(str(b))
        if op == "endsWith":
            return str(a).endswith(str(b))
        if op == "..":
            return list(range(as_int(a), as_int(b) + 1))
        if op == "+":
            if isinstance(a, str) and isinstance(b, str):
                return a + b
            if isinstance(a, list) and isinstance(b, list):
                return a + b
            return _num(a, "+") + _num(b, "+")
        a, b = _num(a, op), _num(b, op)
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
            return int(math.fmod(a, b))
        if op in ("**", "^"):
            return float(a) ** float(b)
        raise ExprError(f"unsupported operator {op}")


def evaluate(text: str, env: dict[str, Any]) -> Any:
    """Parse and evaluate an expr-lang expression."""
    return Evaluator(env).eval(Parser(text).parse())


def referenced_names(text: str) -> set[str]:
    """Top-level variable names an expression reads (used to decide what the env needs)."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, Node):
            if node.op == "var":
                names.add(node.args[0])
            for arg in node.args:
                walk(arg)
        elif isinstance(node, tuple):
            for item in node:
                walk(item)

    walk(Parser(text).parse())
    return names


# ----------------------------------------------------------------------------- govaluate `when`

_GV_OPS = ("==", "!=", "=~", "!~", ">=", "<=", "&&", "||", ">", "<", "!", "(", ")")


def _gv_tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        op = next((o for o in _GV_OPS if text.startswith(o, i)), None)
        if op is not None:
            out.append(("op", op))
            i += len(op)
            continue
        if ch in "'\"":
            j = text.find(ch, i + 1)
            if j < 0:
                raise ExprError(f"unterminated string in condition {text!r}")
            out.append(("val", text[i + 1:j]))
            i = j + 1
            continue
        j = i
        while j < n and not text[j].isspace() and not any(text.startswith(o, j) for o in _GV_OPS):
            j += 1
        word = text[i:j]
        if word in ("true", "false"):
            out.append(("val", word == "true"))
        else:
            try:
                out.append(("val", float(word)))
            except ValueError:
                out.append(("val", word))
        i = j
    return out


def evaluate_condition(text: str) -> bool:
    """A govaluate-style ``when`` after substitution: ``heads == heads``, ``( a && b ) || !c``, ``x =~ re``."""
    tokens = _gv_tokens(text)
    pos = 0

    def peek() -> tuple[str, Any] | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> tuple[str, Any]:
        nonlocal pos
        if pos >= len(tokens):
            raise ExprError(f"incomplete condition {text!r}")
        pos += 1
        return tokens[pos - 1]

    def or_expr() -> Any:
        left = and_expr()
        while peek() == ("op", "||"):
            take()
            right = and_expr()
            left = _gv_bool(left, text) or _gv_bool(right, text)
        return left

    def and_expr() -> Any:
        left = cmp_expr()
        while peek() == ("op", "&&"):
            take()
            right = cmp_expr()
            left = _gv_bool(left, text) and _gv_bool(right, text)
        return left

    def cmp_expr() -> Any:
        left = atom()
        tok = peek()
        if tok and tok[0] == "op" and tok[1] in ("==", "!=", "=~", "!~", ">=", "<=", ">", "<"):
            take()
            return _gv_compare(tok[1], left, atom(), text)
        return left

    def atom() -> Any:
        kind, value = take()
        if kind == "val":
            return value
        if value == "(":
            inner = or_expr()
            if take() != ("op", ")"):
                raise ExprError(f"missing ')' in condition {text!r}")
            return inner
        if value == "!":
            return not _gv_bool(atom(), text)
        raise ExprError(f"unexpected {value!r} in condition {text!r}")

    result = or_expr()
    if pos != len(tokens):
        raise ExprError(f"unexpected {tokens[pos][1]!r} in condition {text!r}")
    return _gv_bool(result, text)


def _gv_bool(value: Any, text: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ExprError(f"condition {text!r} does not evaluate to a boolean (got {value!r})")


def _gv_compare(op: str, a: Any, b: Any, text: str) -> bool:
    if op in ("=~", "!~"):
        found = re.search(str(b), str(a)) is not None
        return found if op == "=~" else not found
    if op in ("==", "!="):
        if (isinstance(a, float) and isinstance(b, float)) or type(a) is type(b):
            same = a == b
        else:
            same = _gv_text(a) == _gv_text(b)
        return same if op == "==" else not same
    if isinstance(a, float) and isinstance(b, float):
        return _ordered(op, a, b)
    if isinstance(a, str) and isinstance(b, str):
        return _ordered(op, a, b)
    raise ExprError(f"cannot compare {a!r} {op} {b!r} in condition {text!r}")


def _ordered(op: str, a: Any, b: Any) -> bool:
    return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]


def _gv_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
