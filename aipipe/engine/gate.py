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

    def enter(self, order: WalkOrder) -> bool:
        """Wait for a slot (children in walk order ``order``); False (holding none) when the child must not start."""
        if self.tripped.is_set():
            return False
        self.slots.acquire(order)
        if self.tripped.is_set():
            self.slots.release()
            return False
        return True

    def leave(self, node: Mapping[str, Any] | None) -> None:
        """A child that entered has ended with ``node``."""
        if self.fail_fast and (node or {}).get("phase") in (NodePhase.FAILED, NodePhase.ERROR):
            self.tripped.set()
        self.slots.release()
