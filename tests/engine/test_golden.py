"""Our own golden manifests for features the Argo corpus lacks (tests/engine/golden/*.yaml)."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.engine.conftest import EngineRun, nodes_by_display

GOLDEN = Path(__file__).parent / "golden"


def load(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the Workflow, the WorkflowTemplates) of a golden file."""
    docs = list(yaml.safe_load_all((GOLDEN / name).read_text()))
    [workflow] = [d for d in docs if d["kind"] == "Workflow"]
    return workflow, [d for d in docs if d["kind"] != "Workflow"]


def spans(wf: dict[str, Any], prefix: str) -> list[tuple[float, float]]:
    """(start, end) printed by each Pod node whose display name starts with ``prefix``."""
    out = []
    for node in wf["status"]["nodes"].values():
        if node["type"] == "Pod" and node["displayName"].startswith(prefix):
            start, end = map(float, node["outputs"]["result"].split())
            out.append((start, end))
    return sorted(out)


def max_overlap(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    level = peak = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    return peak


def test_templateref_and_workflowtemplateref(engine: EngineRun) -> None:
    wf, templates = load("templateref.yaml")
    out = engine.run(wf, templates)
    assert out["status"]["phase"] == "Succeeded"
    nodes = nodes_by_display(out)
    assert nodes["greet"][0]["templateRef"] == {"name": "golden-lib", "template": "greet"}
    assert nodes["greet"][0]["outputs"]["parameters"] == [{"name": "said", "value": "hello golden"}]
    assert nodes["shout"][0]["phase"] == "Succeeded"
    assert nodes["shout"][0]["outputs"]["result"] == "hello golden!"


def test_unknown_templateref_is_rejected(engine: EngineRun) -> None:
    wf, _ = load("templateref.yaml")
    from aipipe.errors import UserError

    with pytest.raises(UserError, match="golden-pipeline"):
        engine.run(wf, [])


def test_suspend_with_duration(engine: EngineRun) -> None:
    wf, _ = load("suspend-duration.yaml")
    started = time.monotonic()
    out = engine.run(wf)
    elapsed = time.monotonic() - started
    assert out["status"]["phase"] == "Succeeded"
    wait = nodes_by_display(out)["wait"][0]
    assert wait["type"] == "Suspend" and wait["phase"] == "Succeeded"
    assert 2.0 <= elapsed < 6.0
    assert nodes_by_display(out)["after"][0]["outputs"]["result"] == "resumed"


def test_template_parallelism(engine: EngineRun) -> None:
    wf, _ = load("parallelism.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    intervals = spans(out, "work(")
    assert len(intervals) == 6
    assert max_overlap(intervals) == 2


def test_workflow_parallelism(engine: EngineRun) -> None:
    wf, _ = load("parallelism.yaml")
    del wf["spec"]["templates"][0]["parallelism"]
    wf["spec"]["parallelism"] = 3
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    assert max_overlap(spans(out, "work(")) == 3


def test_workflow_parallelism_starts_pods_in_walk_order(engine: EngineRun) -> None:
    wf, _ = load("parallelism-order.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    started = [n["name"].removeprefix("golden-parallelism-order") for n in
               sorted(pods, key=lambda n: float(n["outputs"]["result"]))]
    walk = [f"[0].outer({i}:{item})[0].leaf({j}:{j})" for i, item in enumerate("abc") for j in range(3)]
    # the children start one after another as Argo's walk meets them, so the first slot goes to the first pod too
    assert started == walk + [f"[1].fan.d{k}" for k in range(1, 5)]


def test_retry_backoff_grows_by_factor(engine: EngineRun) -> None:
    wf, _ = load("retry-backoff.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Failed"
    nodes = nodes_by_display(out)
    assert nodes["golden-retry-backoff"][0]["type"] == "Retry"
    attempts = [float(nodes[f"golden-retry-backoff({i})"][0]["outputs"]["result"]) for i in range(4)]
    assert "golden-retry-backoff(4)" not in nodes
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    for gap, wait in zip(gaps, (0.5, 1.0, 2.0), strict=True):
        assert wait <= gap < wait + 1.0, gaps
    assert gaps[0] < gaps[1] < gaps[2]


def test_retry_max_duration_stops_retries(engine: EngineRun) -> None:
    wf, _ = load("retry-backoff.yaml")
    wf["spec"]["templates"][0]["retryStrategy"]["backoff"]["maxDuration"] = "1s"
    out = engine.run(wf)
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert out["status"]["phase"] == "Failed" and len(pods) == 2  # 0.5s wait fits in 1s, then 1s does not


def test_retry_expression(engine: EngineRun) -> None:
    wf, _ = load("retry-expression.yaml")
    out = engine.run(wf)
    pods = sorted(n["displayName"] for n in out["status"]["nodes"].values() if n["type"] == "Pod")
    assert out["status"]["phase"] == "Failed"
    assert pods == ["golden-retry-expression(0)", "golden-retry-expression(1)"]


def test_lifecycle_hooks(engine: EngineRun) -> None:
    wf, _ = load("lifecycle-hooks.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    results = {n["displayName"]: (n["phase"], (n.get("outputs") or {}).get("result"))
               for n in out["status"]["nodes"].values()}
    [step1] = [n for n in out["status"]["nodes"].values() if n["displayName"] == "step1"]
    names = {n["displayName"]: n["name"] for n in out["status"]["nodes"].values()}
    # as Argo's initializeNode: a step's hook shows without its boundary's name and group (`step1.hooks.running`)
    assert names["step1.hooks.running"] == f"{step1['name']}.hooks.running"
    assert results["step1.hooks.running"] == ("Succeeded", "step1 running")
    assert results["step1.hooks.succeeded"] == ("Succeeded", "step1 said done")
    assert "step1.hooks.failed" not in results
    assert results["golden-hooks.hooks.running"] == ("Succeeded", "workflow running")
    assert results["golden-hooks.onExit"] == ("Succeeded", "workflow exit Succeeded")


def test_synchronization_mutex(engine: EngineRun) -> None:
    wf, _ = load("mutex.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    intervals = [spans(out, s)[0] for s in ("a", "b", "c")]
    assert max_overlap(intervals) == 1


def test_secret_masking(engine: EngineRun) -> None:
    secret = "s3cr3t-Value-42"
    folder = engine.home / "secrets" / "golden-secret"
    folder.mkdir(parents=True)
    (folder / "token").write_text(secret + "\n")
    wf, _ = load("secret-masking.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    logs = engine.log_text()
    assert "token is [redacted]" in logs and "file says [redacted]" in logs
    assert secret not in logs
    assert secret not in json.dumps(out)
    assert all(secret not in json.dumps(change) for change in engine.changes)
    assert out["status"]["nodes"]["golden-secrets"]["outputs"]["parameters"][0]["value"] == "[redacted]"
    mounted = list((engine.home / "runs").rglob("etc/creds/token"))
    assert not mounted, "secret files are removed when the node ends"


def test_missing_secret_fails_clearly(engine: EngineRun) -> None:
    wf, _ = load("secret-masking.yaml")
    out = engine.run(wf)
    node = out["status"]["nodes"]["golden-secrets"]
    assert node["phase"] == "Error" and "golden-secret" in node["message"] and "token" in node["message"]


def test_private_paths_between_parallel_nodes(engine: EngineRun) -> None:
    wf, _ = load("tmp-isolation.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    seen = {}
    for node in out["status"]["nodes"].values():
        if node["type"] == "Pod":
            token = node["inputs"]["parameters"][0]["value"]
            seen[token] = node["outputs"]["result"]
            assert node["outputs"]["parameters"][0]["value"] == token
    assert seen == {t: f"{t}\n{t}" for t in ("alpha", "beta", "gamma", "delta")}
    assert not Path("/work-area").exists() and not Path("/result.txt").exists()


def test_gpu_fallback_to_cpu_with_warning(engine: EngineRun) -> None:
    wf, _ = load("gpu-fallback.yaml")
    out = engine.run(wf, gpu_count=0)
    assert out["status"]["phase"] == "Succeeded"
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert all(n["outputs"]["result"] == "cuda=" for n in pods)
    assert all("running on CPU" in n["message"] for n in pods)
    assert "warning: 1 GPU(s) requested but none found" in engine.log_text()


def test_gpu_fallback_fail(engine: EngineRun) -> None:
    engine.env["AIPIPE_GPU_FALLBACK"] = "fail"
    wf, _ = load("gpu-fallback.yaml")
    out = engine.run(wf, gpu_count=0)
    assert out["status"]["phase"] == "Failed"
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert pods and all(n["phase"] == "Error" and "none" in n["message"] for n in pods)


def test_gpu_assignment_queues_when_busy(engine: EngineRun) -> None:
    wf, _ = load("gpu-fallback.yaml")
    out = engine.run(wf, gpu_count=2)
    assert out["status"]["phase"] == "Succeeded"
    results = sorted(n["outputs"]["result"] for n in out["status"]["nodes"].values() if n["type"] == "Pod")
    assert set(results) <= {"cuda=0", "cuda=1"} and len(results) == 3


def test_shared_volume_and_private_empty_dir(engine: EngineRun) -> None:
    wf, _ = load("shared-volume.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    assert nodes_by_display(out)["read"][0]["outputs"]["result"].split() == ["shared", "0"]
    assert not Path("/workdir").exists() and not Path("/scratch").exists()


def test_template_defaults(engine: EngineRun) -> None:
    wf, _ = load("template-defaults.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    nodes = nodes_by_display(out)
    assert nodes["say(0)"][0]["phase"] == "Failed"  # the default retryStrategy gives a second attempt
    assert nodes["say(1)"][0]["outputs"]["result"] == "hello-from-defaults"


def test_input_artifacts_passed_on_with_from(engine: EngineRun) -> None:
    wf, _ = load("input-artifacts.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    reads = {n["name"].split(".")[1].split("[")[0]: n for n in out["status"]["nodes"].values()
             if n["displayName"] == "read"}
    assert reads["via-steps"]["outputs"]["result"] == "payload-42"
    assert reads["via-dag"]["outputs"]["result"] == "payload-42"
    assert reads["without"]["outputs"]["result"] == "missing"  # optional and not supplied: skipped, not refused
    assert "artifacts" not in (reads["without"].get("inputs") or {}) or all(
        "s3" not in a for a in reads["without"]["inputs"]["artifacts"])
    [via_dag] = nodes_by_display(out)["via-dag"]
    assert [a["name"] for a in via_dag["outputs"]["artifacts"]] == ["copy"]
    assert nodes_by_display(out)["after-dag"][0]["outputs"]["result"] == "payload-42!"


def test_missing_required_artifact_passed_on_still_fails(engine: EngineRun) -> None:
    wf, _ = load("input-artifacts.yaml")
    relay = next(t for t in wf["spec"]["templates"] if t["name"] == "relay-steps")
    relay["steps"][0][0]["template"] = "read-required"
    wf["spec"]["templates"].append({"name": "read-required", "inputs": {"artifacts": [{"name": "data",
                                    "path": "/tmp/in.txt"}]}, "container": {"image": "busybox",
                                                                           "command": ["cat", "/tmp/in.txt"]}})
    out = engine.run(wf)
    assert out["status"]["phase"] == "Failed"
    [failed] = [n for n in out["status"]["nodes"].values() if n["name"].endswith("without[0].read")]
    # as Argo: the unsupplied optional input passes on as a bare artifact, which a required input refuses
    assert "required artifact 'data' not supplied" in failed["message"]


@pytest.mark.parametrize(("retry_on", "attempts"), [("3", 3), ("4", 1)])
def test_retry_expression_reads_inputs(engine: EngineRun, retry_on: str, attempts: int) -> None:
    wf, _ = load("retry-expression-input.yaml")
    wf["spec"]["arguments"]["parameters"][0]["value"] = retry_on
    out = engine.run(wf)
    pods = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert out["status"]["phase"] == "Failed"
    assert len(pods) == attempts, [p.get("message") for p in pods]


def test_aggregated_loop_outputs_are_json_values(engine: EngineRun) -> None:
    wf, _ = load("aggregate-json.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    shown = {n["displayName"]: n["outputs"]["result"] for n in out["status"]["nodes"].values()
             if n["displayName"].startswith(("by-result(", "by-param(")) and n["type"] == "Pod"}
    assert sorted(v for k, v in shown.items() if k.startswith("by-result(")) == ["child=1", "child=2"]
    params = sorted((json.loads(v) for k, v in shown.items() if k.startswith("by-param(")), key=lambda o: o["n"])
    assert params == [{"name": "child", "n": 1}, {"name": "child", "n": 2}]


def test_empty_loops_leave_a_skipped_node(engine: EngineRun) -> None:
    wf, _ = load("empty-loop.yaml")
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    nodes = nodes_by_display(out)
    for display in ("none-param", "none-seq", "none"):
        [node] = nodes[display]
        assert (node["type"], node["phase"], node["message"]) == ("Skipped", "Skipped", "Skipped, empty params")
        assert node["templateName"] == "echo"
        parent = next(n for n in out["status"]["nodes"].values() if node["id"] in n.get("children", []))
        assert parent["type"] in ("StepGroup", "DAG")
    assert nodes["after"][0]["phase"] == "Succeeded"
    assert not [n for n in out["status"]["nodes"].values() if "(" in n["displayName"]]


@pytest.mark.parametrize("entry", ["main", "dag"])
def test_template_fail_fast_with_parallelism(engine: EngineRun, entry: str) -> None:
    wf, _ = load("fail-fast.yaml")
    wf["spec"]["entrypoint"] = entry
    out = engine.run(wf)
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"] == "template has failed or errored children and failFast enabled"
    items = {n["displayName"]: n["phase"] for n in out["status"]["nodes"].values() if n["type"] == "Pod"}
    # the running item finishes; the two waiting for a slot never start (no node)
    assert items == {"fan(0:exit 1)": "Failed", "fan(1:sleep 1)": "Succeeded"}
    group = "[0]" if entry == "main" else "fan"  # the step group / the loop's TaskGroup
    assert nodes_by_display(out)[group][0]["phase"] == "Failed"


def test_fail_fast_off_starts_the_rest(engine: EngineRun) -> None:
    wf, _ = load("fail-fast.yaml")
    wf["spec"]["templates"][0]["failFast"] = False
    out = engine.run(wf)
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"] != "template has failed or errored children and failFast enabled"
    assert len([n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]) == 4


class _ActivePods(list):
    """Records, at each state change, how many Pod nodes exist unfinished."""

    def append(self, workflow: dict[str, Any]) -> None:
        pods = [n for n in workflow["status"]["nodes"].values() if n["type"] == "Pod"]
        super().append(sum(1 for n in pods if n["phase"] in ("Pending", "Running")))


def test_workflow_parallelism_creates_nodes_when_they_start(engine: EngineRun) -> None:
    wf, _ = load("parallelism.yaml")
    del wf["spec"]["templates"][0]["parallelism"]
    wf["spec"]["parallelism"] = 2
    engine.changes = _ActivePods()
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded"
    assert max(engine.changes) == 2  # the four waiting for a slot had no node (so no startedAt) meanwhile


def test_script_with_only_args_runs(engine: EngineRun) -> None:
    workflow, _ = load("script-args-only.yaml")
    out = engine.run(workflow)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert node["outputs"]["result"] == "hi from args"


@pytest.mark.parametrize("name,phase", [("exit-handler-fails.yaml", "Failed"), ("exit-handler-errors.yaml", "Error")])
def test_a_failing_exit_handler_gives_the_run_its_phase_and_message(engine: EngineRun, name: str, phase: str) -> None:
    wf, _ = load(name)
    out = engine.run(wf)
    handler = nodes_by_display(out)[f"{wf['metadata']['name']}.onExit"][0]
    assert handler["phase"] == phase and handler["message"]
    assert out["status"]["phase"] == phase
    assert out["status"]["message"] == handler["message"]
