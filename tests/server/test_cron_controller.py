"""The CronWorkflow controller over a real run store, with an injected clock (no sleeps).

Runs it creates are not driven here (``start`` records them), so a run stays active until the test
finishes it in the store: that is how Forbid and Replace meet a long-running run.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aipipe.config import load_config
from aipipe.engine.service import EngineService
from aipipe.engine.store import CRON_WORKFLOW
from aipipe.server.cron import CRON_LABEL, SCHEDULED_TIME_ANNOTATION, CronController

NS = "argo"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now.timestamp()

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture
def service(tmp_path: Path) -> EngineService:
    return EngineService(load_config(env={"AIPIPE_HOME": str(tmp_path / "home")}))


def controller(service: EngineService, clock: Clock, started: list[str]) -> CronController:
    return CronController(service, lambda wf, _driver: started.append(wf["metadata"]["name"]), clock)


def put_cron(service: EngineService, name: str = "nightly", **spec: Any) -> dict[str, Any]:
    body = {"metadata": {"name": name},
            "spec": {"workflowSpec": {"entrypoint": "main", "templates": [
                {"name": "main", "container": {"image": "local", "command": ["true"]}}]},
                     "workflowMetadata": {"labels": {"aipipe.dev/trigger": "cron"}}, **spec}}
    return service.store.put_resource(CRON_WORKFLOW, body, NS)


def scheduled_times(service: EngineService, name: str = "nightly") -> list[str]:
    runs = [w for w in service.store.list_workflows(NS) if w["metadata"]["labels"].get(CRON_LABEL) == name]
    return sorted(w["metadata"]["annotations"][SCHEDULED_TIME_ANNOTATION] for w in runs)


def finish(service: EngineService, name: str, phase: str = "Succeeded") -> None:
    workflow = service.store.get_workflow(NS, name)
    workflow["status"]["phase"] = phase
    service.store.save_workflow(workflow)


def status(service: EngineService, name: str = "nightly") -> dict[str, Any]:
    found = service.store.get_resource(CRON_WORKFLOW, name, NS)
    assert found is not None
    return dict(found.get("status") or {})


def test_daily_schedule_across_spring_forward_in_berlin(service: EngineService) -> None:
    clock, started = Clock(at("2026-03-27T12:00:00")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["0 9 * * *"], timezone="Europe/Berlin")
    while clock.now < at("2026-03-31T12:00:00"):
        ctl.tick()
        clock.advance(minutes=10)
    # 09:00 in Berlin is 08:00 UTC before 29 March 2026 (CET) and 07:00 UTC from then on (CEST)
    assert scheduled_times(service) == ["2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z",
                                        "2026-03-30T07:00:00Z", "2026-03-31T07:00:00Z"]
    run = service.store.get_workflow(NS, started[0])
    assert run["metadata"]["labels"][CRON_LABEL] == "nightly"
    assert run["metadata"]["labels"]["aipipe.dev/trigger"] == "cron"
    assert started[0] == f"nightly-{int(at('2026-03-28T08:00:00').timestamp())}"


def test_repeated_local_hour_at_fall_back_runs_once(service: EngineService) -> None:
    clock, started = Clock(at("2026-10-24T12:00:00")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["30 2 * * *"], timezone="Europe/Berlin")
    while clock.now < at("2026-10-26T12:00:00"):
        ctl.tick()
        clock.advance(minutes=5)
    # 02:30 happens twice on 25 October 2026 (CEST, then CET): one run, at the first
    assert scheduled_times(service) == ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]


def test_several_schedules(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:00")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["0 6 * * *", "0 18 * * *"], timezone="UTC")
    while clock.now < at("2026-05-02T00:00:00"):
        ctl.tick()
        clock.advance(minutes=30)
    assert scheduled_times(service) == ["2026-05-01T06:00:00Z", "2026-05-01T18:00:00Z"]


def test_forbid_skips_while_a_run_is_active(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["* * * * *"], timezone="UTC", concurrencyPolicy="Forbid")
    ctl.tick()
    clock.advance(minutes=1)
    assert len(ctl.tick()) == 1
    for _ in range(3):  # the first run is still running at the next three points
        clock.advance(minutes=1)
        assert ctl.tick() == []
    assert [a["name"] for a in status(service)["active"]] == started
    finish(service, started[0])
    clock.advance(minutes=1)
    assert len(ctl.tick()) == 1
    assert status(service)["succeeded"] == 1 and len(started) == 2


def test_replace_stops_the_active_run(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["* * * * *"], timezone="UTC", concurrencyPolicy="Replace")
    ctl.tick()
    clock.advance(minutes=1)
    (first,) = ctl.tick()
    clock.advance(minutes=1)
    (second,) = ctl.tick()
    old = service.store.get_workflow(NS, first)
    # its driver (this process holds the claim) is asked to stop it, as `argo stop` would
    assert str(service.store.stop_requested(old["metadata"]["uid"])).startswith("replaced by cronworkflow")
    assert second in [a["name"] for a in status(service)["active"]]
    assert service.store.stop_requested(service.store.get_workflow(NS, second)["metadata"]["uid"]) is None


def test_allow_runs_concurrently(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["* * * * *"], timezone="UTC")
    ctl.tick()
    for _ in range(3):
        clock.advance(minutes=1)
        ctl.tick()
    assert len(status(service)["active"]) == 3


@pytest.mark.parametrize(("back_at", "deadline", "expected"),
                         [("05:05", 600, 1), ("05:40", 600, 0), ("05:05", None, 0)])
def test_catch_up_after_downtime(service: EngineService, back_at: str, deadline: int | None, expected: int) -> None:
    """Down from 00:01 to ``back_at``: five hourly points missed. The latest one, if at most
    ``startingDeadlineSeconds`` old, starts one run (not five); otherwise none starts."""
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    spec: dict[str, Any] = {"schedules": ["0 * * * *"], "timezone": "UTC"}
    if deadline is not None:
        spec["startingDeadlineSeconds"] = deadline
    put_cron(service, **spec)
    controller(service, clock, started).tick()
    clock.now = at(f"2026-05-01T{back_at}:00")
    back = controller(service, clock, started)
    back.tick()
    back.tick()
    assert len(started) == expected
    if expected:
        assert scheduled_times(service) == ["2026-05-01T05:00:00Z"]
    clock.now = at("2026-05-01T06:00:10")  # and the next point runs as usual
    assert len(back.tick()) == 1


def test_state_survives_a_restart(service: EngineService, tmp_path: Path) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    put_cron(service, schedules=["0 * * * *"], timezone="UTC", startingDeadlineSeconds=600)
    ctl = controller(service, clock, started)
    ctl.tick()
    clock.advance(hours=1)
    assert len(ctl.tick()) == 1
    finish(service, started[0])
    ctl.tick()
    # a new process: the same home, a new service and controller
    again = EngineService(load_config(env={"AIPIPE_HOME": str(tmp_path / "home")}))
    fresh = controller(again, clock, started)
    assert fresh.tick() == []  # the point already ran: not again after the restart
    assert status(again)["lastScheduledTime"] == "2026-05-01T01:00:00Z"
    assert status(again)["succeeded"] == 1
    clock.advance(hours=1)
    assert len(fresh.tick()) == 1


def test_suspend_and_resume(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    cron = put_cron(service, schedules=["* * * * *"], timezone="UTC")
    ctl.tick()
    cron["spec"]["suspend"] = True
    service.store.put_resource(CRON_WORKFLOW, cron, NS)
    clock.advance(minutes=1)
    assert ctl.tick() == []
    cron["spec"]["suspend"] = False
    service.store.put_resource(CRON_WORKFLOW, cron, NS)
    clock.advance(minutes=1)
    assert len(ctl.tick()) == 1


def test_when_guard_skips_a_recent_run(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["0 * * * *"], timezone="UTC",
             when='{{= cronworkflow.lastScheduledTime == nil || cronworkflow.lastScheduledTime < now() - '
                  'duration("3h30m") }}')
    ctl.tick()
    times = []
    for _ in range(8):
        clock.advance(hours=1)
        times += ctl.tick()
    # ticks come 30 s after each point: runs at 01:00, skips 02:00-04:00 (younger than 3h30m), runs at 05:00
    assert scheduled_times(service) == ["2026-05-01T01:00:00Z", "2026-05-01T05:00:00Z"]


def test_history_limits_delete_old_runs(service: EngineService) -> None:
    clock, started = Clock(at("2026-05-01T00:00:30")), list[str]()
    ctl = controller(service, clock, started)
    put_cron(service, schedules=["* * * * *"], timezone="UTC", successfulJobsHistoryLimit=2,
             failedJobsHistoryLimit=1)
    ctl.tick()
    for phase in ("Succeeded", "Failed", "Succeeded", "Failed", "Succeeded"):
        clock.advance(minutes=1)
        (name,) = ctl.tick()
        finish(service, name, phase)
    ctl.tick()
    kept = {w["metadata"]["name"]: w["status"]["phase"] for w in service.store.list_workflows(NS)}
    assert sorted(kept.values()) == ["Failed", "Succeeded", "Succeeded"]
    assert started[3] in kept and started[4] in kept and started[2] in kept
    assert status(service)["succeeded"] == 3 and status(service)["failed"] == 2
