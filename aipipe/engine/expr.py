"""Expressions: expr-lang behind ``{{= …}}`` and govaluate's ``when`` conditions (``should_execute``).

The engine's entry points; the grammar (``grammar/argo.lark``), the tree builder and the evaluators
live in ``aipipe.engine.grammar``. ``NIL`` stands for expr's ``nil`` (also the value of an absent
output), distinct from ``""``.
"""

from __future__ import annotations

from typing import Any

from aipipe.engine.grammar.evaluate import Evaluator
from aipipe.engine.grammar.govaluate import should_execute
from aipipe.engine.grammar.parse import Node, parse
from aipipe.engine.grammar.values import NIL, ExprError, to_text

__all__ = ["NIL", "ExprError", "Node", "Parser", "evaluate", "referenced_names", "should_execute", "to_text"]


class Parser:
    """Parses an expr-lang expression (``Parser(text).parse()``: syntax checks without evaluating)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def parse(self) -> Node:
        tree: Node = parse(self.text, "expr")
        return tree


def evaluate(text: str, env: dict[str, Any]) -> Any:
    """Parse (cached) and evaluate an expr-lang expression."""
    return Evaluator(env).eval(parse(text, "expr"))


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

    walk(parse(text, "expr"))
    return names
