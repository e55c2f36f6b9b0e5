"""A parallelism's slots go to the waiters in the run's walk order, not in the order they began to wait."""

from __future__ import annotations

import threading
import time

from aipipe.engine.slots import Slots, WalkOrder


def _queue(slots: Slots, order: WalkOrder, label: str, got: list[str]) -> threading.Thread:
    """A thread that waits for a slot at ``order``, notes ``label`` and gives the slot back; returned once queued."""

    def take() -> None:
        slots.acquire(order)
        got.append(label)
        slots.release()

    queued = len(slots.waiting) + 1
    thread = threading.Thread(target=take)
    thread.start()
    deadline = time.monotonic() + 5
    while len(slots.waiting) < queued and time.monotonic() < deadline:
        time.sleep(0.001)
    return thread


def test_freed_slot_goes_to_first_in_walk_order() -> None:
    slots = Slots(1)
    slots.acquire((0,))
    got: list[str] = []
    threads = [_queue(slots, order, str(order), got) for order in [(2, 1), (1, 5), (2, 0), (1, 5, 0)]]
    assert not got  # all wait while the slot is held
    slots.release()
    for thread in threads:
        thread.join(5)
    assert got == ["(1, 5)", "(1, 5, 0)", "(2, 0)", "(2, 1)"]


def test_equal_orders_keep_their_arrival() -> None:
    slots = Slots(1)
    slots.acquire()
    got: list[str] = []
    threads = [_queue(slots, (3,), label, got) for label in "xyz"]
    slots.release()
    for thread in threads:
        thread.join(5)
    assert got == ["x", "y", "z"]


def test_two_slots_let_two_in_and_queue_the_rest() -> None:
    slots = Slots(2)
    slots.acquire((5,))
    slots.acquire((6,))
    got: list[str] = []
    thread = _queue(slots, (1,), "late", got)
    assert slots.free == 0 and not got
    slots.release()
    thread.join(5)
    assert got == ["late"] and slots.free == 1


def test_unbounded_never_waits() -> None:
    slots = Slots(None)
    for _ in range(100):
        slots.acquire((1,))
    assert slots.free is None and not slots.waiting
