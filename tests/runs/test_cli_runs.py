"""``aipipe run/list/get/logs/retry/resubmit`` as real processes on the embedded engine."""

from __future__ import annotations

import json
import time

from aipipe.engine.store import RunStore
from tests.runs.conftest import shell, workflow


def _dag(*tasks: dict) -> dict:
    return {"name": "main", "dag": {"tasks": list(tasks)}}


def _get(engine, name: str) -> dict:
    out = engine.run("get", name, "-o", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _only_run(engine) -> dict:
    runs = RunStore.from_home(engine.home).list_workflows()
    assert len(runs) == 1
    return runs[0]


def test_run_get_list_logs(engine):
    path = engine.write_workflow("hello.yaml", workflow("hello-", "main", [
        _dag({"name": "greet", "template": "say"}, {"name": "after", "template": "say", "dependencies": ["greet"]}),
        shell("say", "echo hello from the engine"),
    ]))
    result = engine.run("run", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    name = _only_run(engine)["metadata"]["name"]
    assert f"Name: {name}" in result.stdout
    obj = _get(engine, name)
    assert obj["apiVersion"] == "argoproj.io/v1alpha1" and obj["kind"] == "Workflow"
    assert obj["metadata"]["name"].startswith("hello-") and obj["metadata"]["uid"]
    assert obj["metadata"]["creationTimestamp"].endswith("Z") and obj["metadata"]["namespace"] == "argo"
    status = obj["status"]
    assert status["phase"] == "Succeeded" and status["startedAt"] and status["finishedAt"]
    pods = [n for n in status["nodes"].values() if n["type"] == "Pod"]
    assert sorted(n["displayName"] for n in pods) == ["after", "greet"]
    for node_id, node in status["nodes"].items():
        assert node["id"] == node_id and node["phase"] == "Succeeded"
        assert {"name", "displayName", "type", "startedAt", "finishedAt"} <= set(node)
    assert status["nodes"][name]["children"]
    listed = engine.run("list")
    assert name in listed.stdout and "Succeeded" in listed.stdout
    logs = engine.run("logs", name)
    assert logs.stdout.count("hello from the engine") == 2
    one = engine.run("logs", name, "greet")
    assert one.stdout.strip() == "hello from the engine"


def test_failed_run_exits_1_and_retry_keeps_succeeded_nodes(engine):
    marks = engine.markers
    path = engine.write_workflow("flaky.yaml", workflow("flaky-", "main", [
        _dag({"name": "first", "template": "first"}, {"name": "second", "template": "second",
                                                       "dependencies": ["first"]}),
        shell("first", f"echo run >> {marks}/first"),
        shell("second", f"echo run >> {marks}/second; test -e {marks}/ok"),
    ]))
    failed = engine.run("run", str(path))
    assert failed.returncode == 1, failed.stdout + failed.stderr
    name = _only_run(engine)["metadata"]["name"]
    assert _get(engine, name)["status"]["phase"] == "Failed"
    (marks / "ok").write_text("")
    retried = engine.run("retry", name)
    assert retried.returncode == 0, retried.stdout + retried.stderr
    assert _get(engine, name)["status"]["phase"] == "Succeeded"
    assert (marks / "first").read_text().count("run") == 1
    assert (marks / "second").read_text().count("run") == 2
    again = engine.run("retry", name)
    assert again.returncode == 2 and "only Failed or Error runs" in again.stderr
    resubmitted = engine.run("resubmit", name)
    assert resubmitted.returncode == 0, resubmitted.stdout + resubmitted.stderr
    assert (marks / "first").read_text().count("run") == 2
    runs = RunStore.from_home(engine.home).list_workflows()
    assert len(runs) == 2
    assert any(r["metadata"]["labels"].get("workflows.argoproj.io/resubmitted-from-workflow") == name for r in runs)


def test_bad_input_is_one_line_exit_2(engine):
    missing = engine.run("get", "no-such-run")
    assert missing.returncode == 2 and "no run named 'no-such-run'" in missing.stderr
    assert "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    assert engine.run("run", "does-not-exist.yaml").returncode == 2
    assert engine.run("run").returncode == 2
    bad_output = engine.run("get", "x", "-o", "xml")
    assert bad_output.returncode == 2 and "--output" in bad_output.stderr
    rejected = engine.write_workflow("bad.yaml", workflow("bad-", "nope", [shell("main", "true")]))
    refused = engine.run("run", str(rejected))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert RunStore.from_home(engine.home).list_workflows() == []


def test_secret_values_never_reach_the_store(engine):
    secret = "tok-7f3a9c1e5b"
    folder = engine.home / "secrets" / "demo-secret"
    folder.mkdir(parents=True)
    (folder / "token").write_text(secret + "\n")
    env = [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "demo-secret", "key": "token"}}}]
    path = engine.write_workflow("secret.yaml", workflow("secret-", "main", [
        shell("main", 'echo "the token is $TOKEN"', env=env)]))
    result = engine.run("run", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    name = _only_run(engine)["metadata"]["name"]
    logs = engine.run("logs", name)
    assert "the token is" in logs.stdout and secret not in logs.stdout
    assert secret not in engine.run("get", name, "-o", "yaml").stdout
    RunStore.from_home(engine.home).close()
    for db_file in engine.home.glob("engine.db*"):
        assert secret.encode() not in db_file.read_bytes(), db_file


def test_logs_follow_streams_until_the_run_ends(engine):
    go = engine.markers / "go"
    path = engine.write_workflow("ticks.yaml", workflow("ticks-", "main", [
        shell("main", f"echo tick 1; while [ ! -e {go} ]; do sleep 0.1; done; echo tick 2")]))
    driver = engine.popen("run", str(path))
    store = RunStore.from_home(engine.home)
    deadline = time.monotonic() + 60
    while not store.list_workflows():
        assert time.monotonic() < deadline and driver.poll() is None
        time.sleep(0.1)
    name = store.list_workflows()[0]["metadata"]["name"]
    follower = engine.popen("logs", name, "-f")
    assert follower.stdout.readline().strip().endswith("tick 1")  # the run is still waiting for `go`
    go.write_text("")
    assert follower.wait(120) == 0 and driver.wait(120) == 0
    assert follower.stdout.read().strip().endswith("tick 2")
