"""Waits decided from stored times, as Argo's operator decides them on each pass: a Retry node's backoff (its
processNodeRetries, with "Backoff for …" on the node while it waits, and the deadline its maxDuration sets for the
attempts after the first) and a suspend's duration (executeSuspend), so a resumed run waits only what is left."""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine import humanize
from aipipe.engine.nodes import ISO_FORMAT
from aipipe.engine.retry import RetryAction, RetryStrategy
from tests.engine.conftest import EngineRun, nodes_by_display


@pytest.mark.parametrize(("seconds", "words"), [
    (0, "0 seconds"), (1, "1 second"), (59, "59 seconds"), (60, "1 minute 0 seconds"), (90, "1 minute 30 seconds"),
    (150, "2 minutes 30 seconds"), (3600, "1 hour 0 minutes"), (5400, "1 hour 30 minutes"),
    (7200, "2 hours 0 minutes"), (36000, "10 hours 0 minutes"), (86400, "1 day 0 hours")])
def test_durations_read_as_argo_writes_them(seconds: float, words: str) -> None:
    assert humanize.duration(seconds) == words


def _strategy(**backoff: Any) -> RetryStrategy:
    raw = {"limit": "3", "retryPolicy": backoff.pop("policy", "Always"), "backoff": backoff}
    strategy = RetryStrategy.parse(raw)
    assert strategy is not None
    return strategy


def test_the_wait_is_what_is_left_of_the_backoff_after_the_last_attempt_ended() -> None:
    strategy = _strategy(duration="10s")
    waiting = strategy.decide(1, "Failed", first_started=0, last_ended=100, now=104, last_retry={})
    assert (waiting.action, waiting.message, waiting.seconds) == (RetryAction.WAIT, "Backoff for 10 seconds", 6)
    after = strategy.decide(1, "Failed", first_started=0, last_ended=100, now=111, last_retry={})
    assert after.action == RetryAction.RETRY
    grown = _strategy(duration="30s", factor="3").decide(2, "Failed", 0, last_ended=0, now=1, last_retry={})
    assert grown.message == "Backoff for 1 minute 30 seconds"


def test_a_policy_that_stops_the_retries_stops_them_without_waiting_out_the_backoff() -> None:
    strategy = _strategy(duration="10s", policy="OnError")
    stopped = strategy.decide(1, "Failed", 0, last_ended=100, now=101, last_retry={"message": "exit code 1"})
    assert (stopped.action, stopped.message) == (RetryAction.STOP, "exit code 1")
    assert strategy.decide(1, "Error", 0, last_ended=100, now=101, last_retry={}).action == RetryAction.WAIT


def test_no_wait_once_the_limit_is_spent() -> None:
    stopped = _strategy(duration="10s").decide(4, "Failed", 0, last_ended=100, now=101, last_retry={})
    assert (stopped.action, stopped.message) == (RetryAction.STOP, "No more retries left")


def test_max_duration_counts_from_the_first_attempts_start() -> None:
    strategy = _strategy(duration="10s", maxDuration="60s")
    assert strategy.decide(1, "Failed", first_started=0, last_ended=61, now=61.5, last_retry={}).message == \
        "Max duration limit exceeded"
    assert strategy.decide(1, "Failed", first_started=0, last_ended=55, now=56, last_retry={}).message == \
        "Backoff would exceed max duration limit"


def _failing(markers: Path, backoff: dict[str, str], limit: int = 1) -> dict[str, Any]:
    flaky = {"name": "flaky", "retryStrategy": {"limit": limit, "retryPolicy": "Always", "backoff": backoff},
             "script": {"image": "busybox", "command": ["sh"],
                        "source": f"echo '{{{{retries}}}}' >> {markers}/runs\nexit 1"}}
    return {"metadata": {"name": "backoff"}, "spec": {"entrypoint": "flaky", "templates": [flaky]}}


def _markers(engine: EngineRun) -> Path:
    """A folder the run's nodes can write to (the store), for each attempt to leave a line in."""
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    return markers


def _runs(markers: Path) -> list[str]:
    path = markers / "runs"
    return path.read_text().split() if path.exists() else []


def test_a_waiting_retry_node_says_so_and_drops_it_once_the_wait_has_passed(engine: EngineRun) -> None:
    markers = _markers(engine)
    out = engine.run(_failing(markers, {"duration": "1s"}))
    assert out["status"]["phase"] == "Failed"
    seen = {(n.get("type"), n.get("message")) for change in engine.changes
            for n in (change.get("nodes") or change.get("status", {}).get("nodes") or {}).values()}
    assert ("Retry", "Backoff for 1 second") in seen
    assert nodes_by_display(out)["backoff"][0]["message"] == "No more retries left"
    assert _runs(markers) == ["0", "1"]


