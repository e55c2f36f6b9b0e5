"""Resume is the normal path: every invocation starts from its node's stored state, whoever stored it."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from aipipe.engine.service import formulate_retry
from tests.engine.conftest import EngineRun, nodes_by_display


def _workflow(markers: Path) -> dict[str, Any]:
    mark = {"name": "mark", "inputs": {"parameters": [{"name": "id"}, {"name": "got", "value": "-"}]},
            "script": {"image": "busybox", "command": ["sh"],
                       "source": f"echo '{{{{inputs.parameters.got}}}}' >> {markers}/{{{{inputs.parameters.id}}}}\n"
                                 "echo made-by-{{inputs.parameters.id}}"}}
    steps = [[{"name": "a", "template": "mark", "arguments": {"parameters": [{"name": "id", "value": "a"}]}}],
             [{"name": "b", "template": "mark", "arguments": {"parameters": [
                 {"name": "id", "value": "b"}, {"name": "got", "value": "{{steps.a.outputs.result}}"}]}}]]
    return {"metadata": {"name": "stored-state"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": steps}, mark]}}


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_stored_nodes_decide_what_runs_again(engine: EngineRun) -> None:
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    first = engine.run(_workflow(markers))
    assert first["status"]["phase"] == "Succeeded"
    assert _lines(markers / "a") == ["-"] and _lines(markers / "b") == ["made-by-a"]

    # the store is the truth: a Succeeded node is taken with the outputs stored for it (here ones its
    # process never printed), and a node an earlier driver left Running runs again as the same node
    stored = _stored_with_b(first, "Running")
    a, b = nodes_by_display(stored)["a"][0], nodes_by_display(stored)["b"][0]
    again = engine.run(stored)
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    assert _lines(markers / "a") == ["-"], "a Succeeded node never runs again"
    assert _lines(markers / "b") == ["made-by-a", "from-the-store"]
    after = nodes_by_display(again)
    assert after["a"][0]["startedAt"] == a["startedAt"] and after["a"][0]["outputs"]["result"] == "from-the-store"
    assert after["b"][0]["phase"] == "Succeeded" and after["b"][0]["id"] == b["id"]
    assert len(after["b"]) == 1


def _stored_with_b(first: dict[str, Any], phase: str) -> dict[str, Any]:
    """``first`` as a driver left it that died after step b was stored ``phase``: a's result is one its process
    never printed, and the run and b's group are still Running."""
    stored = copy.deepcopy(first)
    nodes = nodes_by_display(stored)
    a, b = nodes["a"][0], nodes["b"][0]
    a["outputs"] = {**a.get("outputs", {}), "result": "from-the-store"}
    b.update(phase=phase, message="failed before" if phase == "Failed" else None, finishedAt=None)
    for name in ("stored-state", "[1]"):
        nodes[name][0].update(phase="Running", finishedAt=None)
    stored["status"]["phase"] = "Running"
    return stored


def test_a_node_an_earlier_driver_ended_failed_is_not_run_again(engine: EngineRun) -> None:
    """As Argo's operator after a controller restart: the stored Failed node stands and fails its group."""
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    again = engine.run(_stored_with_b(engine.run(_workflow(markers)), "Failed"))
    assert again["status"]["phase"] == "Failed"
    assert (nodes_by_display(again)["b"][0]["phase"], nodes_by_display(again)["b"][0]["message"]) == \
        ("Failed", "failed before")
    assert _lines(markers / "b") == ["made-by-a"], "b ran once, in the first driver"


def test_a_step_group_an_earlier_driver_ended_failed_fails_its_steps(engine: EngineRun) -> None:
    """The driver died after storing b's group Failed and before the steps node: the resumed steps node fails with
    the group's message (Argo's executeSteps), and no later group starts."""
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    stored = _stored_with_b(engine.run(_workflow(markers)), "Failed")
    nodes_by_display(stored)["[1]"][0].update(phase="Failed", message="child 'stored-state[1].b' failed")
    again = engine.run(stored)
    assert again["status"]["phase"] == "Failed"
    assert nodes_by_display(again)["stored-state"][0]["message"] == "child 'stored-state[1].b' failed"
    assert _lines(markers / "b") == ["made-by-a"]


