"""The CronWorkflow controller of ``aipipe server``: Argo's scheduling rules over the run store.

Each :meth:`CronController.tick` looks at every stored CronWorkflow: the latest schedule point
(of all its ``schedules``, in its ``timezone``, DST included: croniter works on zone-aware times)
not yet handled is run once, however many were missed, if it is at most ``startingDeadlineSeconds``
old (without one, a point more than :data:`GRACE_SECONDS` late is missed, as Argo skips runs missed
while its controller was down). ``suspend`` and a false ``when`` skip it; ``concurrencyPolicy``
Forbid skips it while a run is active, Replace stops the active runs first. Spawned runs are named
``<cron>-<unix time of the point>`` (so a point never makes two) and carry the
``workflows.argoproj.io/cron-workflow`` label; finished ones beyond the history limits are deleted.
State lives in :class:`~aipipe.server.trigger_store.TriggerStore` and survives a restart; the
CronWorkflow's ``status`` mirrors it. Time comes from an injectable clock (epoch seconds).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter

from aipipe.engine.expr import NIL, ExprError, evaluate, should_execute
from aipipe.engine.service import EngineService
from aipipe.engine.store import COMPLETED_PHASES, CRON_WORKFLOW
from aipipe.engine.wfmeta import SCHEDULED_TIME_ANNOTATION
from aipipe.errors import ConflictError, NotFoundError, UserError
from aipipe.server.trigger_store import CronState, TriggerStore

log = logging.getLogger(__name__)

CRON_LABEL = "workflows.argoproj.io/cron-workflow"
GRACE_SECONDS = 60.0
DEFAULT_SUCCESSFUL_HISTORY, DEFAULT_FAILED_HISTORY = 3, 1
Clock = Callable[[], float]
Starter = Callable[[dict[str, Any], str], None]  # (created run, driver id) -> drive it


def schedules_of(spec: dict[str, Any]) -> list[str]:
    return list(spec.get("schedules") or []) + ([spec["schedule"]] if spec.get("schedule") else [])


def zone(name: str | None) -> tzinfo:
    """The CronWorkflow's ``timezone`` (IANA name); empty means this machine's zone, as Argo's controller."""
    if not name:
        try:
            return ZoneInfo("localtime")
        except (ZoneInfoNotFoundError, ValueError):
            return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise UserError(f"unknown time zone {name!r}", field="spec.timezone") from exc


def latest_point(schedules: list[str], tz: tzinfo, after: float, now: float) -> float | None:
    """The latest schedule point in ``(after, now]`` over all ``schedules``, or None."""
    local_now = datetime.fromtimestamp(now, UTC).astimezone(tz) + timedelta(microseconds=1)
    best: float | None = None
    for schedule in schedules:
        point = croniter(schedule, local_now).get_prev(datetime).timestamp()
        if after < point <= now and (best is None or point > best):
            best = point
    return best


def next_point(schedules: list[str], tz: tzinfo, now: float) -> float | None:
    local_now = datetime.fromtimestamp(now, UTC).astimezone(tz)
    points = [croniter(s, local_now).get_next(datetime).timestamp() for s in schedules]
    return min(points) if points else None