def test_an_attempt_after_the_first_ends_when_the_max_duration_passes(engine: EngineRun) -> None:
    """As Argo's executor's deadline monitor: attempt (1) would sleep 60 s, and is ended at the first attempt's
    start plus the maxDuration; the first attempt, which fails at once, has no such deadline."""
    markers = _markers(engine)
    wf = _failing(markers, {"duration": "1s", "maxDuration": "4s"}, limit=3)
    wf["spec"]["templates"][0]["script"]["source"] = (
        f"echo '{{{{retries}}}}' >> {markers}/runs\nif [ {{{{retries}}}} = 0 ]; then exit 1; fi\nsleep 60")
    began = time.monotonic()
    out = engine.run(wf)
    assert time.monotonic() - began < 30, "attempt (1) ran past the max duration"
    nodes = nodes_by_display(out)
    assert (nodes["backoff(1)"][0]["phase"], nodes["backoff(1)"][0]["message"]) == \
        ("Failed", "Step exceeded its deadline")
    assert nodes["backoff"][0]["message"] == "Max duration limit exceeded"
    assert _runs(markers) == ["0", "1"]


def _stamp(ago: float) -> str:
    """A stored ``startedAt``/``finishedAt`` ``ago`` seconds before now."""
    return datetime.fromtimestamp(time.time() - ago, UTC).strftime(ISO_FORMAT)


def _stored_mid_backoff(engine: EngineRun, markers: Path, backoff: dict[str, str], ago: int,
                        limit: int) -> dict[str, Any]:
    """The run as a driver left it that died while the Retry node backed off: attempt (0) ended Failed ``ago``
    seconds earlier (it started a second before that), and the node and the run are still Running."""
    first = engine.run(_failing(markers, {}, limit=0))
    assert first["status"]["phase"] == "Failed" and _runs(markers) == ["0"]
    stored = copy.deepcopy(first)
    stored["spec"]["templates"][0]["retryStrategy"] = {"limit": limit, "retryPolicy": "Always",
                                                      "backoff": backoff}
    nodes = nodes_by_display(stored)
    retry, attempt = nodes["backoff"][0], nodes["backoff(0)"][0]
    attempt.update(startedAt=_stamp(ago + 1), finishedAt=_stamp(ago))
    retry.update(phase="Running", finishedAt=None, message="Backoff for 5 minutes 0 seconds")
    stored["status"].update(phase="Running", finishedAt=None, message=None)
    return stored


def test_a_resumed_run_whose_backoff_passed_while_no_driver_ran_retries_at_once(engine: EngineRun) -> None:
    markers = _markers(engine)
    stored = _stored_mid_backoff(engine, markers, {"duration": "5m"}, ago=400, limit=1)
    began = time.monotonic()
    again = engine.run(stored)
    assert time.monotonic() - began < 120, "it waited the whole backoff again"  # the backoff is 5 minutes
    assert again["status"]["phase"] == "Failed"
    assert _runs(markers) == ["0", "1"]


def test_a_resumed_run_counts_max_duration_from_the_stored_first_attempt(engine: EngineRun) -> None:
    markers = _markers(engine)
    stored = _stored_mid_backoff(engine, markers, {"duration": "1s", "maxDuration": "5m"}, ago=400,
                                 limit=5)
    again = engine.run(stored)
    retry = nodes_by_display(again)["backoff"][0]
    assert (again["status"]["phase"], retry["message"]) == ("Failed", "Max duration limit exceeded")
    assert _runs(markers) == ["0"], "no attempt after the max duration"


def test_a_resumed_suspend_waits_only_what_is_left_of_its_duration(engine: EngineRun) -> None:
    nap = {"metadata": {"name": "nap"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": "nap", "template": "nap"}]]},
        {"name": "nap", "suspend": {"duration": "1s"}}]}}
    stored = copy.deepcopy(engine.run(nap))
    assert stored["status"]["phase"] == "Succeeded"
    stored["spec"]["templates"][1]["suspend"]["duration"] = "5m"
    for node in stored["status"]["nodes"].values():  # the run's root, its step group and the suspend step
        node.update(phase="Running", finishedAt=None)
        if node["type"] == "Suspend":
            node["startedAt"] = _stamp(400)  # 400 s of its 5 minutes had passed when the driver died
    stored["status"].update(phase="Running", finishedAt=None)
    began = time.monotonic()
    again = engine.run(stored)
    assert time.monotonic() - began < 120, "it waited the whole duration again"
    assert again["status"]["phase"] == "Succeeded"
    assert [n["phase"] for n in nodes_by_display(again)["nap"]] == ["Succeeded", "Succeeded"]