def _global_workflow(markers: Path) -> dict[str, Any]:
    make = {"name": "make", "script": {"image": "busybox", "command": ["sh"], "source": "printf from-a > /tmp/p"},
            "outputs": {"parameters": [{"name": "p", "valueFrom": {"path": "/tmp/p"}, "globalName": "g"}]}}
    use = {"name": "use", "inputs": {"parameters": [{"name": "v"}]},
           "script": {"image": "busybox", "command": ["sh"],  # fails once, then says what it got
                      "source": f"[ -e {markers}/failed ] || {{ touch {markers}/failed; exit 1; }}\n"
                                "echo got-{{inputs.parameters.v}}"}}
    steps = [[{"name": "a", "template": "make"}],
             [{"name": "b", "template": "use", "arguments": {"parameters": [
                 {"name": "v", "value": "{{workflow.outputs.parameters.g}}"}]}}]]
    return {"metadata": {"name": "stored-globals"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": steps}, make, use]}}


def test_a_retried_run_keeps_the_workflow_outputs_its_kept_nodes_published(engine: EngineRun) -> None:
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    first = engine.run(_global_workflow(markers))
    assert first["status"]["phase"] == "Failed"
    assert nodes_by_display(first)["b"][0]["inputs"]["parameters"][0]["value"] == "from-a"
    retried = formulate_retry(first)  # as `aipipe retry`: a is kept, b and status.outputs are dropped
    assert "outputs" not in retried["status"] and "b" not in nodes_by_display(retried)

    again = engine.run(retried)
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    after = nodes_by_display(again)
    assert after["a"][0]["startedAt"] == nodes_by_display(first)["a"][0]["startedAt"]
    assert after["b"][0]["outputs"]["result"] == "got-from-a"
    assert again["status"]["outputs"]["parameters"] == [{"name": "g", "value": "from-a"}]


def test_a_hook_an_earlier_driver_fired_but_never_ran_fires_again(engine: EngineRun) -> None:
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    hook = {"name": "hook", "script": {"image": "busybox", "command": ["sh"], "source": f"echo x >> {markers}/hook"}}
    work = {"name": "work", "script": {"image": "busybox", "command": ["sh"], "source": f"echo x >> {markers}/a"}}
    step = {"name": "a", "template": "work",
            "hooks": {"done": {"expression": 'steps.a.status == "Succeeded"', "template": "hook"}}}
    workflow = {"metadata": {"name": "stored-hook"},
                "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": [[step]]}, work, hook]}}
    first = engine.run(copy.deepcopy(workflow))
    assert first["status"]["phase"] == "Succeeded" and _lines(markers / "hook") == ["x"]

    # the driver died after creating the hook's node (Pending, not started) and before running it
    stored = copy.deepcopy(first)
    nodes = nodes_by_display(stored)
    [fired] = [n for n in stored["status"]["nodes"].values() if ".hooks.done" in n["name"]]
    for key in ("startedAt", "finishedAt", "outputs", "templateName", "templateScope", "inputs"):
        fired.pop(key, None)
    fired["phase"] = "Pending"
    for name in ("stored-hook", "[0]"):
        nodes[name][0].update(phase="Running", finishedAt=None)
    stored["status"]["phase"] = "Running"

    again = engine.run(stored)
    assert again["status"]["phase"] == "Succeeded"
    assert _lines(markers / "a") == ["x"] and _lines(markers / "hook") == ["x", "x"]
    assert again["status"]["nodes"][fired["id"]]["phase"] == "Succeeded"


def test_a_hook_whose_steps_were_running_runs_them_again_once(engine: EngineRun) -> None:
    """The dead driver left a workflow hook's steps template and its step running; only the hook is started again
    from its stored node, and it runs its step (whose name also holds ".hooks."), not a second copy beside it."""
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    notify = {"name": "notify", "steps": [[{"name": "send", "template": "send",
                                            "arguments": {"parameters": [{"name": "what", "value": "x"}]}}]]}
    send = {"name": "send", "inputs": {"parameters": [{"name": "what"}]},
            "script": {"image": "busybox", "command": ["sh"],
                       "source": f"echo {{{{inputs.parameters.what}}}} >> {markers}/sent; sleep 0.3"}}
    nap = {"name": "nap", "container": {"image": "busybox", "command": ["sleep", "0.5"]}}
    on_start = {"expression": 'workflow.status == "Running"', "template": "notify"}
    workflow = {"metadata": {"name": "stored-hook-steps"}, "spec": {
        "entrypoint": "main", "hooks": {"on-start": on_start},
        "templates": [{"name": "main", "steps": [[{"name": "first", "template": "nap"}]]}, nap, notify, send]}}
    first = engine.run(copy.deepcopy(workflow))
    assert first["status"]["phase"] == "Succeeded" and _lines(markers / "sent") == ["x"]

    # the driver died while the hook's step ran
    stored = copy.deepcopy(first)
    for node in stored["status"]["nodes"].values():
        node.update(phase="Running", finishedAt=None)
        node.pop("outputs", None)
    stored["status"]["phase"] = "Running"

    again = engine.run(stored)
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    hook_nodes = {n["name"]: (n["phase"], n.get("message")) for n in again["status"]["nodes"].values()
                  if ".hooks." in n["name"]}
    assert hook_nodes == {"stored-hook-steps.hooks.on-start": ("Succeeded", None),
                          "stored-hook-steps.hooks.on-start[0]": ("Succeeded", None),
                          "stored-hook-steps.hooks.on-start[0].send": ("Succeeded", None)}
    assert _lines(markers / "sent") == ["x", "x"]


