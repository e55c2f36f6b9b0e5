"""How a step's or task's children take ``parallelism`` slots: loop items that start only once the workflow's
``parallelism`` has a slot for them, and the children that hold no slot of their template's while they run.

A loop of pods under a bounded workflow ``parallelism`` used to start a thread for every item at once, each then
queueing for a slot: a 1,000-item loop at parallelism 4 held about 1,000 threads, and every node's fork copied
them all. Argo's controller creates no node for an item that waits for a slot; it creates it when a later
reconcile pass finds one free. So the loop here takes each item's slot first, in the same walk-ordered queue its
item would have joined (:class:`aipipe.engine.slots.Slots`), and only then starts the item, which is handed that
slot; a waiting item holds nothing but its place in the queue.

Only items whose first wait is that slot start this way: a container or script template with no retry node, lock,
cache lookup or daemon before its pod, and a step with no ``when`` or hooks, which Argo decides before the slot.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from aipipe.engine import settle
from aipipe.engine.calls import NodeFailure, TemplateSet
from aipipe.engine.manifest import LEAF_KINDS, StepSpec
from aipipe.engine.runtime import Runtime
from aipipe.engine.slots import Slots, WalkOrder
from aipipe.engine.template import Scope

NO_SLOT_KINDS = ("suspend",)  # template kinds whose running node a template's parallelism does not count


def slot_first_pool(rt: Runtime, step: StepSpec, scope: Scope, tset: TemplateSet) -> Slots | None:
    """The workflow's parallelism, when each item of ``step``'s loop waits for its slot before anything else
    (None: items start at once, each waiting where it must)."""
    pool = rt.pod_slots
    if pool is None or pool.free is None or step.when is not None or step.hooks or rt.spec.get("retryStrategy"):
        return None
    try:
        call = rt.resolve_call(step.source, tset, scope)
    except NodeFailure:
        return None
    head = call.head
    if head.kind not in LEAF_KINDS or head.retry_strategy is not None or head.synchronization or head.daemon:
        return None
    return None if call.template.get("memoize") else pool


def holds_a_slot(rt: Runtime, step: StepSpec, scope: Scope, tset: TemplateSet, slots: Slots) -> bool:
    """Whether ``step``'s node counts against its template's ``parallelism`` (``slots``) while it runs: Argo counts
    a template's active pods, steps and DAGs, not a running suspend (which still waits for a slot to start)."""
    if slots.free is None:  # no parallelism: nothing to count
        return True
    try:
        return rt.resolve_call(step.source, tset, scope).head.kind not in NO_SLOT_KINDS
    except NodeFailure:
        return True


def start_item(rt: Runtime, work: Callable[[], None], order: WalkOrder, pool: Slots | None) -> threading.Thread:
    """Start one loop item's thread; with ``pool``, wait for the item's slot first (the walk moves on meanwhile)
    and hand it over, so the item starts holding it."""
    if pool is None:
        return settle.start(work, rt.walk_in_order())
    pool.acquire(order)
    return settle.start(partial(pool.run_handed, work), True)


def start_feeder(launch: Callable[[list[threading.Thread]], object], in_walk_order: bool) -> threading.Thread:
    """Run ``launch`` (which starts items, adding their threads to the list it is given) in a thread of its own
    that then waits for those items: the caller goes on to its next sibling while items wait for slots."""

    def feed() -> None:
        started: list[threading.Thread] = []
        launch(started)
        settle.settled()
        for thread in started:
            thread.join()

    return settle.start(feed, in_walk_order)
