"""A Retry node: its attempts ``<node>(0)``, ``<node>(1)``… run until one passes or the strategy says stop.

A daemoned attempt hands the Retry node back ``Running`` at once (its dependants go on); when that daemon's
process later fails by itself (not ended by its boundary, not stopped), the strategy is asked again and the
next attempt starts in the daemon's thread, as Argo retries a daemoned pod that dies (its e2e
``TestDaemonPodRetry``: ``daemoned(0)`` Failed, ``daemoned(1)`` Succeeded, the workflow Succeeded).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine import humanize
from aipipe.engine.calls import STEP_DEADLINE, Call, node_duration
from aipipe.engine.control import shutdown_message
from aipipe.engine.daemons import DaemonRegistry
from aipipe.engine.deadlines import execution_deadline
from aipipe.engine.grammar.values import go_sprint
from aipipe.engine.halt import NodeCancellation
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import iso_epoch
from aipipe.engine.phases import DONE_PHASES, FAILED_PHASES, PASSED_PHASES, NodePhase, plain
from aipipe.engine.retry import LAST_RETRY_VARS, RetryAction, RetryStrategy
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.settle import settled
from aipipe.engine.template import Scope
from aipipe.errors import UserError

# one attempt (call, node, scope, bound inputs, fields of its new node) to its record (Running when daemoned)
RunAttempt = Callable[[Call, NodeRef, Scope, dict[str, Any], Mapping[str, Any]], NodeRecord]


@dataclass
class RetryRun:
    """One Retry node's loop state: which attempt is next and what the last one left (``lastRetry.*``)."""

    nid: str
    ref: NodeRef
    call: Call
    scope: Scope
    inputs: dict[str, Any]
    strategy: RetryStrategy
    attempt: int = 0
    # what the first attempt reads (Argo: "the first node will not have lastRetry variables so they must have
    # default values": exit code and duration 0)
    previous: dict[str, str] = field(default_factory=lambda: {**dict.fromkeys(LAST_RETRY_VARS, ""),
                                                              "lastRetry.exitCode": "0", "lastRetry.duration": "0"})


