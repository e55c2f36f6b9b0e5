"""Compiling pipelines/retrain.py: CRD-valid manifests that follow the step contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from aipipe.compile import compile_pipeline
from aipipe.compile.lint import lint_documents
from aipipe.compile.schema import load_validators, schema_errors
from aipipe.config import load_config
from aipipe.contract import OUTPUTS_DIR
from aipipe.discovery import discover_steps
from aipipe.errors import UserError

STEPS = discover_steps()  # every step folder's contract, by Argo name

REPO = Path(__file__).resolve().parents[1]
PIPELINE = REPO / "pipelines" / "retrain.py"


@pytest.fixture(scope="module")
def cfg():
    return load_config(env={"AIPIPE_HOME": "/var/lib/aipipe", "AIPIPE_STORAGE_ROOT": "s3://bucket/aipipe",
                            "AIPIPE_S3_ENDPOINT": "http://minio:9000", "LABEL_STUDIO_API_KEY": "sekret-ls",
                            "AWS_SECRET_ACCESS_KEY": "sekret-aws", "AIPIPE_STEPS_IMAGE": "registry/steps:1"},
                       path=None)


@pytest.fixture(scope="module")
def compiled(cfg):
    return compile_pipeline(PIPELINE, cfg, {"epochs": "3", "gpu_memory_mib": "4096"})


@pytest.fixture(scope="module")
def crds(shared_dir):
    return shared_dir / "argo" / "crds-full"


def test_every_manifest_validates_against_the_argo_crds(compiled, crds):
    validators = load_validators(crds)
    kinds = [d["kind"] for d in compiled.documents()]
    assert kinds == ["Workflow"] + ["WorkflowTemplate"] * 5 + ["CronWorkflow"]
    for doc in compiled.documents():
        assert list(schema_errors(validators[doc["kind"]], doc)) == [], doc["metadata"]


def test_schema_check_is_live(compiled, crds):
    broken = yaml.safe_load(yaml.safe_dump(compiled.templates[0]))
    broken["spec"]["templates"][0]["retryStrategy"]["limit"] = ["three"]
    errors = list(schema_errors(load_validators(crds)["WorkflowTemplate"], broken))
    assert [path for path, _ in errors] == [["spec", "templates", 0, "retryStrategy", "limit"]]


def test_lint_passes_on_the_compiled_pipeline(compiled, crds):
    docs = [("retrain", d) for d in compiled.documents()]
    assert lint_documents(docs, crds) == []


def test_cli_compile_then_lint_with_crds(tmp_path, crds):
    out_dir = tmp_path / "manifests"
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "compile", str(PIPELINE), "--out-dir",
                          str(out_dir), "-p", "epochs=2"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == sorted(["workflow-aipipe-retrain.yaml", "cronworkflow-aipipe-retrain-nightly.yaml",
                            "eventsource-aipipe-label-studio.yaml", "sensor-aipipe-label-studio-retrain.yaml",
                            "eventsource-aipipe-data-drop.yaml", "sensor-aipipe-data-drop-retrain.yaml",
                            "workflowtemplate-aipipe-retrain.yaml",
                            "workfloweventbinding-aipipe-label-studio-retrain.yaml",
                            "workfloweventbinding-aipipe-data-drop-retrain.yaml",
                            *(f"workflowtemplate-{s.template_name}.yaml" for s in STEPS.values())])
    workflow = yaml.safe_load((out_dir / "workflow-aipipe-retrain.yaml").read_text())
    assert {"name": "epochs", "value": "2"} in [{k: p[k] for k in ("name", "value")}
                                               for p in workflow["spec"]["arguments"]["parameters"]]
    lint = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "lint", str(out_dir), "--schema-dir", str(crds)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "ok: 14 manifest(s) against the CRD schemas, 4 warning(s)" in lint.stdout  # argo-events: no CRD


def test_workflow_dag_chains_templates_through_output_parameters(compiled):
    wf = compiled.workflow
    assert wf["metadata"]["generateName"] == "aipipe-retrain-"
    assert wf["metadata"]["labels"]["aipipe.io/trigger"] == "manual"
    assert wf["metadata"]["labels"]["aipipe.io/project"] == "1"
    assert "workflows.argoproj.io/title" in wf["metadata"]["annotations"]
    (dag_template,) = wf["spec"]["templates"]
    tasks = {t["name"]: t for t in dag_template["dag"]["tasks"]}
    assert list(tasks) == ["export-annotations", "train", "evaluate", "convert-trt", "deploy"]
    for name, task in tasks.items():
        assert task["templateRef"] == {"name": STEPS[name].template_name, "template": name}
        given = {p["name"] for p in task["arguments"]["parameters"]}
        required = {i.name for i in STEPS[name].inputs if i.default is None}
        assert required <= given, name
        assert given <= {i.name for i in STEPS[name].inputs}, name
    assert tasks["train"]["when"] == '"{{tasks.export-annotations.outputs.parameters.changed}}" == "true"'
    assert tasks["convert-trt"]["when"] == '"{{tasks.evaluate.outputs.parameters.promote}}" == "true"'
    assert [tasks[n].get("depends") for n in ("evaluate", "convert-trt", "deploy")] == [
        "train.Succeeded", "evaluate.Succeeded", "convert-trt.Succeeded"]
    train_args = {p["name"]: p["value"] for p in tasks["train"]["arguments"]["parameters"]}
    assert train_args["run-id"] == "{{workflow.uid}}"
    assert train_args["dataset-uri"] == "{{tasks.export-annotations.outputs.parameters.dataset_uri}}"
    deploy_args = {p["name"]: p["value"] for p in tasks["deploy"]["arguments"]["parameters"]}
    assert deploy_args["memory-mb"] == "{{tasks.convert-trt.outputs.parameters.memory_mb}}"
    values = {p["name"]: p["value"] for p in wf["spec"]["arguments"]["parameters"]}
    assert values["epochs"] == "3" and values["gpu_memory_mib"] == "4096" and values["precision"] == "auto"
    enums = {p["name"]: p.get("enum") for p in wf["spec"]["arguments"]["parameters"]}
    assert enums["provider"] == ["hami", "mig", "time-slicing", "kai", "orionx", "gpushare"]


@pytest.mark.parametrize("step", list(STEPS))
def test_step_template_follows_the_contract(compiled, step):
    spec = STEPS[step]
    (doc,) = [t for t in compiled.templates if t["metadata"]["name"] == spec.template_name]
    (tmpl,) = doc["spec"]["templates"]
    assert doc["spec"]["entrypoint"] == tmpl["name"] == step
    container = tmpl["container"]
    assert container["image"] == "registry/steps:1"
    assert container["command"] == ["python", "-m", spec.module]
    expected_args = [a for i in spec.inputs for a in (f"--{i.name}", f"{{{{inputs.parameters.{i.name}}}}}")]
    assert container["args"] == expected_args
    inputs = {p["name"]: p for p in tmpl["inputs"]["parameters"]}
    for item in spec.inputs:
        assert inputs[item.name].get("default") == item.default
        assert inputs[item.name].get("enum") == (list(item.enum) or None)
    outputs = {p["name"]: p["valueFrom"]["path"] for p in tmpl["outputs"]["parameters"]}
    assert outputs == {o.name: f"{OUTPUTS_DIR}/{o.name}" for o in spec.outputs}
    artifacts = tmpl["outputs"]["artifacts"]
    assert [(a["name"], a["path"], a["archive"]) for a in artifacts] == [
        (a.name, a.path, {"none": {}}) for a in spec.artifacts]
    retry = tmpl["retryStrategy"]
    never = "2" if step != "export-annotations" else "2 && asInt(lastRetry.exitCode) != 3"  # export bounds its own wait
    assert retry["expression"] == f"asInt(lastRetry.exitCode) != {never}" and retry["retryPolicy"] == "Always"
    assert retry["limit"] >= 1 and set(retry["backoff"]) == {"duration", "factor", "maxDuration"}
    assert tmpl["activeDeadlineSeconds"] > 0
    gpu = container["resources"].get("limits", {}).get("nvidia.com/gpu")
    assert (gpu == "1") == spec.gpu
    assert ("nodeSelector" in tmpl) == spec.gpu and ("tolerations" in tmpl) == spec.gpu
    if spec.gpu:
        assert tmpl["nodeSelector"] == {"nvidia.com/gpu.present": "true"}


@pytest.mark.parametrize("step", list(STEPS))
def test_secrets_come_from_secret_refs_never_literals(compiled, step):
    spec = STEPS[step]
    (doc,) = [t for t in compiled.templates if t["metadata"]["name"] == spec.template_name]
    text = yaml.safe_dump(doc)
    assert "sekret" not in text
    env = {e["name"]: e for e in doc["spec"]["templates"][0]["container"]["env"]}
    assert env["AWS_SECRET_ACCESS_KEY"]["valueFrom"]["secretKeyRef"] == {
        "name": "aipipe-secrets", "key": "aws-secret-access-key", "optional": True}
    assert env["AIPIPE_STORAGE_ROOT"]["value"] == "s3://bucket/aipipe"
    assert env["AIPIPE_S3_ENDPOINT"]["value"] == "http://minio:9000"
    if "label_studio.api_key" in spec.secrets:
        assert env["LABEL_STUDIO_API_KEY"]["valueFrom"]["secretKeyRef"] == {
            "name": "aipipe-secrets", "key": "label-studio-api-key"}
    else:
        assert "LABEL_STUDIO_API_KEY" not in env


def test_nightly_cron_workflow(compiled):
    (cron,) = compiled.cron_workflows
    spec = cron["spec"]
    assert spec["schedules"] == ["0 2 * * *"] and "schedule" not in spec
    assert spec["concurrencyPolicy"] == "Forbid" and spec["timezone"] == "UTC"
    assert spec["startingDeadlineSeconds"] > 0
    assert spec["workflowSpec"]["workflowMetadata"]["labels"]["aipipe.io/trigger"] == "cron"
    assert spec["workflowSpec"]["templates"] == compiled.workflow["spec"]["templates"]


def events_validator(shared_dir: Path, kind: str) -> jsonschema.Draft7Validator:
    schema = json.loads((shared_dir / "argo-events" / "schema.json").read_text())
    definitions = schema["definitions"]
    # ../shared/argo-events/SOURCE.md: `url` of a webhook is a false `required` entry (no omitempty in Go).
    for name in ("WebhookContext", "WebhookEventSource"):
        entry = definitions[f"io.argoproj.events.v1alpha1.{name}"]
        entry["required"] = [r for r in entry["required"] if r != "url"]
    return jsonschema.Draft7Validator({"$ref": f"#/definitions/io.argoproj.events.v1alpha1.{kind}",
                                       "definitions": definitions})


def test_label_studio_webhook_event_source_and_sensor(compiled, shared_dir, crds):
    source, sensor = (d for d in compiled.events if d["metadata"]["name"].startswith("aipipe-label-studio")
                      and d["kind"] in ("EventSource", "Sensor"))
    for doc in (source, sensor):
        assert [e.message for e in events_validator(shared_dir, doc["kind"]).iter_errors(doc)] == []
    assert list(events_validator(shared_dir, "EventSource").iter_errors({"spec": {"webhook": {"x": {}}}}))
    hook = source["spec"]["webhook"]["label-studio"]
    assert hook["authSecret"] == {"name": "aipipe-secrets", "key": "label-studio-webhook-token"}
    (trigger,) = sensor["spec"]["triggers"]
    workflow = trigger["template"]["argoWorkflow"]["source"]["resource"]
    assert workflow["metadata"]["labels"]["aipipe.io/trigger"] == "webhook"
    assert list(schema_errors(load_validators(crds)["Workflow"], workflow)) == []
    retrain_template = next(d for d in compiled.events if d["kind"] == "WorkflowTemplate")
    assert lint_documents([("sensor", workflow), ("t", retrain_template),
                           *(("t", t) for t in compiled.templates)]) == []
    project = trigger["template"]["argoWorkflow"]["parameters"][0]
    index = int(project["dest"].split(".")[3])
    assert workflow["spec"]["arguments"]["parameters"][index]["name"] == "project"
    assert project["src"] == {"dependencyName": "annotation", "dataKey": "body.project.id"}


def test_loading_the_pipeline_submits_nothing(cfg, monkeypatch):
    import hera.workflows.service as service

    def refuse(*args, **kwargs):
        raise AssertionError("loading a pipeline must not talk to a server")

    monkeypatch.setattr(service.WorkflowsService, "_request", refuse)
    assert compile_pipeline(PIPELINE, cfg).workflow["kind"] == "Workflow"


def test_yaml_workflow_accepts_declared_parameters_only(tmp_path, cfg):
    path = tmp_path / "wf.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "hello-"},
        "spec": {"entrypoint": "main", "arguments": {"parameters": [{"name": "message", "value": "hi"}]},
                 "templates": [{"name": "main", "container": {"image": "busybox", "args": ["echo"]}}]}}))
    compiled = compile_pipeline(path, cfg, {"message": "bye"})
    assert compiled.workflow["spec"]["arguments"]["parameters"] == [{"name": "message", "value": "bye"}]
    with pytest.raises(UserError, match="parameter colour: unknown parameter"):
        compile_pipeline(path, cfg, {"colour": "red"})


def test_broken_pipeline_file_is_one_user_error(tmp_path, cfg):
    path = tmp_path / "broken.py"
    path.write_text("x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(UserError, match=r"cannot load pipeline: RuntimeError: boom \(line 2\)"):
        compile_pipeline(path, cfg)


def test_contract_doc_is_current():
    from aipipe.compile.contract_doc import render

    text = (REPO / "docs" / "CONTRACT.md").read_text()
    assert text == render(), "regenerate: python -m aipipe.compile.contract_doc > docs/CONTRACT.md"
    for spec in STEPS.values():
        assert f"`python -m {spec.module}`" in text and all(f"`--{i.name}`" in text for i in spec.inputs)



def test_readme_configuration_table_is_current():
    from aipipe.compile.contract_doc import render

    section = render().split("## Configuration keys", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    readme = (REPO / "README.md").read_text()
    missing = [row for row in rows if row not in readme]
    assert rows and not missing, f"copy docs/CONTRACT.md's configuration table into the README: {missing[:3]}"
