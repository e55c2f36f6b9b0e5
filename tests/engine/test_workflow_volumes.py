"""Workflow-level volumes take the scope of the node that mounts them: the caller's (earlier steps' outputs) and
then the node's own (its inputs), as Argo substitutes ``spec.volumes``; a volume no node mounts is not rendered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.engine.conftest import EngineRun, nodes_by_display


def config_map(home: Path, name: str, **keys: str) -> None:
    folder = home / "configmaps" / name
    folder.mkdir(parents=True)
    for key, value in keys.items():
        (folder / key).write_text(value)


def workflow(volumes: list[dict[str, Any]], consume: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "vols"}, "spec": {
        "entrypoint": "main", "volumes": volumes,
        "arguments": {"parameters": [{"name": "suffix", "value": "config"}]},
        "templates": [
            {"name": "main", "steps": [
                [{"name": "pick", "template": "pick"}],
                [{"name": "use", "template": "consume", "arguments": {"parameters": [
                    {"name": "which", "value": "{{steps.pick.outputs.result}}"}]}}]]},
            {"name": "pick", "script": {"image": "busybox", "command": ["sh"], "source": "echo second"}},
            {"name": "consume", "inputs": {"parameters": [{"name": "which"}]}, **consume}]}}


def test_volume_names_from_a_parameter_the_node_input_and_an_earlier_step(engine: EngineRun) -> None:
    config_map(engine.home, "first-config", greeting="from a workflow parameter")
    config_map(engine.home, "second-config", greeting="from the node's input")
    config_map(engine.home, "second-output", greeting="from an earlier step's output")
    volumes = [{"name": "by-param", "configMap": {"name": "first-{{workflow.parameters.suffix}}"}},
               {"name": "by-input", "configMap": {"name": "{{inputs.parameters.which}}-config"}},
               {"name": "by-output", "configMap": {"name": "{{steps.pick.outputs.result}}-output"}}]
    wf = workflow(volumes, {"container": {
        "image": "busybox", "command": ["sh", "-c", "cat /a/greeting; echo; cat /b/greeting; echo; cat /c/greeting"],
        "volumeMounts": [{"name": "by-param", "mountPath": "/a"}, {"name": "by-input", "mountPath": "/b"},
                         {"name": "by-output", "mountPath": "/c"}]}})
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [use] = nodes_by_display(out)["use"]
    assert use["outputs"]["result"].splitlines() == [
        "from a workflow parameter", "from the node's input", "from an earlier step's output"]


def test_a_volume_no_node_mounts_is_never_rendered(engine: EngineRun) -> None:
    volumes = [{"name": "unused", "configMap": {"name": "{{steps.nowhere.outputs.result}}"}}]
    out = engine.run(workflow(volumes, {"container": {"image": "busybox", "command": ["echo", "ok"]}}))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")


def test_a_mounted_volume_whose_tag_never_resolves_fails_its_node_naming_the_tag(engine: EngineRun) -> None:
    volumes = [{"name": "bad", "configMap": {"name": "{{steps.nowhere.outputs.result}}"}}]
    wf = workflow(volumes, {"container": {"image": "busybox", "command": ["echo", "ok"],
                                          "volumeMounts": [{"name": "bad", "mountPath": "/bad"}]}})
    out = engine.run(wf)
    [use] = nodes_by_display(out)["use"]
    assert out["status"]["phase"] != "Succeeded" and use["phase"] == "Error"
    assert "{{steps.nowhere.outputs.result}}" in use["message"], use["message"]
    assert not engine.log_text("use", out["status"])


def test_outputs_and_inputs_under_a_claim_mount_live_in_the_volume(engine: EngineRun) -> None:
    """As Argo's executor: an output under a persistent volume's mount is read from the volume, and an input artifact
    whose path lies in it is loaded into the volume, where a later node mounting the claim finds it."""
    wf = {"metadata": {"name": "claims"}, "spec": {
        "entrypoint": "main",
        "volumeClaimTemplates": [{"metadata": {"name": "work"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}],
        "templates": [
            {"name": "main", "steps": [
                [{"name": "make", "template": "make"}],
                [{"name": "take", "template": "take", "arguments": {"artifacts": [
                    {"name": "report", "from": "{{steps.make.outputs.artifacts.report}}"}]}}],
                [{"name": "look", "template": "look"}]]},
            {"name": "make", "container": {
                "image": "busybox", "command": ["sh", "-c", "mkdir -p /data/final && echo 42 > /data/final/n.txt"],
                "volumeMounts": [{"name": "work", "mountPath": "/data"}]},
             "outputs": {"parameters": [{"name": "n", "valueFrom": {"path": "/data/final/n.txt"}}],
                         "artifacts": [{"name": "report", "path": "/data/final"}]}},
            {"name": "take", "inputs": {"artifacts": [{"name": "report", "path": "/data/copy"}]}, "container": {
                "image": "busybox", "command": ["cat", "/data/copy/n.txt"],
                "volumeMounts": [{"name": "work", "mountPath": "/data"}]}},
            {"name": "look", "container": {
                "image": "busybox", "command": ["sh", "-c", "ls /data/copy"],
                "volumeMounts": [{"name": "work", "mountPath": "/data"}]}}]}}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    nodes = nodes_by_display(out)
    assert nodes["make"][0]["outputs"]["parameters"][0]["value"] == "42"
    assert nodes["take"][0]["outputs"]["result"] == "42"
    assert nodes["look"][0]["outputs"]["result"] == "n.txt", "the input artifact was loaded into the volume"
