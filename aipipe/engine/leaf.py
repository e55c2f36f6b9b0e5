"""Container and script templates: one process each, through :class:`aipipe.engine.pod.PodRunner`."""

from __future__ import annotations

from aipipe.engine.calls import Call
from aipipe.engine.handler import NodeResult
from aipipe.engine.noderef import NodeRef
from aipipe.engine.pod import PodRunner
from aipipe.engine.runtime import Runtime
from aipipe.engine.template import Scope


class LeafHandler:
    """Runs a container or script node's process to its end."""

    def __init__(self, rt: Runtime, pods: PodRunner) -> None:
        self.rt = rt
        self.pods = pods

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        return self.pods.run(node.id, node.name, call, scope, self.rt.tree)
