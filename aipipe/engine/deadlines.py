"""What ends a pod node's run early: its template's own deadline (``activeDeadlineSeconds`` or ``timeout``, counted
from its start), or the execution deadline a Retry node with a ``maxDuration`` gives each attempt after its first
(Argo's ``executeTemplateOpts.executionDeadline``: the first attempt's start plus the maxDuration, which Argo's
executor enforces with its deadline monitor), whichever comes first."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aipipe.engine.calls import STEP_DEADLINE
from aipipe.engine.retry import parse_duration

POD_DEADLINE = "Pod was active on the node longer than the specified deadline"
_EXECUTION_DEADLINE = "__execution_deadline__"  # in a scope's raw values: (the attempt's node id, epoch seconds)


def execution_deadline(nid: str, until: float) -> dict[str, Any]:
    """The raw scope value that ends node ``nid``'s run at ``until`` (epoch seconds), and only that node's: the
    children of a retried steps or dag template inherit the scope but not the deadline, as in Argo."""
    return {_EXECUTION_DEADLINE: (nid, until)}


@dataclass(frozen=True)
class PodLimits:
    """A pod node's limits: its template's own deadline (seconds from its start) and its execution deadline (epoch
    seconds); either may be None."""

    own: float | None
    until: float | None

    def first(self) -> tuple[float, str] | None:
        """Seconds from now until the first limit ends the run, and the message it then fails with (None: none)."""
        limits = [] if self.own is None else [(self.own, POD_DEADLINE)]
        if self.until is not None:
            limits.append((max(self.until - time.time(), 0.0), STEP_DEADLINE))
        return min(limits) if limits else None


def pod_limits(template: Mapping[str, Any], raw: Mapping[str, Any], nid: str) -> PodLimits:
    """Node ``nid``'s limits, from its template and the scope's raw values it runs with."""
    own = [parse_duration(template[key], key) for key in ("activeDeadlineSeconds", "timeout")
           if template.get(key) not in (None, "")]
    owner, until = raw.get(_EXECUTION_DEADLINE) or (None, None)
    return PodLimits(min(own) if own else None, until if owner == nid else None)
