"""`aipipe lint`: one broken manifest per semantic error kind, plus the CLI and the conformance corpus."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.compile.lint import depends_tasks, lint_documents
from aipipe.compile.sources import documents_from_paths
from aipipe.config import load_config

REPO = Path(__file__).resolve().parents[1]


def workflow(templates: list[dict[str, Any]], entrypoint: str = "main", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "t-"},
            "spec": {"entrypoint": entrypoint, "templates": templates, **spec}}


def echo(name: str = "echo", inputs: tuple[str, ...] = ("msg",), outputs: tuple[str, ...] = ("out",)) -> dict:
    return {"name": name,
            "inputs": {"parameters": [{"name": i} for i in inputs]},
            "outputs": {"parameters": [{"name": o, "valueFrom": {"path": f"/tmp/{o}"}} for o in outputs]},
            "container": {"image": "busybox", "args": ["echo", *(f"{{{{inputs.parameters.{i}}}}}" for i in inputs)]}}


def task(name: str, template: str = "echo", msg: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"name": name, "template": template, "arguments": {"parameters": [{"name": "msg", "value": msg}]}, **extra}


def dag(*tasks: dict[str, Any]) -> dict[str, Any]:
    return {"name": "main", "dag": {"tasks": list(tasks)}}


GOOD = workflow([dag(task("a"), task("b", msg="{{tasks.a.outputs.parameters.out}}", depends="a")), echo()])


def only(diagnostics, check):
    found = [d for d in diagnostics if d.severity == "error"]
    assert found, "expected a diagnostic"
    assert {d.check for d in found} == {check}, [str(d) for d in found]
    return found


def test_good_manifest_is_clean():
    assert lint_documents([("good.yaml", GOOD)]) == []


def test_unknown_template_name():
    doc = workflow([dag(task("a", template="ehco")), echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "template-ref")
    assert (d.file, d.kind, d.name, d.template, d.field) == (
        "wf.yaml", "Workflow", "t-", "main", "spec.templates[0].dag.tasks[0].template")
    assert "unknown template 'ehco'" in d.message


def test_unknown_entrypoint():
    (d,) = only(lint_documents([("wf.yaml", workflow([echo()], entrypoint="mian"))]), "template-ref")
    assert d.field == "spec.entrypoint" and "'mian'" in d.message


def test_unknown_workflow_template_in_template_ref():
    doc = workflow([dag({"name": "a", "templateRef": {"name": "lib-v1", "template": "echo"}})])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "template-ref")
    assert d.field == "spec.templates[0].dag.tasks[0].templateRef.name"
    assert "unknown WorkflowTemplate 'lib-v1'" in d.message


def test_unknown_template_inside_a_known_workflow_template():
    library = {"apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate", "metadata": {"name": "lib-v1"},
               "spec": {"templates": [echo()]}}
    doc = workflow([dag({"name": "a", "templateRef": {"name": "lib-v1", "template": "echoo"},
                         "arguments": {"parameters": [{"name": "msg", "value": "x"}]}})])
    (d,) = only(lint_documents([("wf.yaml", doc), ("lib.yaml", library)]), "template-ref")
    assert d.field == "spec.templates[0].dag.tasks[0].templateRef.template" and "no template 'echoo'" in d.message
    doc["spec"]["templates"][0]["dag"]["tasks"][0]["templateRef"]["template"] = "echo"
    assert lint_documents([("wf.yaml", doc), ("lib.yaml", library)]) == []
    assert lint_documents([("wf.yaml", doc)], known_templates=[library]) == []


def test_undefined_input_parameter():
    bad = echo()
    bad["container"]["args"] = ["echo", "{{inputs.parameters.mesage}}"]
    (d,) = only(lint_documents([("wf.yaml", workflow([dag(task("a")), bad]))]), "reference")
    assert d.template == "echo" and d.field == "spec.templates[1].container.args[1]"
    assert "undefined input parameter 'mesage'" in d.message


def test_an_inline_template_is_checked_against_its_own_inputs():
    inline = {k: v for k, v in echo().items() if k != "name"}
    good = workflow([dag(task("a"), {"name": "b", "depends": "a", "inline": inline,
                                     "arguments": {"parameters": [{"name": "msg",
                                                                   "value": "{{tasks.a.outputs.parameters.out}}"}]}}),
                     echo()])
    assert not [d for d in lint_documents([("wf.yaml", good)]) if d.severity == "error"]
    bad = copy.deepcopy(good)
    bad["spec"]["templates"][0]["dag"]["tasks"][1]["inline"]["container"]["args"] = ["{{inputs.parameters.mesage}}"]
    (d,) = only(lint_documents([("wf.yaml", bad)]), "reference")
    assert d.field == "spec.templates[0].dag.tasks[1].inline.container.args[0]"
    assert "undefined input parameter 'mesage'" in d.message


def test_undefined_task_output_parameter():
    doc = workflow([dag(task("a"), task("b", msg="{{tasks.a.outputs.parameters.result}}", depends="a")), echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "reference")
    assert d.field == "spec.templates[0].dag.tasks[1].arguments.parameters[0].value"
    assert "task 'a' has no output parameter 'result'" in d.message


def test_reference_to_unknown_task():
    doc = workflow([dag(task("a"), task("b", msg="{{tasks.z.outputs.parameters.out}}")), echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "reference")
    assert "unknown task 'z'" in d.message


def test_reference_to_a_task_that_is_not_upstream():
    doc = workflow([dag(task("a"), task("b"), task("c", msg="{{tasks.a.outputs.parameters.out}}", depends="b")),
                    echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "reference")
    assert "task 'c' uses task 'a' but does not depend on it" in d.message
    doc["spec"]["templates"][0]["dag"]["tasks"][1]["depends"] = "a"  # now a -> b -> c: transitive is fine
    assert lint_documents([("wf.yaml", doc)]) == []


def test_reference_to_a_step_of_the_same_group():
    steps = {"name": "main", "steps": [[task("one"), task("two", msg="{{steps.one.outputs.parameters.out}}")]]}
    (d,) = only(lint_documents([("wf.yaml", workflow([steps, echo()]))]), "reference")
    assert "step 'two' uses step 'one', which is not in an earlier step group" in d.message


def test_undefined_step_output_parameter():
    steps = {"name": "main", "steps": [[task("one")], [task("two", msg="{{steps.one.outputs.parameters.nope}}")]]}
    (d,) = only(lint_documents([("wf.yaml", workflow([steps, echo()]))]), "reference")
    assert d.field == "spec.templates[0].steps[1][0].arguments.parameters[0].value"
    assert "step 'one' has no output parameter 'nope'" in d.message


def test_undefined_workflow_parameter():
    doc = workflow([dag(task("a", msg="{{workflow.parameters.colour}}")), echo()],
                   arguments={"parameters": [{"name": "color", "value": "red"}]})
    (d,) = only(lint_documents([("wf.yaml", doc)]), "reference")
    assert "undefined workflow parameter 'colour'" in d.message


def test_dependency_cycle():
    doc = workflow([dag(task("a", depends="c"), task("b", dependencies=["a"]), task("c", depends="b.Succeeded")),
                    echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "cycle")
    assert "dependency cycle: a -> c -> b -> a" in d.message and d.field == "spec.templates[0].dag.tasks[0]"


def test_dependency_on_unknown_task():
    doc = workflow([dag(task("a"), task("b", depends="a && (x.Failed || a.Succeeded)")), echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "cycle")
    assert "depends on unknown task 'x'" in d.message and d.field == "spec.templates[0].dag.tasks[1].depends"


def test_missing_required_argument():
    doc = workflow([dag({"name": "a", "template": "echo"}), echo()])
    (d,) = only(lint_documents([("wf.yaml", doc)]), "argument")
    assert "missing required argument 'msg' for template 'echo'" in d.message


def test_workflow_argument_without_value():
    doc = copy.deepcopy(GOOD)
    doc["spec"]["arguments"] = {"parameters": [{"name": "project"}]}
    (d,) = only(lint_documents([("wf.yaml", doc)]), "argument")
    assert d.field == "spec.arguments.parameters[0]" and "'project' has no value" in d.message


def test_structural_error_names_the_field(shared_dir):
    doc = copy.deepcopy(GOOD)
    doc["spec"]["templates"][1]["retryStrategy"] = {"limit": {"times": 3}}
    (d,) = only(lint_documents([("wf.yaml", doc)], shared_dir / "argo" / "crds-full"), "schema")
    assert (d.template, d.field) == ("echo", "spec.templates[1].retryStrategy.limit")


def test_a_null_field_is_pruned_as_the_api_server_prunes_it(shared_dir):
    """An empty ``inputs:`` (YAML null) is no inputs to the API server, not a type error; a wrong type still is."""
    doc = copy.deepcopy(GOOD)
    doc["spec"]["templates"][1]["inputs"] = None
    assert not [d for d in lint_documents([("wf.yaml", doc)], shared_dir / "argo" / "crds-full")
                if d.check == "schema"]
    doc["spec"]["templates"][1]["inputs"] = []
    (d,) = [d for d in lint_documents([("wf.yaml", doc)], shared_dir / "argo" / "crds-full") if d.check == "schema"]
    assert d.field == "spec.templates[1].inputs"


def test_misspelled_field_is_reported(shared_dir):
    doc = copy.deepcopy(GOOD)
    doc["spec"]["templates"][1]["retryStratgy"] = {"limit": 2}
    (d,) = only(lint_documents([("wf.yaml", doc)], shared_dir / "argo" / "crds-full"), "schema")
    assert (d.template, d.field) == ("echo", "spec.templates[1].retryStratgy")
    assert "unknown field 'retryStratgy'" in d.message


def test_a_yaml_that_is_not_a_manifest_is_reported():
    (d,) = only(lint_documents([("notes.yaml", {"hello": "world"})]), "schema")
    assert d.file == "notes.yaml" and "not a Kubernetes manifest" in d.message


def test_depends_parsing():
    assert depends_tasks("a && (b.Failed || !c) || d.AnySucceeded") == ["a", "b", "c", "d"]


def test_cli_lint_reports_each_problem_and_fails(tmp_path):
    bad = copy.deepcopy(GOOD)
    bad["spec"]["templates"][0]["dag"]["tasks"][1]["arguments"]["parameters"][0]["value"] = \
        "{{tasks.a.outputs.parameters.missing}}"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "lint", str(path)], capture_output=True,
                         text=True, cwd=REPO, timeout=120)
    assert run.returncode == 1
    assert (f"{path}: Workflow/t-: template main: spec.templates[0].dag.tasks[1].arguments.parameters[0].value: "
            "error: task 'a' has no output parameter 'missing'") in run.stdout
    missing = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "lint", str(tmp_path / "nope.yaml")],
                             capture_output=True, text=True, cwd=REPO, timeout=120)
    assert missing.returncode == 2 and missing.stderr.strip().endswith("nope.yaml: no such file")
    assert len(missing.stderr.strip().splitlines()) == 1


def test_upstream_conformance_corpus_lints_clean_except_the_rejected_one(shared_dir):
    corpus = shared_dir / "argo" / "conformance"
    expected = yaml.safe_load((corpus / "EXPECTED.yaml").read_text())
    files = sorted(p for p in corpus.glob("*.yaml") if p.name != "EXPECTED.yaml")
    docs = documents_from_paths(files, load_config(env={}))
    errors = [d for d in lint_documents(docs, shared_dir / "argo" / "crds-full") if d.severity == "error"]
    flagged = {Path(d.file).name for d in errors}
    rejected = {name for name, e in expected.items() if e.get("phase") == "rejected"}
    assert flagged == rejected, [str(d) for d in errors]


@pytest.mark.parametrize("kind", ["WorkflowTemplate", "CronWorkflow"])
def test_templates_and_cron_workflows_are_linted_too(kind):
    spec = {"templates": [echo()], "entrypoint": "mian"}
    doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": kind, "metadata": {"name": "x"},
           "spec": spec if kind == "WorkflowTemplate" else {"schedules": ["* * * * *"], "workflowSpec": spec}}
    doc_spec = spec
    doc_spec["templates"][0]["container"]["args"] = ["{{inputs.parameters.nope}}"]
    found = [d for d in lint_documents([("x.yaml", doc)]) if d.severity == "error"]
    assert "undefined input parameter 'nope'" in " ".join(d.message for d in found)
    if kind == "CronWorkflow":
        assert any(d.field == "spec.workflowSpec.entrypoint" for d in found)
