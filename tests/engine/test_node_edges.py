"""Graph edges as Argo's controller sets them: ``children`` follow the dependencies, ``outboundNodes`` the leaves.

The expected structures are written by hand from Argo's controller rules (workflow/controller/dag.go
and steps.go): a DAG node's children are its root tasks and a task's children are the tasks that
depend on it, linked from the task's outbound nodes (a nested DAG's leaves, a retry's last attempt,
a loop's items); step groups chain ``[0] -> its steps -> [1]``; a DAG (failed too) or Steps node lists the
outbound nodes of its target (leaf) tasks or of its last group's steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aipipe.compile import compile_pipeline
from aipipe.config import load_config
from tests.engine.conftest import EngineRun

REPO = Path(__file__).resolve().parents[2]

ECHO = {"name": "echo", "container": {"image": "busybox", "command": ["echo", "hi"]}}


def _short(wf: dict[str, Any], nid: str) -> str:
    """A node's name without the workflow's (the root is ``/``)."""
    name = wf["status"]["nodes"][nid]["name"]
    return name[len(wf["metadata"]["name"]):] or "/"


def edges(wf: dict[str, Any]) -> dict[str, list[str]]:
    """node -> its children, by short name (only nodes with children)."""
    return {_short(wf, nid): sorted(_short(wf, c) for c in node["children"])
            for nid, node in wf["status"]["nodes"].items() if node.get("children")}


def outbound(wf: dict[str, Any]) -> dict[str, list[str]]:
    """node -> its outboundNodes, by short name (only nodes that have them)."""
    return {_short(wf, nid): sorted(_short(wf, c) for c in node["outboundNodes"])
            for nid, node in wf["status"]["nodes"].items() if node.get("outboundNodes")}


def workflow(name: str, templates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", "templates": [*templates, ECHO]}}


def task(name: str, depends: str | None = None, template: str = "echo", **extra: Any) -> dict[str, Any]:
    return {"name": name, "template": template, **({"depends": depends} if depends else {}), **extra}


def test_diamond_dag(engine: EngineRun) -> None:
    out = engine.run(workflow("diamond", [{"name": "main", "dag": {"tasks": [
        task("A"), task("B", "A"), task("C", "A"), task("D", "B && C")]}}]))
    assert out["status"]["phase"] == "Succeeded"
    assert edges(out) == {"/": [".A"], ".A": [".B", ".C"], ".B": [".D"], ".C": [".D"]}
    assert outbound(out) == {"/": [".D"]}


def test_dag_with_dependencies_field_and_two_roots(engine: EngineRun) -> None:
    out = engine.run(workflow("roots", [{"name": "main", "dag": {"tasks": [
        task("A"), task("B"), task("C", dependencies=["A", "B"]), task("D", dependencies=["A"])]}}]))
    assert edges(out) == {"/": [".A", ".B"], ".A": [".C", ".D"], ".B": [".C"]}
    assert outbound(out) == {"/": [".C", ".D"]}


def test_steps_groups_chain_through_their_steps(engine: EngineRun) -> None:
    nested = {"name": "nested", "steps": [[{"name": "x", "template": "echo"}], [{"name": "y", "template": "echo"}]]}
    main = {"name": "main", "steps": [
        [{"name": "hello1", "template": "echo"}],
        [{"name": "hello2a", "template": "echo"}, {"name": "inner", "template": "nested"},
         {"name": "skipped", "template": "echo", "when": "1 == 2"}],
        [{"name": "last", "template": "echo"}],
    ]}
    out = engine.run(workflow("steps", [main, nested]))
    assert out["status"]["phase"] == "Succeeded"
    assert edges(out) == {
        "/": ["[0]"],
        "[0]": ["[0].hello1"],
        "[0].hello1": ["[1]"],
        "[1]": ["[1].hello2a", "[1].inner", "[1].skipped"],
        "[1].inner": ["[1].inner[0]"],
        "[1].inner[0]": ["[1].inner[0].x"],
        "[1].inner[0].x": ["[1].inner[1]"],
        "[1].inner[1]": ["[1].inner[1].y"],
        # the nested steps node leads on from its own outbound node (y); a Skipped step is its own
        "[1].hello2a": ["[2]"], "[1].inner[1].y": ["[2]"], "[1].skipped": ["[2]"],
        "[2]": ["[2].last"],
    }
    assert outbound(out) == {"/": ["[2].last"], "[1].inner": ["[1].inner[1].y"]}


def test_nested_dag_links_from_its_leaves(engine: EngineRun) -> None:
    inner = {"name": "inner", "dag": {"tasks": [task("X"), task("Y", "X"), task("Z", "X")]}}
    out = engine.run(workflow("nested", [
        {"name": "main", "dag": {"tasks": [task("A"), task("sub", "A", "inner"), task("B", "sub")]}}, inner]))
    assert out["status"]["phase"] == "Succeeded"
    assert edges(out) == {"/": [".A"], ".A": [".sub"], ".sub": [".sub.X"], ".sub.X": [".sub.Y", ".sub.Z"],
                          ".sub.Y": [".B"], ".sub.Z": [".B"]}
    assert outbound(out) == {"/": [".B"], ".sub": [".sub.Y", ".sub.Z"]}
    progress = {_short(out, nid): n.get("progress") for nid, n in out["status"]["nodes"].items()}
    assert progress["/"] == "5/5" and progress[".sub"] == "3/3"  # a node counts the pods it contains, not B


def test_retry_and_loop_tasks_link_from_their_attempt_and_items(engine: EngineRun) -> None:
    flaky = {"name": "flaky", "retryStrategy": {"limit": 2},
             "script": {"image": "python:3.11", "command": ["python"],
                        "source": "import sys; sys.exit(0 if {{retries}} >= 1 else 1)"}}
    out = engine.run(workflow("retryloop", [{"name": "main", "dag": {"tasks": [
        task("A", template="flaky"), task("L", "A", withItems=[1, 2]), task("E", "L")]}}, flaky]))
    assert out["status"]["phase"] == "Succeeded"
    assert edges(out) == {"/": [".A"], ".A": [".A(0)", ".A(1)"], ".A(1)": [".L"],
                          ".L": [".L(0:1)", ".L(1:2)"], ".L(0:1)": [".E"], ".L(1:2)": [".E"]}
    assert outbound(out) == {"/": [".E"]}


def test_retrain_pipeline_shape(engine: EngineRun, tmp_path: Path) -> None:
    """The compiled retrain DAG (pipelines/retrain.py: its tasks, ``depends`` and ``when``), each step replaced
    by a stand-in that reports changed=true and promote=false: train runs, convert-trt is Skipped, deploy Omitted."""
    compiled = compile_pipeline(REPO / "pipelines" / "retrain.py", load_config(env={"AIPIPE_HOME": str(tmp_path)},
                                                                               path=None), {})
    [manifest] = [d for d in compiled.documents() if d["kind"] == "Workflow"]
    [dag] = [t for t in manifest["spec"]["templates"] if t["name"] == manifest["spec"]["entrypoint"]]
    tasks = [{k: v for k, v in t.items() if k in ("name", "depends", "when")} | {"template": "stand-in"}
             for t in dag["dag"]["tasks"]]
    assert [t["name"] for t in tasks] == ["export-annotations", "train", "evaluate", "convert-trt", "deploy"]
    stand_in = {"name": "stand-in", "container": {"image": "busybox", "command": [
                    "sh", "-c", "printf true > /tmp/changed; printf false > /tmp/promote"]},
                "outputs": {"parameters": [{"name": "changed", "valueFrom": {"path": "/tmp/changed"}},
                                           {"name": "promote", "valueFrom": {"path": "/tmp/promote"}}]}}
    out = engine.run(workflow("retrain", [{"name": "main", "dag": {"tasks": tasks}}, stand_in]))
    assert out["status"]["phase"] == "Succeeded"
    phases = {_short(out, nid): n["phase"] for nid, n in out["status"]["nodes"].items()}
    assert phases[".train"] == "Succeeded" and phases[".convert-trt"] == "Skipped" and phases[".deploy"] == "Omitted"
    assert edges(out) == {"/": [".export-annotations"], ".export-annotations": [".train"], ".train": [".evaluate"],
                          ".evaluate": [".convert-trt"], ".convert-trt": [".deploy"]}
    assert outbound(out) == {"/": [".deploy"]}


def test_failed_dag_links_its_outbound_nodes_too(engine: EngineRun) -> None:
    """Argo's executeDAG sets a Failed DAG's outbound nodes as a Succeeded one's (updateOutboundNodesForTargetTasks):
    an Omitted target is its own outbound node."""
    fail = {"name": "fail", "container": {"image": "busybox", "command": ["sh", "-c", "exit 3"]}}
    out = engine.run(workflow("faildag", [{"name": "main", "dag": {"tasks": [
        task("A", template="fail"), task("B", "A")]}}, fail]))
    assert out["status"]["phase"] == "Failed"
    assert edges(out) == {"/": [".A"], ".A": [".B"]}
    assert outbound(out) == {"/": [".B"]}


def test_a_loop_of_failed_dags_carries_the_failure_to_its_omitted_dependant(engine: EngineRun) -> None:
    """A dependant Omitted after a loop item's nested DAG failed hangs under that item's leaves, so its branch
    carries the failure and the outer DAG fails (Argo's assessDAGPhase over the node graph)."""
    check = {"name": "check", "inputs": {"parameters": [{"name": "v"}]},
             "container": {"image": "busybox", "command": ["sh", "-c", "test {{inputs.parameters.v}} != bad"]}}
    inner = {"name": "inner", "inputs": {"parameters": [{"name": "v"}]}, "dag": {"tasks": [
        task("C", template="check", arguments={"parameters": [{"name": "v", "value": "{{inputs.parameters.v}}"}]})]}}
    out = engine.run(workflow("loopfail", [{"name": "main", "dag": {"tasks": [
        task("L", template="inner", withItems=["ok", "bad"],
             arguments={"parameters": [{"name": "v", "value": "{{item}}"}]}),
        task("E", "L")]}}, inner, check]))
    phases = {_short(out, nid): n["phase"] for nid, n in out["status"]["nodes"].items()}
    assert phases[".E"] == "Omitted" and phases[".L(1:bad)"] == "Failed", phases
    assert out["status"]["phase"] == "Failed", phases
    assert edges(out)[".L(1:bad).C"] == [".E"]


def test_every_edge_names_a_node(engine: EngineRun) -> None:
    """Every child and outbound id is a node of the run (what the UI's graph looks up)."""
    out = engine.run(workflow("ids", [{"name": "main", "dag": {"tasks": [task("A"), task("B", "A", "sub")]}},
                                      {"name": "sub", "steps": [[{"name": "s", "template": "echo"}]]}]))
    nodes = out["status"]["nodes"]
    refs = {c for n in nodes.values() for c in [*n.get("children", []), *n.get("outboundNodes", [])]}
    assert refs and refs <= set(nodes)


def test_exit_and_lifecycle_hooks_hang_off_their_step_or_task(engine: EngineRun) -> None:
    """Argo adds a step's or task's onExit and lifecycle-hook nodes as children of that node."""
    steps = {"name": "main", "steps": [
        [{"name": "a", "template": "echo", "onExit": "echo",
          "hooks": {"running": {"expression": 'steps.a.status == "Running"', "template": "echo"}}}],
        [{"name": "b", "template": "dag"}]]}
    dag = {"name": "dag", "dag": {"tasks": [task("X", hooks={"exit": {"template": "echo"}}), task("Y", "X")]}}
    out = engine.run(workflow("hooks", [steps, dag]))
    assert out["status"]["phase"] == "Succeeded"
    assert edges(out) == {
        "/": ["[0]"], "[0]": ["[0].a"], "[0].a": ["[0].a.hooks.running", "[0].a.onExit", "[1]"], "[1]": ["[1].b"],
        "[1].b": ["[1].b.X"], "[1].b.X": ["[1].b.X.onExit", "[1].b.Y"]}
    assert outbound(out) == {"/": ["[1].b.Y"], "[1].b": ["[1].b.Y"]}
