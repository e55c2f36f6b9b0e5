"""Loop items under a workflow ``parallelism`` start only once a slot is free for them (aipipe.engine.itemstart)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from aipipe.engine.slots import Slots
from tests.engine.conftest import EngineRun, nodes_by_display

ITEMS = 40
QUICK = {"name": "quick", "container": {"image": "alpine", "command": ["true"]}}


@contextmanager
def peak_threads() -> Iterator[list[int]]:
    """The most threads alive in this process while the block runs (sampled every 10 ms)."""
    peak = [threading.active_count()]
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], threading.active_count())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield peak
    finally:
        done.set()
        watcher.join()


def _workflow(main: dict[str, Any], parallelism: int = 2) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "items-"},
            "spec": {"entrypoint": "main", "parallelism": parallelism, "templates": [main, QUICK]}}


@pytest.mark.parametrize("kind", ["steps", "dag"])
def test_waiting_items_hold_no_thread(engine: EngineRun, kind: str) -> None:
    loop = {"name": "fan", "template": "quick", "withSequence": {"count": str(ITEMS)}}
    main = {"name": "main", "steps": [[loop]]} if kind == "steps" else {"name": "main", "dag": {"tasks": [loop]}}
    before = threading.active_count()
    with peak_threads() as peak:
        wf = engine.run(_workflow(main))
    assert wf["status"]["phase"] == "Succeeded"
    items = [n for n in wf["status"]["nodes"].values() if n["type"] == "Pod"]
    assert len(items) == ITEMS and all(n["phase"] == "Succeeded" for n in items)
    # a thread each for the two running items and their pipes, not one per waiting item
    assert peak[0] - before < 20, peak[0]


def test_items_start_in_walk_order(engine: EngineRun) -> None:
    loop = {"name": "fan", "template": "quick", "withSequence": {"count": "8"}}
    wf = engine.run(_workflow({"name": "main", "steps": [[loop]]}, parallelism=1))
    started = sorted((n["startedAt"], n["displayName"]) for n in wf["status"]["nodes"].values() if n["type"] == "Pod")
    assert [name for _, name in started] == [f"fan({i}:{i})" for i in range(8)]


def test_a_sibling_step_does_not_wait_behind_the_loop(engine: EngineRun) -> None:
    """A step beside a loop of pods in one group starts at once: the loop's items wait for slots in a feeder
    thread of their own, not in the group's."""
    slow = {"name": "slow", "container": {"image": "alpine", "command": ["sleep", "0.5"]}}
    pause = {"name": "pause", "suspend": {"duration": "0"}}
    main = {"name": "main", "steps": [[{"name": "fan", "template": "slow", "withSequence": {"count": "4"}},
                                       {"name": "beside", "template": "pause"}]]}
    workflow = _workflow(main, parallelism=1)
    workflow["spec"]["templates"] += [slow, pause]
    wf = engine.run(workflow)
    assert wf["status"]["phase"] == "Succeeded"
    nodes = nodes_by_display(wf)
    [beside] = nodes["beside"]
    [last] = nodes["fan(3:3)"]
    assert beside["startedAt"] < last["startedAt"]


def test_a_handed_slot_the_item_never_used_is_given_back() -> None:
    slots = Slots(1)
    slots.acquire((0,))
    slots.run_handed(lambda: None)  # the item ended (refused, failed) before it asked for its slot
    assert slots.free == 1
    slots.acquire((1,))
    got: list[float] = []

    def item() -> None:
        slots.acquire((2,))  # takes the slot it was handed: no wait
        got.append(time.monotonic())
        slots.release()

    slots.run_handed(item)
    assert got and slots.free == 1


def test_a_running_suspend_holds_no_slot_of_its_template(engine: EngineRun) -> None:
    """Template parallelism 1: a suspend beside a pod waits its turn to start but does not hold the slot."""
    pause = {"name": "pause", "suspend": {"duration": "3"}}
    main = {"name": "main", "parallelism": 1, "steps": [[{"name": "hold", "template": "pause"},
                                                         {"name": "job", "template": "quick"}]]}
    workflow = _workflow(main)
    workflow["spec"].pop("parallelism")
    workflow["spec"]["templates"].append(pause)
    wf = engine.run(workflow)
    assert wf["status"]["phase"] == "Succeeded"
    nodes = nodes_by_display(wf)
    [hold], [job] = nodes["hold"], nodes["job"]
    assert job["finishedAt"] < hold["finishedAt"]
