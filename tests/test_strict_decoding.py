"""Strict decoding without the CRDs (aipipe/compile/strict.py), as `argo submit` and `argo lint` decode: a field Argo
v4's types lack is an error naming its path; fields Argo v4.1 added pass; `aipipe lint` refuses before any server."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.compile.diagnostics import format_path
from aipipe.compile.lint import lint_documents
from aipipe.compile.strict import refuse_misshapen, refuse_undeclared, undeclared_fields
from aipipe.errors import UserError

REPO = Path(__file__).resolve().parents[1]
WORKFLOW: dict[str, Any] = yaml.safe_load("""
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: strict-, labels: {team: ml}}
spec:
  entrypoint: main
  arguments: {parameters: [{name: n, value: "3"}]}
  synchronization: {mutexes: [{name: one}]}
  templates:
  - name: main
    steps:
    - - {name: a, template: leaf, arguments: {parameters: [{name: x, value: "1"}]}}
    - - {name: b, template: graph, withItems: [1, 2]}
  - name: graph
    dag:
      tasks:
      - {name: t, template: leaf, depends: "", arguments: {parameters: [{name: x, value: "2"}]}}
  - name: leaf
    inputs: {parameters: [{name: x}]}
    retryStrategy: {limit: 2, retryPolicy: Always}
    activeDeadlineSeconds: "30"
    podResources: {}
    container:
      image: busybox
      command: [echo, "{{inputs.parameters.x}}"]
      resources: {limits: {cpu: 500m, memory: 64Mi}}
      env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
""")


def found(doc: dict[str, Any]) -> list[str]:
    return [format_path(path) for path, _ in undeclared_fields(doc)]


def test_a_manifest_with_only_argo_fields_passes_including_those_v4_1_added() -> None:
    assert found(WORKFLOW) == []


@pytest.mark.parametrize(("where", "key", "path"), [
    (("spec", "templates", 2, "container"), "extraKnob", "spec.templates[2].container.extraKnob"),
    (("spec", "templates", 0, "steps", 0, 0), "tempalte", "spec.templates[0].steps[0][0].tempalte"),
    (("spec", "templates", 1, "dag", "tasks", 0), "dependz", "spec.templates[1].dag.tasks[0].dependz"),
    (("spec", "templates", 2, "retryStrategy"), "backof", "spec.templates[2].retryStrategy.backof"),
    (("spec", "synchronization"), "mutex", "spec.synchronization.mutex"),  # removed in Argo v4.0
])
def test_an_undeclared_field_is_found_by_its_path(where: tuple[str | int, ...], key: str, path: str) -> None:
    doc = copy.deepcopy(WORKFLOW)
    node: Any = doc
    for step in where:
        node = node[step]
    node[key] = {"name": "x"}
    assert found(doc) == [path]
    with pytest.raises(UserError, match="unknown field") as refused:
        refuse_undeclared(doc)
    assert refused.value.field == path


@pytest.mark.parametrize(("where", "value", "words"), [
    (("spec", "templates", 2, "container", "command"), "echo hi", "cannot unmarshal a string into a list"),
    (("spec", "templates", 2, "retryStrategy"), [2], "cannot unmarshal a list into an object"),
    (("spec", "templates", 0, "steps"), {"a": 1}, "cannot unmarshal an object into a list"),
    (("spec", "templates", 0, "parallelism"), "{{workflow.parameters.p}}", "cannot unmarshal a string into an integer"),
    (("spec", "parallelism"), True, "cannot unmarshal a boolean into an integer"),
    (("spec", "templates", 2, "daemon"), "true", "cannot unmarshal a string into a boolean"),
])
def test_a_value_of_the_wrong_shape_is_refused(where: tuple[str | int, ...], value: Any, words: str) -> None:
    """Go's decoding refuses a string for a []string, as for the command a user wrote as one string, and a string for
    an int64 or a bool."""
    doc = copy.deepcopy(WORKFLOW)
    node: Any = doc
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = value
    with pytest.raises(UserError, match=words) as refused:
        refuse_undeclared(doc)
    assert refused.value.field == format_path(list(where))


def test_case_matters_as_in_kubernetes_decoding() -> None:
    doc = copy.deepcopy(WORKFLOW)
    doc["spec"]["templates"][2]["activedeadlineseconds"] = 5
    assert found(doc) == ["spec.templates[2].activedeadlineseconds"]


def test_other_kinds_are_not_decoded_strictly() -> None:
    assert found({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}) == []


def test_lint_without_the_crds_refuses_an_unknown_field(tmp_path: Path) -> None:
    doc = copy.deepcopy(WORKFLOW)
    doc["spec"]["templates"][2]["retryStratgy"] = {"limit": 1}
    (diagnostic,) = [d for d in lint_documents([("wf.yaml", doc)]) if d.check == "schema"]
    assert (diagnostic.template, diagnostic.field) == ("leaf", "spec.templates[2].retryStratgy")
    path = tmp_path / "wf.yaml"
    path.write_text(yaml.safe_dump(doc))
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "lint", str(path)], capture_output=True,
                         text=True, cwd=REPO, timeout=120)
    assert run.returncode == 1 and "unknown field 'retryStratgy'" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_run_refuses_an_unknown_field_before_anything_is_stored(tmp_path: Path) -> None:
    doc = copy.deepcopy(WORKFLOW)
    doc["spec"]["templates"][2]["container"]["extraKnob"] = True
    path = tmp_path / "wf.yaml"
    path.write_text(yaml.safe_dump(doc))
    home = tmp_path / "home"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "AIPIPE_HOME": str(home)}
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "run", str(path)], capture_output=True,
                         text=True, cwd=REPO, timeout=120, env=env)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "spec.templates[2].container.extraKnob: unknown field" in run.stderr and "Traceback" not in run.stderr
    listed = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "list", "-o", "name"], capture_output=True,
                            text=True, cwd=REPO, timeout=120, env=env)
    assert listed.returncode == 0 and listed.stdout.strip() == ""


def test_first_unknown_field_is_the_one_go_meets_first() -> None:
    """The CLI turns YAML into JSON through Go maps (keys sorted), so `spec.inputs` is met before a field inside
    `spec.templates`, wherever each stands in the file."""
    doc = copy.deepcopy(WORKFLOW)
    doc["spec"]["templates"][0]["arguments"] = {}
    doc["spec"]["inputs"] = {}
    with pytest.raises(UserError) as info:
        refuse_undeclared(doc)
    assert info.value.field == "spec.inputs"


def test_the_server_refuses_a_wrong_shape_but_drops_an_unknown_field() -> None:
    doc = copy.deepcopy(WORKFLOW)
    doc["spec"]["inputs"] = {}  # dropped, as the API drops an unknown field
    refuse_misshapen(doc)
    doc["spec"]["templates"][0]["steps"] = [{"name": "a", "template": "leaf"}]  # a flat list, not groups
    with pytest.raises(UserError, match="cannot unmarshal an object into a list") as info:
        refuse_misshapen(doc)
    assert info.value.field == "spec.templates[0].steps[0]"
