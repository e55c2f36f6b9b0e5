"""One reconcile pass over a DAG, in the spirit of Argo's operator: from the states of its tasks (what the node
records say), the next actions, with no side effect. :mod:`aipipe.engine.dag` applies them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aipipe.engine import graph
from aipipe.engine.phases import NodePhase

OMIT = "omit"  # its depends is decided false: an Omitted node, and it counts as Omitted for its dependants
START = "start"  # its depends is decided true: it runs now


@dataclass(frozen=True)
class DagView:
    """What a pass reads: the tasks the DAG's target needs (``wanted``) in the template's order, and every
    task's ``depends`` tree (None: no dependency)."""

    order: Sequence[str]
    trees: Mapping[str, Any]
    wanted: frozenset[str]


def dag_pass(view: DagView, states: Mapping[str, graph.TaskState], busy: frozenset[str],
             hold: bool, unfinished: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The actions of one pass, in the order they are to be taken: ``(task, OMIT|START)``.

    ``states`` are the finished tasks'; ``busy`` the tasks already started or held back for good; ``hold`` is
    true while nothing new may start (failFast tripped, run cancelled); ``unfinished`` tasks, whose nodes an
    earlier driver opened and left unfinished, start even then: nothing new starts, and their node must still end
    (a cancelled run fails it), as Argo's controller ends the pods it finds running. Omissions are followed through
    within the pass: a task decided by an omission made earlier in it is decided in the same pass.
    """
    decided = dict(states)
    actions: list[tuple[str, str]] = []
    taken: set[str] = set(busy)
    while True:
        before = len(actions)
        for tname in view.order:
            if tname in decided or tname in taken:
                continue
            tree = view.trees[tname]
            deps = (graph.deps_of(tree) if tree is not None else set()) & view.wanted
            if any(d not in decided for d in deps):
                continue
            if tree is not None and not graph.evaluate(tree, {**{d: decided[d] for d in deps},
                                                              **_outside_as_omitted(tree, decided)}):
                actions.append((tname, OMIT))
                decided[tname] = graph.TaskState(phase=NodePhase.OMITTED)
                continue
            if hold and tname not in unfinished:
                continue
            actions.append((tname, START))
            taken.add(tname)
        if len(actions) == before:
            return actions


def _outside_as_omitted(tree: Any, states: Mapping[str, graph.TaskState]) -> dict[str, graph.TaskState]:
    """Tasks outside the DAG's target set count as Omitted in depends expressions."""
    return {d: graph.TaskState(phase=NodePhase.OMITTED) for d in graph.deps_of(tree) if d not in states}
