"""The live side of run control inside an executor: the run-level suspend gate, suspend nodes waiting to be
resumed (or set), and shutdown requests (Argo's Stop and Terminate)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from aipipe.engine import control
from aipipe.engine.calls import as_text
from aipipe.engine.nodes import NodeTree
from aipipe.engine.phases import NodePhase
from aipipe.engine.retry import parse_duration
from aipipe.engine.settle import settled
from aipipe.engine.template import Scope, render_deep
from aipipe.errors import UserError

log = logging.getLogger(__name__)
POLL_SECONDS = 0.25


class RunControl:
    """Applies control actions to a running executor's state and lets its threads wait on them."""

    def __init__(self, tree: NodeTree, workflow: dict[str, Any], cancelled: threading.Event,
                 on_shutdown: Callable[[str], None]) -> None:
        self.tree = tree
        self.workflow = workflow
        self.cancelled = cancelled
        self.on_shutdown = on_shutdown
        self.strategy: str | None = None
        self.unsuspended = threading.Event()
        if not (workflow.get("spec") or {}).get("suspend"):
            self.unsuspended.set()
        self._wakeups: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def apply(self, action: dict[str, Any]) -> None:
        """Apply one queued action; one the run's state no longer allows (e.g. a node already resumed) is
        dropped: the service refused what was wrong when the action was asked for."""
        with self.tree.lock:
            try:
                outcome = control.apply(action, self.workflow.get("spec") or {}, dict(self.tree.nodes))
            except UserError as exc:
                log.info("control %s not applied: %s", action.get("action"), exc)
                return
            if outcome.spec:  # replaced, never mutated: a snapshot being written keeps the old dict
                spec = {**(self.workflow.get("spec") or {}), **outcome.spec}
                self.workflow["spec"] = {k: v for k, v in spec.items() if v is not None}
            for nid, record in outcome.nodes.items():
                self.tree.put(nid, **record)
        if "suspend" in outcome.spec:
            (self.unsuspended.clear if outcome.spec["suspend"] else self.unsuspended.set)()
        for nid, record in outcome.nodes.items():
            if record.get("phase") != NodePhase.RUNNING:  # resumed or set to a final phase; outputs alone wake nothing
                self._wakeup(nid).set()
        self.tree.commit()
        strategy = outcome.spec.get("shutdown")
        if strategy and self.strategy is None:
            self.strategy = strategy
            self.on_shutdown(strategy)

    def wait_unsuspended(self) -> None:
        """Block while the run is suspended (``spec.suspend``), unless it is being shut down."""
        while not self.unsuspended.wait(POLL_SECONDS):
            if self.cancelled.is_set() or self.strategy is not None:
                return

    def wait_resumed(self, nid: str, seconds: float | None) -> bool:
        """Wait until the suspend node ``nid`` is resumed or set (True), or ``seconds`` pass or the run
        is cancelled (False)."""
        event = self._wakeup(nid)
        deadline = None if seconds is None else time.monotonic() + seconds
        settled()  # a suspended node: Argo's walk moves on
        while True:
            timeout = POLL_SECONDS if deadline is None else min(POLL_SECONDS, max(deadline - time.monotonic(), 0))
            if event.wait(timeout):
                return True
            if self.cancelled.is_set() or (deadline is not None and time.monotonic() >= deadline):
                return False

    def run_suspend(self, template: dict[str, Any], nid: str, scope: Scope, started: float) -> dict[str, Any]:
        """A ``suspend`` template: wait until resumed or set, or until ``duration`` has passed since the node
        ``started`` (epoch seconds; as Argo's executeSuspend, so a node an earlier driver opened waits only what is
        left). While it waits the node's outputs list the parameters to supply (``valueFrom.supplied``), as in Argo."""
        suspend = render_deep(template.get("suspend") or {}, scope)
        duration = suspend.get("duration")
        seconds = None if duration in (None, "") else max(
            0.0, parse_duration(duration, "suspend.duration") - (time.time() - started))
        declared = [{k: v for k, v in p.items() if k in ("name", "valueFrom", "globalName")}
                    for p in (template.get("outputs") or {}).get("parameters") or [] if p.get("valueFrom")]
        declared = render_deep(declared, scope, "outputs.parameters", lenient=True)  # a default may read the inputs
        if declared:
            self.tree.put(nid, outputs={"parameters": declared})
        self.tree.commit()
        resumed = self.wait_resumed(nid, seconds)
        node = self.tree.get(nid) or {}
        outputs = []
        for param in (node.get("outputs") or {}).get("parameters") or []:
            value_from = param.get("valueFrom") or {}
            named = {k: v for k, v in param.items() if k in ("name", "globalName")}
            if "value" in param:
                outputs.append({**named, "value": as_text(param["value"])})
            elif "default" in value_from:
                outputs.append({**named, "value": as_text(value_from["default"])})
            elif "supplied" in value_from and not resumed:  # as Argo when the duration ends with nothing supplied
                return {"phase": NodePhase.ERROR, "message": f"raw output parameter '{param.get('name')}' has not "
                        "been set and does not have a default value"}
            elif "supplied" in value_from:
                outputs.append({**named, "value": ""})
        result: dict[str, Any] = {"phase": node.get("phase", NodePhase.SUCCEEDED) if resumed else NodePhase.SUCCEEDED}
        if resumed and node.get("message"):
            result["message"] = node["message"]
        return {**result, "outputs": {"parameters": outputs}} if outputs else result

    def _wakeup(self, nid: str) -> threading.Event:
        with self._lock:
            return self._wakeups.setdefault(nid, threading.Event())
