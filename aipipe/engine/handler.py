"""The one interface every template kind implements (container/script, steps, dag, suspend, http, data)."""

from __future__ import annotations

from typing import Any, Protocol

from aipipe.engine.calls import Call
from aipipe.engine.noderef import NodeRef
from aipipe.engine.template import Scope

# What a handler reports: ``phase`` (a NodePhase), and optionally ``message``, ``outputs``, ``outboundNodes``,
# ``terminal`` (no retry helps) and any other node fields (``progress``…); the driver records it on the node.
NodeResult = dict[str, Any]


class TemplateHandler(Protocol):
    """Runs the body of one template invocation whose node ``node`` already exists (Running)."""

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        """Run to the end; a :class:`aipipe.engine.calls.NodeFailure` ends the node with its phase."""
        ...