def _run_memoized_pair(engine: EngineRun, name: str, cache: str) -> tuple[dict[str, Any], str]:
    """Run job-a then job-b, one memoized template with one key (job-b hits); the run and job-a's output."""
    stamp = {"name": "stamp", "memoize": {"key": "one-key", "cache": {"configMap": {"name": cache}}},
             "script": {"image": "busybox", "command": ["sh"], "source": "date +%s%N > /tmp/stamp"},
             "outputs": {"parameters": [{"name": "stamp", "valueFrom": {"path": "/tmp/stamp"}}]}}
    workflow = {"metadata": {"name": name}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": "job-a", "template": "stamp"}], [{"name": "job-b", "template": "stamp"}]]},
        stamp]}}
    first = engine.run(workflow)
    assert first["status"]["phase"] == "Succeeded"
    return first, str(nodes_by_display(first)["job-a"][0]["outputs"]["parameters"][0]["value"])


def _resume_and_see_job_b_hit(engine: EngineRun, stored: dict[str, Any], saved: str) -> None:
    again = engine.run(stored)
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    [job_b] = nodes_by_display(again)["job-b"]
    assert job_b["memoizationStatus"]["hit"] is True
    assert job_b["outputs"]["parameters"][0]["value"] == saved


def test_a_memoized_node_an_earlier_driver_left_running_looks_the_cache_up_first(engine: EngineRun) -> None:
    """It runs again, so it is looked up as a node about to be created: the entry its sibling saved is a hit."""
    first, saved = _run_memoized_pair(engine, "stored-memo", "stored-cache")

    # the driver died while job-b ran (job-a had saved its entry)
    stored = copy.deepcopy(first)
    nodes = nodes_by_display(stored)
    for key in ("finishedAt", "outputs", "pid"):
        nodes["job-b"][0].pop(key, None)
    nodes["job-b"][0].update(phase="Running", memoizationStatus={"hit": False, "key": "one-key",
                                                                 "cacheName": "stored-cache"})
    for name in ("stored-memo", "[1]"):
        nodes[name][0].update(phase="Running", finishedAt=None)
    stored["status"]["phase"] = "Running"

    _resume_and_see_job_b_hit(engine, stored, saved)


def test_a_workflow_hook_that_could_not_run_ends_the_resumed_run_again(engine: EngineRun) -> None:
    """Its node ended Error without starting (its template is missing); the run the dead driver was ending goes on
    in a new driver: the hook fires again, errs again, and the run ends Error as it would have."""
    workflow = {"metadata": {"name": "stored-wf-hook"}, "spec": {
        "entrypoint": "main",
        "hooks": {"running": {"expression": 'workflow.status == "Running"', "template": "absent"}},
        "templates": [{"name": "main", "steps": [[{"name": "first", "template": "nap"}]]},
                      {"name": "nap", "container": {"image": "busybox", "command": ["sleep", "0.2"]}}]}}
    first = engine.run(copy.deepcopy(workflow))
    assert first["status"]["phase"] == "Error"

    # the driver died once the hook's node had ended Error, before anything else recorded the run's end
    stored = copy.deepcopy(first)
    for node in stored["status"]["nodes"].values():
        if ".hooks." not in node["name"]:
            node.update(phase="Running", finishedAt=None)
            node.pop("message", None)
    stored["status"].update(phase="Running", message=None)
    again = engine.run(stored)
    assert again["status"]["phase"] == "Error"
    assert "template 'absent' not found" in again["status"]["message"]


