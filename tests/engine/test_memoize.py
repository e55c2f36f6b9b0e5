"""Argo's ``template.memoize`` on the embedded engine: a hit reuses the stored outputs without running the node,
a miss runs it and stores what it gave, ``maxAge`` expires entries, failed nodes are not stored, runs in
parallel share one cache, and a memoize block without its parts is refused (at submit), one with a value in the
wrong form fails its node."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.context import no_templates
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError
from tests.engine.concurrency import REPO_ROOT, executor, finished, in_thread, other_driver
from tests.engine.conftest import EngineRun, nodes_by_display

CACHE = "memo-cache"


def memo_template(key: str = "{{inputs.parameters.m}}", max_age: str | None = "1h", cache: str = CACHE,
                  command: str = 'echo "ran $(cat /proc/sys/kernel/random/uuid)"; echo "$M" > /tmp/p.txt'
                  ) -> dict[str, Any]:
    memoize: dict[str, Any] = {"key": key, "cache": {"configMap": {"name": cache}}}
    if max_age is not None:
        memoize["maxAge"] = max_age
    return {"name": "memo", "inputs": {"parameters": [{"name": "m"}]}, "memoize": memoize,
            "outputs": {"parameters": [{"name": "p", "valueFrom": {"path": "/tmp/p.txt"}}]},
            "container": {"image": "busybox", "command": ["sh", "-c", command],
                          "env": [{"name": "M", "value": "{{inputs.parameters.m}}"}]}}


def workflow(*keys: str, name: str = "memo-wf", **memo: Any) -> dict[str, Any]:
    """Steps calling the memoized template once per key, one after another, then a step reading the last
    call's outputs."""
    groups = [[{"name": f"call{i}", "template": "memo", "arguments": {"parameters": [{"name": "m", "value": k}]}}]
              for i, k in enumerate(keys)]
    last = f"call{len(keys) - 1}"
    groups.append([{"name": "use", "template": "use", "arguments": {"parameters": [
        {"name": "r", "value": f"{{{{steps.{last}.outputs.result}}}}"},
        {"name": "p", "value": f"{{{{steps.{last}.outputs.parameters.p}}}}"}]}}])
    return {"metadata": {"name": name}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": groups}, memo_template(**memo),
        {"name": "use", "inputs": {"parameters": [{"name": "r"}, {"name": "p"}]},
         "container": {"image": "busybox", "command": ["echo", "{{inputs.parameters.r}}|{{inputs.parameters.p}}"]}}]}}


def node(out: dict[str, Any], display: str) -> dict[str, Any]:
    [found] = nodes_by_display(out)[display]
    return found


def entry(home: Path, key: str, cache: str = CACHE) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((home / "configmaps" / cache / key).read_text())
    return loaded


def test_a_hit_reuses_the_outputs_without_running_and_downstream_reads_them(engine: EngineRun) -> None:
    out = engine.run(workflow("same", "same"))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    first, second = node(out, "call0"), node(out, "call1")
    assert first["memoizationStatus"] == {"hit": False, "key": "same", "cacheName": CACHE}
    assert second["memoizationStatus"] == {"hit": True, "key": "same", "cacheName": CACHE}
    assert second["phase"] == "Succeeded" and second["type"] == "Pod"
    assert second["outputs"] == first["outputs"] and first["outputs"]["result"].startswith("ran ")
    assert engine.log_text("call0", out["status"]) and not engine.log_text("call1", out["status"])  # never ran
    assert node(out, "use")["outputs"]["result"] == f"{first['outputs']['result']}|same"
    stored = entry(engine.home, "same")
    assert stored["nodeID"] == first["id"] and stored["outputs"] == first["outputs"]
    assert stored["creationTimestamp"] and stored["lastHitTimestamp"] >= stored["creationTimestamp"]
    labels = json.loads((engine.home / "configmaps" / CACHE / "@labels.json").read_text())
    assert labels == {"workflows.argoproj.io/configmap-type": "Cache"}


