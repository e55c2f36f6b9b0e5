"""Parses the languages of ``argo.lark`` (expr-lang, ``depends``) into small frozen trees (one parser, built once)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from aipipe.engine.grammar.values import NIL, ExprError


@dataclass(frozen=True)
class Node:
    """An expr-lang or govaluate tree node: ``op`` names the kind, ``args`` its parts."""

    op: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Dep:
    """One ``depends`` operand: a task and the result it asks for (None = the bare form)."""

    task: str
    result: str | None


@dataclass(frozen=True)
class Op:
    """A ``depends`` operator: ``&&``, ``||`` or ``!`` over its operands."""

    op: str
    args: tuple[Any, ...]


RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned", "AnySucceeded", "AllFailed")
# other escapes stay as written, so regular expressions keep their \d, \b, \s ...
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.S)


def _unescape(token: str) -> str:
    body = token[1:-1]
    if token[0] == "`":
        return body
    return _ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1
                       else _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def _number(text: str) -> int | float:
    raw = text.replace("_", "")
    if raw[:2].lower() in ("0x", "0b", "0o"):
        return int(raw, 0)
    return float(raw) if any(c in raw for c in ".eE") else int(raw)


def _binary(op: str, left: Node, right: Node) -> Node:
    return Node("binary", (op, left, right))


class _Build(Transformer[Token, Any]):
    """Turns parse rules into ``Node``/``Dep``/``Op`` trees as the LALR parser reduces them."""

    # ---- expr-lang
    def number(self, a: list[Any]) -> Node:
        return Node("lit", (_number(a[0]),))

    def string(self, a: list[Any]) -> Node:
        return Node("lit", (_unescape(a[0]),))

    def var(self, a: list[Any]) -> Node:
        name = str(a[0])
        if name in ("true", "false"):
            return Node("lit", (name == "true",))
        return Node("lit", (NIL,)) if name == "nil" else Node("var", (name,))

    def args(self, a: list[Any]) -> tuple[Any, ...]:
        return tuple(x for x in a if x is not None)

    def call(self, a: list[Any]) -> Node:
        return Node("call", (str(a[0]), a[1] or ()))

    def stage(self, a: list[Any]) -> Node:
        return Node("call", (str(a[1]), (a[0], *(a[2] or ()))))

    def member_name(self, a: list[Any]) -> str:
        return str(a[0])

    def member(self, a: list[Any]) -> Node:
        return Node("member", (a[0], Node("lit", (a[2],)), a[1] == "?."))

    def index(self, a: list[Any]) -> Node:
        return Node("member", (a[0], a[-1], len(a) == 3))

    def method(self, a: list[Any]) -> Node:
        return Node("method", (a[0], a[2], a[3] or (), a[1] == "?."))

    def slice(self, a: list[Any]) -> Node:
        return Node("slice", (a[0], a[1], a[2]))

    def array(self, a: list[Any]) -> Node:
        return Node("array", a[0] or ())

    def map_key(self, a: list[Any]) -> Node:
        key = a[0]
        if isinstance(key, Node):
            return key
        if key.type == "STRING":
            return Node("lit", (_unescape(key),))
        return Node("lit", (str(key),))

    def pair(self, a: list[Any]) -> tuple[Node, Node]:
        return (a[0], a[1])

    def map(self, a: list[Any]) -> Node:
        return Node("map", tuple(p for p in a if isinstance(p, tuple)))

    def closure(self, a: list[Any]) -> Node:
        return Node("closure", (a[0],))

    def pointer(self, a: list[Any]) -> Node:
        return Node("pointer", (str(a[0])[1:],))

    def pointer_member(self, a: list[Any]) -> Node:
        return Node("member", (Node("pointer", ("",)), Node("lit", (str(a[1]),)), False))

    def let(self, a: list[Any]) -> Node:
        return Node("let", (str(a[0]), a[1], a[2]))

    def sequence(self, a: list[Any]) -> Node:
        return Node("sequence", tuple(a))

    def if_else(self, a: list[Any]) -> Node:
        return Node("ternary", (a[0], a[1], a[2]))

    def ternary(self, a: list[Any]) -> Node:
        return Node("ternary", (a[0], a[1], a[2]))

    def elvis(self, a: list[Any]) -> Node:
        return Node("elvis", (a[0], a[1]))

    def logic(self, a: list[Any]) -> Node:
        return _binary("&&" if a[1] in ("&&", "and") else "||", a[0], a[2])

    def cmp_op(self, a: list[Any]) -> tuple[str, bool]:
        return (str(a[-1]), len(a) == 2 and a[0] is not None)

    def compare(self, a: list[Any]) -> Node:
        result: Node | None = None
        for i in range(1, len(a), 2):
            op, negated = a[i]
            node = _binary(op, a[i - 1], a[i + 1])
            if negated:
                node = Node("unary", ("!", node))
            result = node if result is None else _binary("&&", result, node)
        assert result is not None
        return result

    def range(self, a: list[Any]) -> Node:
        return _binary("..", a[0], a[1])

    def binary(self, a: list[Any]) -> Node:
        return _binary(str(a[1]), a[0], a[2])

    def coalesce(self, a: list[Any]) -> Node:
        return _binary("??", a[0], a[1])

    def not_(self, a: list[Any]) -> Node:
        return Node("unary", ("!", a[1]))

    def sign(self, a: list[Any]) -> Node:
        return Node("unary", (str(a[0]), a[1]))

    # ---- depends
    def dep(self, a: list[Any]) -> Dep:
        name, dot, result = str(a[0]).rpartition(".")
        return Dep(name, result) if dot and result in RESULTS else Dep(str(a[0]), None)

    def dep_and(self, a: list[Any]) -> Op:
        return Op("&&", (a[0], a[-1]))

    def dep_or(self, a: list[Any]) -> Op:
        return Op("||", (a[0], a[-1]))

    def dep_not(self, a: list[Any]) -> Op:
        return Op("!", (a[-1],))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, built on first use (~80 ms). lark's table cache is a pickle, so none is kept."""
    return Lark((Path(__file__).parent / "argo.lark").read_text(), parser="lalr", maybe_placeholders=True,
                start=["expr", "depends"], transformer=_Build())


