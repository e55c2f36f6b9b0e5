"""Suspend templates: wait for a duration, or until the node or the run is resumed (or the run ends)."""

from __future__ import annotations

from aipipe.engine.calls import Call
from aipipe.engine.handler import NodeResult
from aipipe.engine.noderef import NodeRef
from aipipe.engine.phases import NodePhase
from aipipe.engine.runtime import Runtime
from aipipe.engine.template import Scope


class SuspendHandler:
    """Waits through :class:`aipipe.engine.runcontrol.RunControl`; a run that ends meanwhile fails the node."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        result = self.rt.control.run_suspend(call.template, node.id, scope, self.rt.started_at(node.id))
        if self.rt.cancelled.is_set():
            return {"phase": NodePhase.FAILED, "message": self.rt.stop_reason}
        return result