def test_a_later_run_hits_and_another_key_misses(engine: EngineRun) -> None:
    first = engine.run(workflow("alpha", name="run-a"))
    again = engine.run(workflow("alpha", "beta", name="run-b"))
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    assert node(again, "call0")["memoizationStatus"]["hit"] is True
    assert node(again, "call0")["outputs"] == node(first, "call0")["outputs"]
    assert node(again, "call1")["memoizationStatus"] == {"hit": False, "key": "beta", "cacheName": CACHE}
    assert node(again, "call1")["outputs"]["result"] != node(first, "call0")["outputs"]["result"]
    assert entry(engine.home, "beta")["nodeID"] == node(again, "call1")["id"]


def stale(home: Path, key: str, age: timedelta) -> dict[str, Any]:
    """An entry stored ``age`` ago, as another run would have left it."""
    folder = home / "configmaps" / CACHE
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "@labels.json").write_text('{"workflows.argoproj.io/configmap-type": "Cache"}')
    stamp = (datetime.now(UTC) - age).strftime("%Y-%m-%dT%H:%M:%SZ")
    old = {"nodeID": "old-run-1", "outputs": {"result": "from the old run", "exitCode": "0"},
           "creationTimestamp": stamp, "lastHitTimestamp": stamp}
    (folder / key).write_text(json.dumps(old))
    return old


def test_an_entry_older_than_max_age_is_a_miss_and_is_replaced(engine: EngineRun) -> None:
    old = stale(engine.home, "aged", timedelta(hours=2))
    out = engine.run(workflow("aged", max_age="1h30m"))
    call = node(out, "call0")
    assert call["memoizationStatus"]["hit"] is False and call["outputs"]["result"].startswith("ran ")
    replaced = entry(engine.home, "aged")
    assert replaced["nodeID"] == call["id"] and replaced["creationTimestamp"] > old["creationTimestamp"]


def test_without_max_age_an_old_entry_still_hits(engine: EngineRun) -> None:
    old = stale(engine.home, "aged", timedelta(days=3))
    out = engine.run(workflow("aged", max_age=None))
    call = node(out, "call0")
    assert call["memoizationStatus"]["hit"] is True and call["outputs"] == old["outputs"]
    assert entry(engine.home, "aged")["lastHitTimestamp"] > old["lastHitTimestamp"]  # Argo marks the hit


def test_an_entry_whose_field_names_differ_in_case_still_hits(engine: EngineRun) -> None:
    """Go's decoder, which reads Argo's entries, matches field names case-insensitively (older entries say
    ``NodeID``, ``Outputs``)."""
    old = stale(engine.home, "cased", timedelta(minutes=1))
    (engine.home / "configmaps" / CACHE / "cased").write_text(json.dumps({
        "NodeID": old["nodeID"], "Outputs": old["outputs"], "CreationTimestamp": old["creationTimestamp"]}))
    out = engine.run(workflow("cased"))
    call = node(out, "call0")
    assert call["memoizationStatus"]["hit"] is True and call["outputs"] == old["outputs"]


def test_a_failed_node_is_not_stored_and_runs_again(engine: EngineRun) -> None:
    failing = workflow("doomed", "doomed", command="echo trying; exit 3")
    failing["spec"]["templates"][0]["steps"][0][0]["continueOn"] = {"failed": True}
    out = engine.run(failing)
    assert [node(out, c)["phase"] for c in ("call0", "call1")] == ["Failed", "Failed"]
    assert node(out, "call1")["memoizationStatus"]["hit"] is False  # the first failure left nothing to hit
    assert engine.log_text("call1", out["status"])
    assert not (engine.home / "configmaps" / CACHE / "doomed").exists()