def _describe(exc: UnexpectedInput, text: str) -> str:
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        if text.rstrip().endswith("!"):  # expr-lang: a `!` after an operand is a token it did not expect
            return f"unexpected token Operator('!') at the end of {text!r}"
        return f"unexpected token EOF: unexpected end of {text!r}"
    if isinstance(exc, UnexpectedToken):
        return f"unexpected token {str(exc.token)!r} at {exc.column - 1} in {text!r}"
    if isinstance(exc, UnexpectedCharacters):
        return f"unexpected character {text[exc.pos_in_stream or 0]!r} at {exc.pos_in_stream} in {text!r}"
    return f"cannot parse {text!r}"


@lru_cache(maxsize=4096)
def parse(text: str, start: str) -> Any:
    """Parse ``text`` as ``expr`` or ``depends``; ExprError names the spot that fails."""
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedInput as exc:
        raise ExprError(_describe(exc, text)) from None
    except LarkError as exc:
        raise ExprError(f"cannot parse {text!r}: {exc}") from None
    if start == "expr":
        _closures_as_arguments(tree, text)
    return tree


def _closures_as_arguments(node: Any, text: str, argument: bool = False) -> None:
    """expr-lang reads ``{…}`` as a closure only as a function's argument (``filter(xs, {# > 1})``); anywhere else
    it opens a map, so a brace-wrapped ``{{steps.a.outputs.result}}`` does not parse."""
    if isinstance(node, tuple):
        for item in node:
            _closures_as_arguments(item, text, argument)
    elif isinstance(node, Node):
        if node.op == "closure" and not argument:
            raise ExprError(f'a map key must be a quoted string, a number, a identifier, or an expression enclosed '
                            f'in parentheses (unexpected token Bracket("{{")) in {text!r}')
        for arg in node.args:
            _closures_as_arguments(arg, text, node.op == "call" and isinstance(arg, tuple))