class RetryNode:
    """Drives Retry nodes: ``run`` returns the node's record (Running while a daemoned attempt serves)."""

    def __init__(self, rt: Runtime, daemons: DaemonRegistry, run_attempt: RunAttempt) -> None:
        self.rt = rt
        self.daemons = daemons
        self.run_attempt = run_attempt

    def run(self, run: RetryRun) -> NodeRecord:
        rt = self.rt
        while True:
            child = run.ref.attempt(run.attempt)
            prior = rt.tree.get(child.id)
            if prior is not None and prior.get("phase") in DONE_PHASES:  # an earlier driver ended it: when it did
                last, ended = prior, iso_epoch(prior.get("finishedAt")) or time.time()
            else:
                scope = run.scope.child({"retries": str(run.attempt), **run.previous}, raw=self._deadline(run, child))
                last = self.run_attempt(run.call, child, scope, run.inputs, {})
                ended = time.time()
            rt.tree.add_child(run.nid, child.id)
            if last.get("daemoned") and self.daemons.follow(
                    child.id, functools.partial(self._daemon_ended, run),
                    functools.partial(rt.tree.put, run.nid, phase=NodePhase.RUNNING, daemoned=True,
                                      podIP=last.get("podIP"))):
                return rt.tree.get(run.nid) or {}
            done = self._after(run, rt.tree.get(child.id) or last, ended)  # a daemon that ended meanwhile: its record
            if done is not None:
                return done

    def _deadline(self, run: RetryRun, child: NodeRef) -> dict[str, Any]:
        """As Argo's processNodeRetries: with a maxDuration, an attempt after the first ends when it passes (counted
        from the first attempt's start), if its pod still runs then ("Step exceeded its deadline")."""
        if run.attempt == 0 or run.strategy.max_duration is None:
            return {}
        return execution_deadline(child.id, self._first_started(run) + run.strategy.max_duration)

    def _first_started(self, run: RetryRun) -> float:
        """When the Retry node's first attempt started (epoch seconds): its maxDuration counts from then."""
        return self.rt.started_at(run.ref.attempt(0).id)

    def _after(self, run: RetryRun, last: NodeRecord, ended: float) -> NodeRecord | None:
        """The Retry node's final record after attempt ``run.attempt`` ended as ``last`` at ``ended`` (epoch
        seconds); None: run the next, once the backoff has passed."""
        rt = self.rt
        phase = last.get("phase", NodePhase.ERROR)
        if phase in PASSED_PHASES:
            return rt.finish_node(run.nid, phase, None, outputs=last.get("outputs"))
        if rt.halted(run.nid) or rt.shutdown or rt.past_deadline():  # no exemption for an exit handler's retries
            return rt.finish_node(run.nid, phase, self._halt_message(last), outputs=last.get("outputs"))
        if last.get("terminal") or self._boundary_done(run.ref):
            return rt.finish_node(run.nid, phase, last.get("message"), outputs=last.get("outputs"))
        run.attempt += 1
        exit_code = str((last.get("outputs") or {}).get("exitCode", ""))
        known = exit_code.lstrip("-").isdigit()
        # as Argo's buildRetryStrategyLocalScope: every value a string ("-1" without an exit code)
        last_retry = {"exitCode": exit_code if known else "-1", "status": plain(phase),
                      "duration": go_sprint(float(node_duration(last))), "message": last.get("message", "")}
        # the next attempt's template reads them too, but "0" without an exit code (Argo's executeTemplate)
        run.previous = {**{f"lastRetry.{k}": v for k, v in last_retry.items()},
                        "lastRetry.exitCode": exit_code if known else "0"}
        while True:  # each pass decides from the stored times; a wait shows "Backoff for …" on the node
            try:
                decision = run.strategy.decide(run.attempt, phase, self._first_started(run), ended,
                                               time.time(), last_retry)
            except UserError as exc:  # as Argo's processNodeRetries: an error its executeTemplate returns
                rt.mark_controller_error(run.nid)
                return rt.finish_node(run.nid, NodePhase.ERROR, str(exc))
            if decision.action == RetryAction.STOP:
                return rt.finish_node(run.nid, phase, decision.message, outputs=last.get("outputs"))
            if decision.action == RetryAction.RETRY:
                return None
            rt.tree.put(run.nid, message=decision.message)
            rt.tree.commit()
            settled()  # backing off: Argo's walk moves on
            if NodeCancellation(rt.cancelled, functools.partial(rt.spared, run.nid)).wait(decision.seconds):
                return rt.finish_node(run.nid, phase, self._halt_message(last), outputs=last.get("outputs"))
            rt.tree.put(run.nid, message=None)  # as Argo once the backoff has passed

    def _halt_message(self, last: NodeRecord) -> str:
        """What a Retry node says once the run's end reaches it (Argo's processNodeRetries, checked before any
        backoff): the shutdown, the passed workflow deadline, or else what its last attempt said."""
        rt = self.rt
        if rt.shutdown:
            return shutdown_message(rt.shutdown)
        if rt.deadline_at is not None and (rt.abort_reason == STEP_DEADLINE or rt.past_deadline()):
            return f"retry exceeded workflow deadline {humanize.go_time(rt.deadline_at)}"
        return str(last.get("message") or rt.stop_reason)

    def _daemon_ended(self, run: RetryRun, phase: str, message: str | None, outputs: Mapping[str, Any] | None) -> None:
        """A daemoned attempt's node is final: the Retry node ends with it, unless the daemon failed by itself
        and the strategy gives it another attempt."""
        rt = self.rt
        with rt.tree.lock:
            rt.tree.nodes.get(run.nid, {}).pop("daemoned", None)
        if phase in FAILED_PHASES and not rt.halted(run.nid):
            last = rt.tree.get(run.ref.attempt(run.attempt).id) or {"phase": phase, "message": message}
            if self._after(run, last, time.time()) is None:
                self.run(run)
            return
        rt.finish_node(run.nid, phase, message, outputs=outputs)

    def _boundary_done(self, ref: NodeRef) -> bool:
        """Whether the steps/DAG node this Retry node belongs to is ending (no new attempt then)."""
        return bool(ref.boundary) and self.daemons.boundary_ended(ref.boundary)