def test_a_memoized_steps_template_hits_without_running_its_children(engine: EngineRun) -> None:
    inner = {"name": "group", "inputs": {"parameters": [{"name": "m"}]},
             "memoize": {"key": "grp-{{inputs.parameters.m}}", "cache": {"configMap": {"name": CACHE}}},
             "outputs": {"parameters": [{"name": "out", "valueFrom": {"parameter": "{{steps.leaf.outputs.result}}"}}]},
             "steps": [[{"name": "leaf", "template": "leaf"}]]}
    wf = {"metadata": {"name": "grp"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": f"g{i}", "template": "group", "arguments": {
            "parameters": [{"name": "m", "value": "x"}]}}] for i in range(2)]},
        inner, {"name": "leaf", "script": {"image": "busybox", "command": ["sh"],
                                           "source": "cat /proc/sys/kernel/random/uuid"}}]}}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    g0, g1 = node(out, "g0"), node(out, "g1")
    assert g1["memoizationStatus"]["hit"] is True and g1["type"] == "Steps" and not g1.get("children")
    assert g1["outputs"] == g0["outputs"] and len(nodes_by_display(out)["leaf"]) == 1


def test_runs_in_parallel_share_the_cache_without_corrupting_it(tmp_path: Path) -> None:
    """Two engine processes and a run in this one write the same cache at once."""
    home = tmp_path / "home"
    keys = [f"k{i}" for i in range(6)]
    drivers = [other_driver(home, workflow(*keys, name=f"par-{n}")) for n in range(2)]
    thread, box = in_thread(lambda: executor(home, workflow(*reversed(keys), name="par-t"), []).run())
    statuses = [finished(proc) for proc in drivers]
    thread.join(timeout=120)
    assert box["out"]["status"]["phase"] == "Succeeded", box["out"]["status"].get("message")
    ran = {n["id"]: n for status in [*statuses, box["out"]["status"]] for n in status["nodes"].values()
           if n.get("memoizationStatus")}
    assert len(ran) == 3 * len(keys)
    folder = home / "configmaps" / CACHE
    assert sorted(p.name for p in folder.iterdir()) == sorted([*keys, "@labels.json"])  # no temporary files left
    for key in keys:
        stored = entry(home, key)
        assert ran[stored["nodeID"]]["outputs"] == stored["outputs"]  # one whole entry of a run that missed
        assert ran[stored["nodeID"]]["memoizationStatus"] == {"hit": False, "key": key, "cacheName": CACHE}


def test_a_config_map_that_is_not_a_cache_is_refused_and_left_alone(engine: EngineRun) -> None:
    settings = engine.home / "configmaps" / "app-settings"
    settings.mkdir(parents=True)
    (settings / "greeting").write_text("hello")
    out = engine.run(workflow("same", cache="app-settings"))
    call = node(out, "call0")
    assert call["phase"] == "Error" and "refusing to use it" in call["message"], call
    assert sorted(p.name for p in settings.iterdir()) == ["greeting"]
    assert not engine.log_text("call0", out["status"])


def test_a_rendered_key_that_is_not_valid_fails_the_node_before_it_runs(engine: EngineRun) -> None:
    out = engine.run(workflow("has space"))
    call = node(out, "call0")
    assert call["phase"] == "Error" and "memoize.key" in call["message"] and "invalid cache key" in call["message"]
    assert not engine.log_text("call0", out["status"])


@pytest.mark.parametrize(("memoize", "field", "words"), [
    ({"key": "k"}, "memoize.cache.configMap.name", "is required"),
    ({"cache": {"configMap": {"name": "c"}}}, "memoize.key", "is required"),
    ("yes", "memoize", "must be an object"),
])
def test_a_memoize_block_without_its_parts_is_refused_naming_the_field(memoize: Any, field: str, words: str) -> None:
    wf = workflow("k")
    wf["spec"]["templates"][1]["memoize"] = memoize
    with pytest.raises(UserError) as caught:
        validate_workflow(wf, no_templates)
    assert caught.value.field == f"spec.templates[1].{field}" and words in str(caught.value)


@pytest.mark.parametrize(("memoize", "field", "words"), [
    ({"key": "a_b", "cache": {"configMap": {"name": "c"}}}, "memoize.key", "invalid cache key"),
    ({"key": "k", "cache": {"configMap": {"name": "Not_A_Name"}}}, "memoize.cache.configMap.name",
     "invalid ConfigMap name"),
    ({"key": "k", "maxAge": "1d", "cache": {"configMap": {"name": "c"}}}, "memoize.maxAge", "invalid maxAge"),
])
def test_a_memoize_value_in_the_wrong_form_errs_its_node_when_it_is_about_to_run(
        engine: EngineRun, memoize: Any, field: str, words: str) -> None:
    """As Argo's executeTemplate (which validation does not precede): the node is Error, naming the field."""
    wf = workflow("k")
    wf["spec"]["templates"][1]["memoize"] = memoize
    validate_workflow(wf, no_templates)
    call = node(engine.run(wf), "call0")
    assert call["phase"] == "Error" and field in call["message"] and words in call["message"], call


