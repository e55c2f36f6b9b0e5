"""DAG structure: enhanced ``depends`` logic, legacy ``dependencies``, ``target`` selection.

``depends`` is parsed by the shared grammar (``grammar/argo.lark``) into a tree (operands ``task``
or ``task.Result``, ``&&``, ``||``, ``!``, parentheses). A bare ``task`` means ``task.Succeeded ||
task.Skipped || task.Daemoned`` (plus ``Failed``/``Errored`` when the task has ``continueOn`` for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aipipe.engine.grammar.parse import RESULTS, Dep, Op, parse
from aipipe.engine.grammar.values import ExprError
from aipipe.errors import UserError

__all__ = ["RESULTS", "Dep", "Op", "TaskState", "ancestors", "deps_of", "evaluate",
           "find_cycle", "items_conditions", "parse_depends", "task_tree"]


def parse_depends(text: str, where: str = "depends") -> Any:
    """Parse a depends expression (grammar rule ``depends``); bad syntax is a UserError naming the field."""
    try:
        return parse(text, "depends")
    except ExprError as exc:
        raise UserError(str(exc), field=where) from None


def deps_of(tree: Any) -> set[str]:
    if isinstance(tree, Dep):
        return {tree.task}
    return set().union(*(deps_of(a) for a in tree.args))


def items_conditions(tree: Any) -> set[str]:
    """Tasks this expression reads with an items-based result (``X.AnySucceeded``, ``X.AllFailed``)."""
    if tree is None:
        return set()
    if isinstance(tree, Dep):
        return {tree.task} if tree.result in ("AnySucceeded", "AllFailed") else set()
    return set().union(*(items_conditions(a) for a in tree.args))


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
