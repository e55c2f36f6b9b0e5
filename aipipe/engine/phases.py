"""Argo's node phases and node types as enums (``StrEnum``: each member is its Argo string).

Node records and the workflow status store the plain strings (:func:`plain`), so stored and served
JSON reads exactly as Argo's.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class NodePhase(StrEnum):
    """A node's (and the workflow's) phase."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    ERROR = "Error"
    SKIPPED = "Skipped"
    OMITTED = "Omitted"


class NodeType(StrEnum):
    """A node's ``type``."""

    POD = "Pod"
    CONTAINER = "Container"
    STEPS = "Steps"
    STEP_GROUP = "StepGroup"
    DAG = "DAG"
    TASK_GROUP = "TaskGroup"
    RETRY = "Retry"
    SKIPPED = "Skipped"
    SUSPEND = "Suspend"
    HTTP = "HTTP"
    PLUGIN = "Plugin"


DONE_PHASES = (NodePhase.SUCCEEDED, NodePhase.FAILED, NodePhase.ERROR, NodePhase.SKIPPED, NodePhase.OMITTED)
KEPT_ON_RESUME = (NodePhase.SUCCEEDED, NodePhase.SKIPPED, NodePhase.OMITTED)  # never run again on resume
PASSED_PHASES = KEPT_ON_RESUME  # a node in one of these did not fail its parent
FAILED_PHASES = (NodePhase.FAILED, NodePhase.ERROR)
NOT_RUN = (NodePhase.SKIPPED, NodePhase.OMITTED)  # decided without running (a when, a depends): no hooks


def plain(value: Any) -> Any:
    """``value`` with an enum member replaced by its plain string (what records and JSON hold)."""
    return value.value if isinstance(value, StrEnum) else value
