"""Fields the embedded engine cannot honour as written are refused at submit, naming the field; fields that only govern
cluster resources are accepted; ``workflowMetadata.labelsFrom`` gives the run its labels."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.config import load_config
from aipipe.engine.context import dict_templates, no_templates
from aipipe.engine.names import pod_name
from aipipe.engine.validate import validate_workflow
from aipipe.engine.wfmeta import with_workflow_metadata
from aipipe.engine.wfref import resolve_workflow_spec
from aipipe.errors import UserError
from cron._common import retrain_template
from pipelines.templates import build_all
from tests.engine.conftest import EngineRun

REPO_ROOT = Path(__file__).resolve().parents[2]
ECHO = {"image": "busybox", "command": ["sh", "-c", "echo ok"]}


def workflow(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "wf"},
            "spec": {"entrypoint": "main", **spec, "templates": [
                {"name": "main", "steps": [[{"name": "s", "template": "leaf"}]]},
                *templates]}}


def test_a_memoize_that_cannot_work_names_its_field() -> None:
    """memoize runs (tests/engine/test_memoize.py); one without a cache is refused at its exact field."""
    wf = workflow({"name": "leaf", "memoize": {"key": "k", "maxAge": "1h"}, "container": ECHO})
    with pytest.raises(UserError) as caught:
        validate_workflow(wf, no_templates)
    assert caught.value.field == "spec.templates[1].memoize.cache.configMap.name"
    assert "is required" in str(caught.value)


def test_refused_in_inline_templates_defaults_and_workflow_templates() -> None:
    inline = workflow({"name": "leaf", "container": ECHO})
    inline["spec"]["templates"][0]["steps"][0][0] = {"name": "s", "inline": {"memoize": {"key": "x"},
                                                                            "container": ECHO}}
    with pytest.raises(UserError, match=r"spec\.templates\[0\]\.steps\[0\]\[0\]\.inline\.memoize"):
        validate_workflow(inline, no_templates)
    dag = workflow({"name": "leaf", "container": ECHO})
    dag["spec"]["templates"][0] = {"name": "main", "dag": {"tasks": [
        {"name": "t", "inline": {"memoize": {"key": "k"}, "container": ECHO}}]}}
    with pytest.raises(UserError, match=r"spec\.templates\[0\]\.dag\.tasks\[0\]\.inline\.memoize"):
        validate_workflow(dag, no_templates)
    defaults = workflow({"name": "leaf", "container": ECHO}, templateDefaults={"memoize": {"key": "i"}})
    with pytest.raises(UserError, match=r"spec\.templateDefaults\.memoize"):
        validate_workflow(defaults, no_templates)
    library = {"apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate", "metadata": {"name": "lib"},
               "spec": {"templates": [{"name": "serve", "memoize": {"key": "k"}, "container": ECHO}]}}
    uses = workflow({"name": "leaf", "steps": [[{"name": "x", "templateRef": {"name": "lib", "template": "serve"}}]]})
    with pytest.raises(UserError, match=r"WorkflowTemplate lib: spec\.templates\[0\]\.memoize"):
        validate_workflow(uses, dict_templates([library]))


def test_cluster_only_fields_are_accepted_and_the_run_succeeds(engine: EngineRun) -> None:
    wf = workflow({"name": "leaf", "daemon": False, "sidecars": [], "container": {
        **ECHO, "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "64Mi"}}}},
        ttlStrategy={"secondsAfterCompletion": 1}, podGC={"strategy": "OnPodCompletion"})
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")


def test_cli_run_refuses_with_one_line_naming_the_field(tmp_path: Path) -> None:
    manifest = tmp_path / "wf.yaml"
    manifest.write_text(yaml.safe_dump(workflow({"name": "leaf", "memoize": {"key": "k", "maxAge": "1h"},
                                                 "container": ECHO})))
    env = {**os.environ, "AIPIPE_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "run", str(manifest)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "spec.templates[1].memoize.cache.configMap.name" in line and "is required" in line
    assert not (tmp_path / "home" / "runs").exists() or not any((tmp_path / "home" / "runs").iterdir())


def test_labels_from_over_the_retrain_template_labels_the_run(tmp_path: Path) -> None:
    """The WorkflowTemplate event triggers submit labels each run with its project (cron/_common.py)."""
    cfg = load_config(env={"AIPIPE_HOME": str(tmp_path)})
    template = retrain_template(cfg)
    manifests = [template, *(t.to_dict() for t in build_all(cfg))]
    run: dict[str, Any] = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
           "metadata": {"generateName": "aipipe-retrain-", "labels": {"aipipe.io/trigger": "data-drop"}},
           "spec": {"workflowTemplateRef": {"name": template["metadata"]["name"]},
                    "arguments": {"parameters": [{"name": "project", "value": "birds-7"}]}}}
    validate_workflow(run, dict_templates(manifests))  # the step templates' resources etc. pass
    labelled = with_workflow_metadata(run, resolve_workflow_spec(run, dict_templates(manifests)))
    labels = labelled["metadata"]["labels"]
    assert labels["aipipe.io/project"] == "birds-7" and labels["aipipe.io/trigger"] == "data-drop"
    assert labelled["metadata"]["annotations"] == template["spec"]["workflowMetadata"]["annotations"]
    assert "labels" in run["metadata"] and "aipipe.io/project" not in run["metadata"]["labels"]  # a copy


def meta_spec(expression: str, **labels: str) -> dict[str, Any]:
    return {"entrypoint": "main", "arguments": {"parameters": [{"name": "foo", "value": "bar"}]},
            "workflowMetadata": {"labels": labels, "labelsFrom": {"computed": {"expression": expression}}}}


@pytest.mark.parametrize(("expression", "expected"), [
    ("workflow.parameters.foo", "bar"),
    ("workflow.parameters.foo + '-' + workflow.mainEntrypoint", "bar-main"),
    ("workflow.labels.fixed == 'yes' ? 'seen' : 'unseen'", "seen"),
])
def test_labels_from_expressions(expression: str, expected: str) -> None:
    spec = meta_spec(expression, fixed="yes")
    out = with_workflow_metadata({"metadata": {"name": "wf"}, "spec": spec}, spec)
    assert out["metadata"]["labels"] == {"fixed": "yes", "computed": expected}


@pytest.mark.parametrize(("expression", "problem"), [
    ("workflow.parameters.foo +", "failed to evaluate"),
    ("1 + 2", "gave a int"),
    ("workflow.parameters.foo + ' has spaces'", "invalid label value"),
])
def test_labels_from_that_cannot_be_a_label_is_refused(expression: str, problem: str) -> None:
    spec = meta_spec(expression)
    with pytest.raises(UserError, match=problem) as caught:
        with_workflow_metadata({"metadata": {"name": "wf"}}, spec)
    assert caught.value.field == "spec.workflowMetadata.labelsFrom.computed"


def test_volume_kinds_a_node_cannot_mount_are_refused() -> None:
    host = workflow({"name": "leaf", "container": ECHO}, volumes=[{"name": "h", "hostPath": {"path": "/var"}}])
    with pytest.raises(UserError, match=r"spec\.volumes\[0\]\.hostPath: hostPath volumes are not supported"):
        validate_workflow(host, no_templates)
    nfs = workflow({"name": "leaf", "container": ECHO, "volumes": [
        {"name": "ok", "emptyDir": {}}, {"name": "n", "nfs": {"server": "s", "path": "/"}}]})
    with pytest.raises(UserError, match=r"spec\.templates\[1\]\.volumes\[1\]\.nfs"):
        validate_workflow(nfs, no_templates)
    fine = workflow({"name": "leaf", "container": ECHO, "volumes": [
        {"name": "a", "emptyDir": {}}, {"name": "b", "configMap": {"name": "c"}}, {"name": "c", "secret": {}},
        {"name": "d", "persistentVolumeClaim": {"claimName": "x"}}]})
    validate_workflow(fine, no_templates)


def test_field_refs_give_the_node_its_pod_name_namespace_and_address(engine: EngineRun) -> None:
    """valueFrom.fieldRef reads what a node has locally: Argo's pod name for it, the run's namespace, this host."""
    env = [{"name": n, "valueFrom": {"fieldRef": {"fieldPath": p}}} for n, p in (
        ("POD", "metadata.name"), ("NS", "metadata.namespace"), ("IP", "status.podIP"), ("HOST", "spec.nodeName"))]
    wf = workflow({"name": "leaf", "container": {"image": "busybox", "command": [
        "sh", "-c", 'echo "$POD $NS $IP $HOST"'], "env": env}})
    wf["metadata"]["namespace"] = "team-a"
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    pod, namespace, ip, host = node["outputs"]["result"].split()
    assert pod == pod_name("wf", node["name"], "leaf") and pod.startswith("wf-leaf-")
    assert (namespace, ip, host) == ("team-a", "127.0.0.1", socket.gethostname())


def test_field_refs_read_the_pods_labels_and_annotations(engine: EngineRun) -> None:
    """The labels Argo's controller puts on a pod, then the template's own; a key the pod lacks reads empty."""
    env = [{"name": n, "valueFrom": {"fieldRef": {"fieldPath": p}}} for n, p in (
        ("RUN", "metadata.labels['workflows.argoproj.io/workflow']"), ("TEAM", "metadata.labels['team']"),
        ("NOTE", "metadata.annotations['note']"), ("GONE", "metadata.labels['absent']"))]
    wf = workflow({"name": "leaf", "metadata": {"labels": {"team": "vision"}, "annotations": {"note": "n1"}},
                   "container": {"image": "busybox", "command": ["sh", "-c", 'echo "$RUN|$TEAM|$NOTE|${GONE-unset}"'],
                                 "env": env}})
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert node["outputs"]["result"] == "wf|vision|n1|"


def test_a_field_ref_without_a_local_value_is_refused() -> None:
    source = {"fieldRef": {"fieldPath": "metadata.uid"}}
    wf = workflow({"name": "leaf", "container": {**ECHO, "env": [{"name": "X", "valueFrom": source}]}})
    with pytest.raises(UserError) as caught:
        validate_workflow(wf, no_templates)
    assert caught.value.field == "spec.templates[1].container.env[0].valueFrom.fieldRef.fieldPath"
    assert "submit this workflow to Argo" in str(caught.value)


@pytest.mark.parametrize(("ref", "field"), [({"resource": "limits.gpu"}, "resource"),
                                            ({"resource": "limits.cpu", "divisor": "lots"}, "divisor")])
def test_a_resource_field_ref_kubernetes_refuses_is_refused(ref: dict[str, Any], field: str) -> None:
    wf = workflow({"name": "leaf", "container": {**ECHO, "env": [
        {"name": "X", "valueFrom": {"resourceFieldRef": ref}}]}})
    with pytest.raises(UserError) as caught:
        validate_workflow(wf, no_templates)
    assert caught.value.field == f"spec.templates[1].container.env[0].valueFrom.resourceFieldRef.{field}"


def test_resource_field_refs_read_the_containers_resources_or_the_machine(engine: EngineRun) -> None:
    """As the kubelet: a limit the container sets (divided, rounded up), a request it does not set is its limit,
    and a limit it does not set is what the node can give."""
    refs = {"LIM_MEM": {"resource": "limits.memory", "divisor": "1Mi"}, "REQ_CPU": {"resource": "requests.cpu",
            "divisor": "1m"}, "CPUS": {"resource": "limits.cpu"}, "REQ_MEM": {"resource": "requests.memory"}}
    body = {**ECHO, "command": ["sh", "-c", "echo $LIM_MEM $REQ_CPU $CPUS $REQ_MEM"],
            "resources": {"limits": {"memory": "1500Ki"}, "requests": {"cpu": "250m"}},
            "env": [{"name": k, "valueFrom": {"resourceFieldRef": v}} for k, v in refs.items()]}
    out = engine.run({"metadata": {"name": "res"}, "spec": {"entrypoint": "leaf", "templates": [
        {"name": "leaf", "container": body}]}})
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = [n for n in out["status"]["nodes"].values() if n["type"] == "Pod"]
    assert node["outputs"]["result"] == f"2 250 {len(os.sched_getaffinity(0))} 1536000"
