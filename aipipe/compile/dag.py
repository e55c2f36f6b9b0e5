"""DAG dependency checks: ``depends``/``dependencies`` parsing, unknown tasks and cycles."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from aipipe.compile.diagnostics import Resource

DEPENDS_OPERATORS = re.compile(r"&&|\|\||!|\(|\)")
TASK_RESULTS = ("Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned", "AnySucceeded", "AllFailed")


def depends_tasks(expression: str) -> list[str]:
    """Task names in a ``depends`` expression (``a && (b.Failed || !c)`` -> a, b, c)."""
    names = []
    for token in DEPENDS_OPERATORS.sub(" ", expression).split():
        base, _, result = token.partition(".")
        if not result or result in TASK_RESULTS:
            names.append(base)
        else:
            names.append(token)
    return names


def task_edges(tasks: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Task -> the tasks it names in ``dependencies`` and ``depends``."""
    edges = {}
    for task in tasks:
        deps = list(task.get("dependencies") or [])
        if task.get("depends"):
            deps += depends_tasks(str(task["depends"]))
        edges[str(task.get("name"))] = deps
    return edges


def ancestors(task: str, edges: Mapping[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(edges.get(task, []))
    while todo:
        dep = todo.pop()
        if dep not in seen:
            seen.add(dep)
            todo += edges.get(dep, [])
    return seen


def check_dag(res: Resource, dag: Mapping[str, Any], where: list[str | int], template: str) -> None:
    tasks = [t for t in dag.get("tasks") or [] if isinstance(t, Mapping)]
    names = {str(t.get("name")) for t in tasks}
    edges = task_edges(tasks)
    for i, task in enumerate(tasks):
        field = "depends" if task.get("depends") else "dependencies"
        for dep in edges[str(task.get("name"))]:
            if dep not in names:
                res.report(f"task {task.get('name')!r} depends on unknown task {dep!r}", [*where, "tasks", i, field],
                           template, "cycle")
    cycle = find_cycle({name: [d for d in deps if d in names] for name, deps in edges.items()})
    if cycle:
        index = next(i for i, t in enumerate(tasks) if t.get("name") == cycle[0])
        res.report(f"dependency cycle: {' -> '.join(cycle)}", [*where, "tasks", index], template, "cycle")


def find_cycle(edges: Mapping[str, list[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in edges.get(node, []):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep):], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in edges:
        if node not in state and (found := visit(node)):
            return found
    return None
