"""A DAG's reconcile pass: the next actions follow from its tasks' states alone, so the pass a restarted driver
makes from stored states is the one the first driver would have made."""

from __future__ import annotations

from typing import Any

from aipipe.engine import graph
from aipipe.engine.reconcile import OMIT, START, DagView, dag_pass

TASKS: list[dict[str, Any]] = [
    {"name": "a"},
    {"name": "b", "depends": "a"},
    {"name": "fix", "depends": "a.Failed"},
    {"name": "after-fix", "depends": "fix"},
    {"name": "c", "depends": "b || fix"},
]


def _view(wanted: set[str] | None = None) -> DagView:
    trees = {t["name"]: graph.task_tree(t) for t in TASKS}
    wanted = wanted or set(trees)
    return DagView([t["name"] for t in TASKS if t["name"] in wanted], trees, frozenset(wanted))


def _state(phase: str) -> graph.TaskState:
    return graph.TaskState(phase=phase, any_succeeded=phase == "Succeeded", all_failed=phase == "Failed")


def test_a_first_pass_starts_only_the_roots() -> None:
    assert dag_pass(_view(), {}, frozenset(), hold=False) == [("a", START)]
    assert dag_pass(_view(), {}, frozenset({"a"}), hold=False) == [], "a started task is not started twice"


def test_omissions_are_followed_through_within_one_pass() -> None:
    actions = dag_pass(_view(), {"a": _state("Succeeded")}, frozenset({"a"}), hold=False)
    # fix is omitted (a did not fail), so after-fix is decided in the same pass: omitted as well
    assert actions == [("b", START), ("fix", OMIT), ("after-fix", OMIT)]


def test_the_pass_from_stored_states_is_the_same_whoever_makes_it() -> None:
    stored = {"a": _state("Failed"), "fix": _state("Succeeded")}
    first = dag_pass(_view(), stored, frozenset({"after-fix"}), hold=False)
    again = dag_pass(_view(), dict(stored), frozenset({"after-fix"}), hold=False)
    assert first == again == [("b", OMIT), ("c", START)]


def test_held_passes_still_omit_but_start_nothing() -> None:
    actions = dag_pass(_view(), {"a": _state("Succeeded")}, frozenset({"a"}), hold=True)
    assert actions == [("fix", OMIT), ("after-fix", OMIT)]


def test_a_held_pass_still_starts_what_an_earlier_driver_left_unfinished() -> None:
    """A run that ended while no driver ran (its deadline passed) must still end the task it had started."""
    actions = dag_pass(_view(), {"a": _state("Succeeded")}, frozenset({"a"}), hold=True, unfinished=frozenset({"b"}))
    assert actions == [("b", START), ("fix", OMIT), ("after-fix", OMIT)]


def test_tasks_outside_the_target_count_as_omitted() -> None:
    # only c is wanted with its ancestors a and b: fix is outside, so c's "b || fix" waits on b alone
    view = _view({"a", "b", "c"})
    assert dag_pass(view, {"a": _state("Succeeded"), "b": _state("Succeeded")}, frozenset({"a", "b"}),
                    hold=False) == [("c", START)]
