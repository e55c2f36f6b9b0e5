"""The children of one steps or dag template: ``parallelism`` slots and the template's ``failFast``."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from aipipe.engine.calls import int_or_none
from aipipe.engine.manifest import TemplateHead
from aipipe.engine.phases import NodePhase
from aipipe.engine.slots import Slots, WalkOrder
from aipipe.engine.template import Scope, render

FAIL_FAST_MESSAGE = "template has failed or errored children and failFast enabled"  # Argo's words


class ChildGate:
    """At most ``parallelism`` children at once; with ``failFast: true`` on the template, no child starts
    after one has failed or errored (those already running finish)."""

    def __init__(self, template: TemplateHead, scope: Scope) -> None:
        self.slots = Slots(int_or_none(render(template.parallelism, scope)))
        self.fail_fast = template.fail_fast
        self.tripped = threading.Event()

    def enter(self, order: WalkOrder, holds: bool = True) -> bool:
        """Wait for a slot (children in walk order ``order``); False (holding none) when the child must not start.
        A child that does not ``hold`` its slot (a suspend: Argo's count of active children takes only pods, steps
        and DAGs) waits its turn to start and gives the slot back at once."""
        if self.tripped.is_set():
            return False
        self.slots.acquire(order)
        refused = self.tripped.is_set()
        if refused or not holds:
            self.slots.release()
        return not refused

    def stops_at(self, node: Mapping[str, Any]) -> bool:
        """Whether the template's walk stops before the hooks of ``node``, which has just ended: with failFast, a
        failed or errored child (this one or an earlier one) fails the template in Argo's checkParallelism, which
        runs before executeSteps/executeDAG could start the child's exit or lifecycle hooks."""
        return self.fail_fast and (self.tripped.is_set() or node.get("phase") in (NodePhase.FAILED, NodePhase.ERROR))

    def leave(self, node: Mapping[str, Any] | None, held: bool = True) -> None:
        """A child that entered (holding its slot unless ``held`` is false) has ended with ``node``."""
        if self.fail_fast and (node or {}).get("phase") in (NodePhase.FAILED, NodePhase.ERROR):
            self.tripped.set()
        if held:
            self.slots.release()
