"""DAG structure: enhanced ``depends`` logic, legacy ``dependencies``, ``target`` selection.

``depends`` is parsed into an AST (operands ``task`` or ``task.Result``, ``&&``, ``||``, ``!``,
parentheses). A bare ``task`` means ``task.Succeeded || task.Skipped || task.Daemoned`` (plus
``Failed``/``Errored`` when the task has ``continueOn`` for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aipipe.errors import UserError

RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned", "AnySucceeded", "AllFailed")
FAILURE_RESULTS = ("Failed", "Errored", "AllFailed", "AnySucceeded")


@dataclass(frozen=True)
class Dep:
    """One operand: a task and the result it asks for (None = the bare form)."""

    task: str
    result: str | None


@dataclass(frozen=True)
class Op:
    op: str  # "&&", "||", "!"
    args: tuple[Any, ...]


def parse_depends(text: str, where: str = "depends") -> Any:
    """Parse a depends expression; unknown results are a UserError."""
    tokens: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith(("&&", "||"), i):
            tokens.append(text[i:i + 2])
            i += 2
        elif ch in "()!":
            tokens.append(ch)
            i += 1
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in "()!&|":
                j += 1
            if j == i:
                raise UserError(f"unexpected {ch!r} in {text!r}", field=where)
            tokens.append(text[i:j])
            i = j
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise UserError(f"incomplete expression {text!r}", field=where)
        pos += 1
        return tokens[pos - 1]

    def or_expr() -> Any:
        left = and_expr()
        while peek() == "||":
            take()
            left = Op("||", (left, and_expr()))
        return left

    def and_expr() -> Any:
        left = atom()
        while peek() == "&&":
            take()
            left = Op("&&", (left, atom()))
        return left

    def atom() -> Any:
        tok = take()
        if tok == "(":
            inner = or_expr()
            if take() != ")":
                raise UserError(f"missing ')' in {text!r}", field=where)
            return inner
        if tok == "!":
            return Op("!", (atom(),))
        if tok in (")", "&&", "||"):
            raise UserError(f"unexpected {tok!r} in {text!r}", field=where)
        name, dot, result = tok.rpartition(".")
        if dot and result in RESULTS:
            return Dep(name, result)
        return Dep(tok, None)

    tree = or_expr()
    if pos != len(tokens):
        raise UserError(f"unexpected {tokens[pos]!r} in {text!r}", field=where)
    return tree


def deps_of(tree: Any) -> set[str]:
    if isinstance(tree, Dep):
        return {tree.task}
    return set().union(*(deps_of(a) for a in tree.args))


def failure_handled_by(tree: Any) -> set[str]:
    """Tasks whose failure this expression explicitly handles (``X.Failed``, ``X.Errored`` …)."""
    if isinstance(tree, Dep):
        return {tree.task} if tree.result in FAILURE_RESULTS else set()
    return set().union(*(failure_handled_by(a) for a in tree.args))


def task_tree(task: Mapping[str, Any]) -> Any:
    """The dependency expression of a DAG task (``depends`` or legacy ``dependencies``), or None."""
    if task.get("depends"):
        return parse_depends(str(task["depends"]), f"tasks.{task.get('name')}.depends")
    deps = task.get("dependencies") or []
    tree: Any = None
    for dep in deps:
        tree = Dep(dep, None) if tree is None else Op("&&", (tree, Dep(dep, None)))
    return tree


@dataclass(frozen=True)
class TaskState:
    """What ``depends`` needs to know about a finished task."""

    phase: str  # Succeeded Failed Error Skipped Omitted
    continue_failed: bool = False
    continue_error: bool = False
    any_succeeded: bool = False
    all_failed: bool = False
    daemoned: bool = False


def evaluate(tree: Any, states: Mapping[str, TaskState]) -> bool:
    """Evaluate a depends tree once every referenced task has finished."""
    if tree is None:
        return True
    if isinstance(tree, Op):
        if tree.op == "!":
            return not evaluate(tree.args[0], states)
        if tree.op == "&&":
            return all(evaluate(a, states) for a in tree.args)
        return any(evaluate(a, states) for a in tree.args)
    state = states[tree.task]
    phase = state.phase
    if tree.result is None:
        return (phase in ("Succeeded", "Skipped") or state.daemoned
                or (phase == "Failed" and state.continue_failed)
                or (phase == "Error" and state.continue_error))
    return {
        "Succeeded": phase == "Succeeded",
        "Failed": phase == "Failed",
        "Errored": phase == "Error",
        "Skipped": phase == "Skipped",
        "Omitted": phase == "Omitted",
        "Daemoned": state.daemoned,
        "AnySucceeded": state.any_succeeded,
        "AllFailed": state.all_failed,
    }[tree.result]


def ancestors(targets: list[str], trees: Mapping[str, Any]) -> set[str]:
    """The targets and every task they depend on, transitively."""
    seen: set[str] = set()
    stack = list(targets)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = trees.get(name)
        if tree is not None:
            stack.extend(deps_of(tree))
    return seen


def find_cycle(trees: Mapping[str, Any]) -> list[str] | None:
    """A dependency cycle as a list of task names, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        tree = trees.get(name)
        for dep in sorted(deps_of(tree)) if tree is not None else []:
            if state.get(dep) == 1:
                return [*path[path.index(dep):], dep]
            if state.get(dep) is None and dep in trees:
                found = visit(dep)
                if found:
                    return found
        path.pop()
        state[name] = 2
        return None

    for name in trees:
        if name not in state:
            found = visit(name)
            if found:
                return found
    return None