def test_tagged_and_go_duration_values_pass_the_submit_checks() -> None:
    wf = workflow("k", max_age="1h2m3.5s", cache="cache-{{workflow.name}}")
    validate_workflow(wf, no_templates)


_HAMMER = """
import sys
from pathlib import Path
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.memocache import MemoCache
cache, me = MemoCache(ConfigMapStore(Path(sys.argv[1]))), sys.argv[2]
for i in range(150):
    cache.save("hammered", "shared", f"{me}-{i}", {"result": me * 2000})
    found = cache.load("hammered", "shared")
    assert found is not None and found["outputs"]["result"] == found["nodeID"].split("-")[0] * 2000, found
print("ok")
"""


def test_processes_saving_and_loading_one_key_always_read_whole_entries(tmp_path: Path) -> None:
    """The lock and the atomic replace: every load in every process reads one complete entry."""
    root = tmp_path / "configmaps"
    procs = [subprocess.Popen([sys.executable, "-c", _HAMMER, str(root), name], cwd=REPO_ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}) for name in ("a", "b", "c")]
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0 and stdout.strip() == "ok", stderr
    assert sorted(p.name for p in (root / "hammered").iterdir()) == ["@labels.json", "shared"]


def test_an_entry_without_a_creation_time_is_expired_under_a_max_age(engine: EngineRun) -> None:
    old = stale(engine.home, "undated", timedelta(0))
    del old["creationTimestamp"]
    (engine.home / "configmaps" / CACHE / "undated").write_text(json.dumps(old))
    out = engine.run(workflow("undated"))
    call = node(out, "call0")
    assert call["phase"] == "Succeeded" and call["memoizationStatus"]["hit"] is False
    assert entry(engine.home, "undated")["nodeID"] == call["id"]


def test_a_malformed_entry_fails_the_node_with_argos_message(engine: EngineRun) -> None:
    stale(engine.home, "broken", timedelta(0))
    (engine.home / "configmaps" / CACHE / "broken").write_text('{"nodeID": "x", "outp')
    call = node(engine.run(workflow("broken")), "call0")
    assert call["phase"] == "Error" and "malformed cache entry" in call["message"]


def test_a_node_waiting_for_the_lock_finds_the_entry_the_holder_saved(engine: EngineRun,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The holder's cache entry is saved before its lock goes, so the waiter's second lookup always finds it (a
    slow save is what would let a waiter in between, and run again)."""
    import time

    from aipipe.engine.memocache import MemoCache

    save = MemoCache.save

    def slow_save(self: MemoCache, *args: Any) -> None:
        time.sleep(0.6)
        save(self, *args)

    monkeypatch.setattr(MemoCache, "save", slow_save)
    stamp = {"name": "stamp", "synchronization": {"mutexes": [{"name": "memo-wait-lock"}]},
             "memoize": {"key": "shared", "cache": {"configMap": {"name": "memo-wait-cache"}}},
             "script": {"image": "busybox", "command": ["sh"], "source": "date +%s%N > /tmp/stamp"},
             "outputs": {"parameters": [{"name": "stamp", "valueFrom": {"path": "/tmp/stamp"}}]}}
    out = engine.run({"metadata": {"name": "memo-wait"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "steps": [[{"name": "one", "template": "stamp"}, {"name": "two", "template": "stamp"}]]},
        stamp]}})
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    jobs = [nodes_by_display(out)[n][0] for n in ("one", "two")]
    assert sorted(j["memoizationStatus"]["hit"] for j in jobs) == [False, True]
    assert len({j["outputs"]["parameters"][0]["value"] for j in jobs}) == 1