def rfc3339(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class CronController:
    """Schedules the stored CronWorkflows; ``start`` drives a created run (the server's RunManager)."""

    def __init__(self, service: EngineService, start: Starter, clock: Clock = time.time,
                 triggers: TriggerStore | None = None) -> None:
        self.service = service
        self.start = start
        self.clock = clock
        self.triggers = triggers or TriggerStore.from_home(service.cfg.home)

    def tick(self) -> list[str]:
        """One pass over every CronWorkflow; returns the names of the runs it created."""
        now = self.clock()
        crons = self.service.store.list_resources(CRON_WORKFLOW)
        created: list[str] = []
        runs: dict[str, list[dict[str, Any]]] = {}  # namespace -> its runs, read once per tick
        for cron in crons:
            namespace = cron["metadata"]["namespace"]
            if namespace not in runs:
                runs[namespace] = self.service.store.list_workflows(namespace)
            try:
                name = self._reconcile(cron, now, runs[namespace])
            except (UserError, ExprError) as exc:
                meta = cron.get("metadata", {})
                log.warning("cronworkflow %s/%s: %s", meta.get("namespace"), meta.get("name"), exc)
                continue
            if name:
                created.append(name)
        self.triggers.forget_cron_states(c["metadata"]["uid"] for c in crons)
        return created

    def _reconcile(self, cron: dict[str, Any], now: float, runs: list[dict[str, Any]]) -> str | None:
        meta, spec = cron["metadata"], cron.get("spec") or {}
        namespace, name, uid = meta["namespace"], meta["name"], meta["uid"]
        stored = self.triggers.cron_state(uid)
        state = stored or CronState(considered=now)
        before = dict(state.__dict__) if stored else None
        children = [w for w in runs if (w["metadata"].get("labels") or {}).get(CRON_LABEL) == name]
        self._count_finished(state, children)
        self._trim_history(spec, children)
        active = [w for w in children if w.get("status", {}).get("phase") not in COMPLETED_PHASES]
        created = None
        point = latest_point(schedules_of(spec), zone(spec.get("timezone")), state.considered, now)
        if point is not None:
            state.considered = point
            created = self._run_point(cron, state, active, point, now)
            if created is not None:
                active = [w for w in active if w.get("status", {}).get("phase") not in COMPLETED_PHASES]
                active.append(created)
        if state.__dict__ != before:  # a write only when something changed, not every tick
            self.triggers.save_cron_state(uid, namespace, name, state)
        self._write_status(cron, state, active)
        return created["metadata"]["name"] if created is not None else None

    def _run_point(self, cron: dict[str, Any], state: CronState, active: list[dict[str, Any]], point: float,
                   now: float) -> dict[str, Any] | None:
        meta, spec = cron["metadata"], cron.get("spec") or {}
        label = f"cronworkflow {meta['namespace']}/{meta['name']} at {rfc3339(point)}"
        deadline = spec.get("startingDeadlineSeconds")
        late = now - point
        if late > (float(deadline) if deadline is not None else GRACE_SECONDS):
            log.info("%s: missed (%.0f s late)", label, late)
            return None
        if spec.get("suspend"):
            log.info("%s: suspended", label)
            return None
        if spec.get("when") and not self._when(cron, state, now):
            log.info("%s: skipped (when %r is false)", label, spec["when"])
            return None
        policy = spec.get("concurrencyPolicy") or "Allow"
        if active and policy == "Forbid":
            log.info("%s: skipped (Forbid: %s still running)", label, active[0]["metadata"]["name"])
            return None
        if active and policy == "Replace":
            for run in active:
                self.service.stop(run["metadata"]["name"], meta["namespace"], f"replaced by {label}")
        created = self._submit(cron, point)
        if created is not None:
            state.last_scheduled = point
        return created

    def _submit(self, cron: dict[str, Any], point: float) -> dict[str, Any] | None:
        meta, spec = cron["metadata"], cron.get("spec") or {}
        wf_meta = spec.get("workflowMetadata") or {}
        workflow = {
            "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
            "metadata": {"name": f"{meta['name']}-{int(point)}",
                         "labels": {**(wf_meta.get("labels") or {}), CRON_LABEL: meta["name"]},
                         "annotations": {**(wf_meta.get("annotations") or {}),
                                         SCHEDULED_TIME_ANNOTATION: rfc3339(point)}},
            "spec": spec.get("workflowSpec") or {},
        }
        driver_id = uuid.uuid4().hex
        try:
            created = self.service.submit(workflow, meta["namespace"], driver_id=driver_id)
        except ConflictError:  # this point already made its run (before a restart)
            return None
        log.info("cronworkflow %s/%s: started %s", meta["namespace"], meta["name"], created["metadata"]["name"])
        self.start(created, driver_id)
        return created

    def _when(self, cron: dict[str, Any], state: CronState, now: float) -> bool:
        """Argo's ``when``: ``{{= expr}}`` (expr-lang) or ``{{cronworkflow.…}}`` substituted into a condition.

        ``cronworkflow.lastScheduledTime`` is epoch seconds (nil before the first run), measured so that
        ``now()`` minus it is the age by this controller's clock."""
        meta = cron["metadata"]
        last = NIL if state.last_scheduled is None else state.last_scheduled + (time.time() - now)
        env = {"cronworkflow": {"name": meta["name"], "namespace": meta["namespace"],
                                "labels": meta.get("labels") or {}, "annotations": meta.get("annotations") or {},
                                "failed": state.failed, "succeeded": state.succeeded, "lastScheduledTime": last}}
        text = str(cron["spec"]["when"]).strip()
        whole = re.fullmatch(r"\{\{=(.*)\}\}", text, re.DOTALL)
        if whole:
            return bool(evaluate(whole.group(1), env)) is True

        def plain(match: re.Match[str]) -> str:
            value: Any = env
            for part in match.group(1).strip().split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
            return "" if value is NIL else str(value)

        return should_execute(re.sub(r"\{\{\s*([\w.]+)\s*\}\}", plain, text))

    @staticmethod
    def _count_finished(state: CronState, children: list[dict[str, Any]]) -> None:
        present = {w["metadata"]["name"] for w in children}
        counted = [n for n in state.counted if n in present]
        for w in children:
            phase, child = w.get("status", {}).get("phase"), w["metadata"]["name"]
            if phase in COMPLETED_PHASES and child not in counted:
                counted.append(child)
                if phase == "Succeeded":
                    state.succeeded += 1
                else:
                    state.failed += 1
        state.counted = counted

    def _trim_history(self, spec: dict[str, Any], children: list[dict[str, Any]]) -> None:
        """Delete finished runs beyond ``successfulJobsHistoryLimit`` / ``failedJobsHistoryLimit`` (oldest first)."""
        limits = {"Succeeded": spec.get("successfulJobsHistoryLimit", DEFAULT_SUCCESSFUL_HISTORY),
                  "Failed": spec.get("failedJobsHistoryLimit", DEFAULT_FAILED_HISTORY)}
        for phase, limit in limits.items():
            done = [w for w in children if (w.get("status", {}).get("phase") == "Succeeded") == (phase == "Succeeded")
                    and w.get("status", {}).get("phase") in COMPLETED_PHASES]
            done.sort(key=lambda w: w["metadata"]["name"], reverse=True)  # <cron>-<unix time>: newest first
            for old in done[int(limit):]:
                try:
                    self.service.delete(old["metadata"]["name"], old["metadata"]["namespace"])
                except NotFoundError:
                    continue
                children.remove(old)

    def _write_status(self, cron: dict[str, Any], state: CronState, active: list[dict[str, Any]]) -> None:
        status: dict[str, Any] = {
            "active": [{"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                        "namespace": w["metadata"]["namespace"], "name": w["metadata"]["name"],
                        "uid": w["metadata"]["uid"]} for w in active],
            "succeeded": state.succeeded, "failed": state.failed,
            "phase": "Active", "conditions": [],
        }
        if state.last_scheduled is not None:
            status["lastScheduledTime"] = rfc3339(state.last_scheduled)
        if cron.get("status") == status:
            return
        fresh = self.service.store.get_resource(CRON_WORKFLOW, cron["metadata"]["name"], cron["metadata"]["namespace"])
        if fresh is None or fresh["metadata"].get("uid") != cron["metadata"]["uid"]:
            return
        fresh["status"] = status
        self.service.store.put_resource(CRON_WORKFLOW, fresh, cron["metadata"]["namespace"], must_exist=True)