def test_a_stored_memoized_node_without_its_entry_has_it_saved_so_its_key_hits_later(engine: EngineRun) -> None:
    """The dead driver had stored job-a Succeeded but not yet its cache entry (Argo saves the entry first); the
    resume saves it, so job-b takes job-a's outputs instead of running."""
    first, saved = _run_memoized_pair(engine, "kept-memo", "kept-cache")

    # the driver died right after storing job-a Succeeded: no entry yet, job-b not created
    shutil.rmtree(engine.home / "configmaps" / "kept-cache")
    stored = copy.deepcopy(first)
    nodes = nodes_by_display(stored)
    gone = {nodes[name][0]["id"] for name in ("job-b", "[1]")}
    for nid in gone:
        del stored["status"]["nodes"][nid]
    for node in stored["status"]["nodes"].values():
        node["children"] = [c for c in node.get("children", []) if c not in gone]
    nodes["kept-memo"][0].update(phase="Running", finishedAt=None)
    stored["status"]["phase"] = "Running"

    _resume_and_see_job_b_hit(engine, stored, saved)


def test_a_task_an_earlier_driver_ended_decides_its_dependants_after_the_deadline(engine: EngineRun) -> None:
    """The run's deadline stopped `long`, and the driver died before `after` was decided; the new driver finds the
    deadline passed: nothing may start, `long`'s stored Failed state decides `after` (Omitted), and `long` does
    not run again (examples/timeouts-workflow.yaml, the crash sweep's seed 4)."""
    markers = engine.home / "store" / "markers"
    markers.mkdir(parents=True)
    nap = {"name": "nap",
           "container": {"image": "busybox", "command": ["sh", "-c", f"echo x >> {markers}/nap; sleep 3"]}}
    dag = {"tasks": [{"name": "long", "template": "nap"},
                     {"name": "after", "template": "nap", "dependencies": ["long"]}]}
    workflow = {"metadata": {"name": "stored-deadline"},
                "spec": {"entrypoint": "main", "activeDeadlineSeconds": 1,
                         "templates": [{"name": "main", "dag": dag}, nap]}}
    first = engine.run(workflow)
    assert first["status"]["phase"] == "Failed" and nodes_by_display(first)["after"][0]["phase"] == "Omitted"

    stored = copy.deepcopy(first)
    [after] = nodes_by_display(stored)["after"]
    del stored["status"]["nodes"][after["id"]]
    for node in stored["status"]["nodes"].values():
        node["children"] = [c for c in node.get("children", []) if c != after["id"]]
    nodes_by_display(stored)["stored-deadline"][0].update(phase="Running", finishedAt=None, message=None)
    stored["status"].update(phase="Running", finishedAt=None)

    again = engine.run(stored)
    assert again["status"]["phase"] == "Failed"
    long_after = nodes_by_display(again)["long"][0]
    assert nodes_by_display(again)["after"][0]["phase"] == "Omitted"
    assert (long_after["phase"], long_after["startedAt"]) == ("Failed", nodes_by_display(first)["long"][0]["startedAt"])
    assert _lines(markers / "nap") == ["x"]


def test_a_node_the_controller_errored_still_errs_its_group_after_a_resume(engine: EngineRun) -> None:
    """The retry expression could not be evaluated (a controller error, not the pod's), and the driver died before
    the step group ended: the resumed group is "deemed errored", as in one driver (the crash sweep's seed 6,
    xu-retry-expr-non-bool at its 5th change). The run's annotation carries which nodes the controller errored."""
    flaky = {"name": "flaky", "retryStrategy": {"limit": 3, "expression": "lastRetry.status"},
             "container": {"image": "busybox", "command": ["sh", "-c", "exit 1"]}}
    workflow = {"metadata": {"name": "stored-controller-error"},
                "spec": {"entrypoint": "main", "templates": [
                    {"name": "main", "steps": [[{"name": "flaky", "template": "flaky"}]]}, flaky]}}
    first = engine.run(workflow)
    message = "step group deemed errored due to child stored-controller-error[0].flaky error"
    assert first["status"]["phase"] == "Failed" and first["status"]["message"].startswith(message)
    retry = next(n for n in first["status"]["nodes"].values() if n["type"] == "Retry")
    assert json.loads(first["metadata"]["annotations"]["aipipe.dev/controller-errors"]) == [retry["id"]]

    stored = copy.deepcopy(first)
    for node in stored["status"]["nodes"].values():
        if node["type"] in ("Steps", "StepGroup"):
            node.update(phase="Running", finishedAt=None, message=None)
    stored["status"].update(phase="Running", finishedAt=None, message=None)
    again = engine.run(stored)
    assert again["status"]["phase"] == "Failed"
    assert again["status"]["message"].startswith(message), again["status"]["message"]
