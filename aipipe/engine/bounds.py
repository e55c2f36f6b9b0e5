"""Bounds on one run: how deep templates may call each other, and how many nodes a run may create.

Argo's controller stops a template call chain at depth 100 ("Maximum recursion depth exceeded")
and the workflow ends ``Error``; the embedded engine does the same, and also caps the nodes of
one run at ``engine.max_nodes`` so a wide fan-out cannot exhaust threads or memory.
"""

from __future__ import annotations

from aipipe.engine.calls import NodeFailure

MAX_STACK_DEPTH = 100
MAX_DEPTH_MESSAGE = ("Maximum recursion depth exceeded. "
                     "See https://argo-workflows.readthedocs.io/en/latest/scaling/#maximum-recursion-depth")


class OverBudget(NodeFailure):
    """A bound of the run was reached: the run ends ``Error`` and no further node is created."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "Error", terminal=True)


def node_cap_message(limit: int) -> str:
    return (f"the run would create more than {limit} nodes (engine.max_nodes); "
            "raise AIPIPE_MAX_NODES if this many are meant")
