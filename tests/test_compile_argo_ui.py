"""What the Argo UI shows of a compiled retrain: title/description annotations, custom metrics valid against the
CRDs, and the workflow-controller ConfigMap's ``links`` to MLflow written by ``aipipe compile``."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from aipipe.compile import CompiledPipeline, compile_pipeline
from aipipe.compile.links import LINK_SCOPES, LINKS_FILENAME, MODEL_NAME_ANNOTATION
from aipipe.compile.lint import lint_documents
from aipipe.compile.schema import load_validators, schema_errors, unknown_fields
from aipipe.config import Config, load_config
from aipipe.discovery import discover_steps

STEPS = discover_steps()  # every step folder's contract, by Argo name

REPO = Path(__file__).resolve().parents[1]
PIPELINE = REPO / "pipelines" / "retrain.py"
MLFLOW_UI = "http://mlflow.example.test:5000"
TITLE = "workflows.argoproj.io/title"
DESCRIPTION = "workflows.argoproj.io/description"
METRIC_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")  # Argo: names work for Prometheus and OpenTelemetry
METRIC_TYPES = ("gauge", "counter", "histogram")


def config(**env: str) -> Config:
    return load_config(env={"AIPIPE_HOME": "/var/lib/aipipe", "AIPIPE_STORAGE_ROOT": "s3://bucket/aipipe",
                            "ARGO_NAMESPACE": "workflows", **env}, path=None)


@pytest.fixture(scope="module")
def compiled() -> CompiledPipeline:
    return compile_pipeline(PIPELINE, config(MLFLOW_TRACKING_URI=MLFLOW_UI + "/"),
                            {"project": "Street signs", "model_name": "signs"})


@pytest.fixture(scope="module")
def crds(shared_dir: Path) -> Path:
    return shared_dir / "argo" / "crds-full"


def templates_of(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    spec = doc["spec"].get("workflowSpec") or doc["spec"]
    yield from spec.get("templates") or []


def all_metrics(compiled: CompiledPipeline) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, metric) for every workflow- and template-level metric of every manifest."""
    for doc in compiled.documents():
        spec = doc["spec"].get("workflowSpec") or doc["spec"]
        for metric in (spec.get("metrics") or {}).get("prometheus") or []:
            yield f"{doc['kind']}/{doc['metadata'].get('name', 'retrain')}", metric
        for template in templates_of(doc):
            for metric in (template.get("metrics") or {}).get("prometheus") or []:
                yield f"{doc['kind']}/{template['name']}", metric


def metric_type(metric: dict[str, Any]) -> str:
    (kind,) = [k for k in METRIC_TYPES if k in metric]
    return kind


# --- metrics ---------------------------------------------------------------------------------------


def test_manifests_with_metrics_validate_against_the_crds(compiled: CompiledPipeline, crds: Path) -> None:
    validators = load_validators(crds)
    for doc in compiled.documents():
        assert list(schema_errors(validators[doc["kind"]], doc)) == [], doc["metadata"]
        assert list(unknown_fields(validators[doc["kind"]].schema, doc)) == [], doc["metadata"]
    assert lint_documents([("retrain", d) for d in compiled.documents()], crds) == []


def test_every_step_reports_its_duration_and_outcome(compiled: CompiledPipeline) -> None:
    for doc in compiled.templates:
        (template,) = templates_of(doc)
        metrics = {m["name"]: m for m in template["metrics"]["prometheus"]}
        duration, runs = metrics["aipipe_step_duration_seconds"], metrics["aipipe_step_runs_total"]
        assert duration["histogram"]["value"] == "{{duration}}" and duration["histogram"]["buckets"]
        assert runs["counter"] == {"value": "1"}
        for metric in (duration, runs):
            assert metric["labels"] == [{"key": "step", "value": template["name"]},
                                        {"key": "status", "value": "{{status}}"}]
    (run_metric,) = compiled.workflow["spec"]["metrics"]["prometheus"]
    assert run_metric["histogram"]["value"] == "{{workflow.duration}}"
    assert {"key": "trigger", "value": "manual"} in run_metric["labels"]
    (cron,) = compiled.cron_workflows
    (cron_metric,) = cron["spec"]["workflowSpec"]["metrics"]["prometheus"]
    assert {"key": "trigger", "value": "cron"} in cron_metric["labels"]


def test_output_gauges_read_declared_outputs_once_the_step_succeeded(compiled: CompiledPipeline) -> None:
    gauges: dict[str, tuple[str, dict[str, Any]]] = {}
    for doc in compiled.templates:
        (template,) = templates_of(doc)
        declared = {p["name"] for p in template["outputs"]["parameters"]}
        for metric in template["metrics"]["prometheus"]:
            if "gauge" not in metric:
                continue
            found = re.fullmatch(r"\{\{outputs\.parameters\.([\w-]+)\}\}", metric["gauge"]["value"])
            assert found and found.group(1) in declared, metric
            assert metric["when"] == "{{status}} == Succeeded" and metric["gauge"]["realtime"] is False
            assert {"key": "model", "value": "{{inputs.parameters.model-name}}"} in metric["labels"]
            gauges[metric["name"]] = (template["name"], metric)
    assert gauges["aipipe_eval_accuracy"][0] == "evaluate"
    assert gauges["aipipe_eval_accuracy"][1]["gauge"]["value"] == "{{outputs.parameters.candidate_metric}}"
    assert gauges["aipipe_engine_throughput_items_per_second"][1]["gauge"]["value"] == \
        "{{outputs.parameters.throughput_b64}}"
    assert gauges["aipipe_train_val_accuracy"][0] == "train"


def test_one_metric_name_keeps_one_type_and_one_help(compiled: CompiledPipeline) -> None:
    seen: dict[str, tuple[str, str]] = {}
    for where, metric in all_metrics(compiled):
        assert METRIC_NAME.match(metric["name"]), where
        assert all(METRIC_NAME.match(label["key"]) for label in metric.get("labels", [])), where
        shape = (metric_type(metric), metric["help"])
        assert seen.setdefault(metric["name"], shape) == shape, f"{where}: {metric['name']} differs"
        gauge = metric.get("gauge") or {}
        assert not (gauge.get("realtime") and "resourcesDuration." in gauge["value"]), where  # CRD's CEL rule
    assert len(seen) >= 7


def test_schema_check_catches_a_broken_metric(compiled: CompiledPipeline, crds: Path) -> None:
    broken = copy.deepcopy(compiled.templates[2])
    metric = broken["spec"]["templates"][0]["metrics"]["prometheus"][2]
    metric["name"] = "eval-accuracy"
    del metric["gauge"]["realtime"]
    errors = list(schema_errors(load_validators(crds)["WorkflowTemplate"], broken))
    paths = sorted(".".join(map(str, path)) for path, _ in errors)
    assert paths == ["spec.templates.0.metrics.prometheus.2.gauge", "spec.templates.0.metrics.prometheus.2.name"]


# --- title and description -------------------------------------------------------------------------


def test_runs_say_project_dataset_version_and_model(compiled: CompiledPipeline) -> None:
    (cron,) = compiled.cron_workflows  # built with the configured defaults: project 1, aipipe-classifier
    for notes, project, model in (
            (compiled.workflow["metadata"]["annotations"], "Street signs", "signs"),
            (cron["metadata"]["annotations"], "1", "aipipe-classifier"),
            (cron["spec"]["workflowSpec"]["workflowMetadata"]["annotations"], "1", "aipipe-classifier")):
        assert notes[TITLE] == f"Retrain {model} from Label Studio project {project}"
        text = notes[DESCRIPTION]
        assert f"project **{project}**" in text and f"model **{model}**" in text
        assert "Dataset version:" in text and "`dataset_version`" in text
        assert f"[Model in MLflow]({MLFLOW_UI}/#/models/{model})" in text
        assert notes[MODEL_NAME_ANNOTATION] == model


def test_event_triggered_runs_carry_the_description_and_model_name() -> None:
    """The WorkflowTemplate that webhooks and S3 events submit labels its runs like the Workflow does."""
    from cron._common import retrain_template

    notes = retrain_template(config(MLFLOW_TRACKING_URI=MLFLOW_UI + "/"))["spec"]["workflowMetadata"]["annotations"]
    assert notes[TITLE] == "Retrain aipipe-classifier on new data"
    assert "project **of the event**" in notes[DESCRIPTION] and "model **aipipe-classifier**" in notes[DESCRIPTION]
    assert "`dataset_version`" in notes[DESCRIPTION]
    assert f"[Model in MLflow]({MLFLOW_UI}/#/models/aipipe-classifier)" in notes[DESCRIPTION]
    assert notes[MODEL_NAME_ANNOTATION] == "aipipe-classifier"


def test_without_an_mlflow_server_the_description_has_no_mlflow_link() -> None:
    local = compile_pipeline(PIPELINE, config())
    assert "MLflow](" not in local.workflow["metadata"]["annotations"][DESCRIPTION]
    assert local.links is None


def test_step_templates_carry_title_and_description(compiled: CompiledPipeline) -> None:
    for doc in compiled.templates:
        (template,) = templates_of(doc)
        spec = STEPS[template["name"]]
        assert doc["metadata"]["annotations"][TITLE] == f"aipipe step: {spec.name} (v1)"
        assert doc["metadata"]["annotations"][DESCRIPTION] == spec.description


# --- links ConfigMap -------------------------------------------------------------------------------


def link_validator(shared_dir: Path) -> jsonschema.Draft4Validator:
    definitions = json.loads((shared_dir / "argo" / "swagger.json").read_text())["definitions"]
    return jsonschema.Draft4Validator({"$ref": "#/definitions/io.argoproj.workflow.v1alpha1.Link",
                                       "definitions": definitions})


def fill_placeholders(url: str, shown: dict[str, Any]) -> str:
    """Resolve ``${a.b.c}`` the way the Argo UI's link buttons do; label/annotation keys keep their dots."""
    def value(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        if parts[:3] in (["workflow", "metadata", "labels"], ["workflow", "metadata", "annotations"]):
            parts = [*parts[:3], ".".join(parts[3:])]
        node: Any = shown
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        return str(node or "")
    return re.sub(r"\$\{([^}]*)\}", value, url)


def compile_to(out_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", "compile", str(PIPELINE), "--out-dir",
                           str(out_dir), "-p", "model_name=signs"], capture_output=True, text=True, cwd=REPO,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(out_dir.parent), **env})


def test_compile_writes_the_links_configmap(tmp_path: Path, shared_dir: Path, crds: Path) -> None:
    out_dir = tmp_path / "manifests"
    run = compile_to(out_dir, MLFLOW_TRACKING_URI=MLFLOW_UI, ARGO_NAMESPACE="workflows")
    assert run.returncode == 0, run.stderr
    assert f"wrote {out_dir / LINKS_FILENAME}" in " ".join(run.stderr.split())
    configmap = yaml.safe_load((out_dir / LINKS_FILENAME).read_text())
    assert (configmap["apiVersion"], configmap["kind"]) == ("v1", "ConfigMap")
    assert configmap["metadata"] == {"name": "workflow-controller-configmap", "namespace": "workflows"}
    assert "links: |" in (out_dir / LINKS_FILENAME).read_text()  # Argo reads links as a YAML string
    links = yaml.safe_load(configmap["data"]["links"])
    validator = link_validator(shared_dir)
    for link in links:
        assert [e.message for e in validator.iter_errors(link)] == [], link
        assert link["scope"] in LINK_SCOPES and link["url"].startswith(MLFLOW_UI + "/#/models")
    assert {link["scope"] for link in links} == {"workflow", "workflow-list"}
    (run_link,) = [link for link in links if link["scope"] == "workflow"]
    workflow = yaml.safe_load((out_dir / "workflow-aipipe-retrain.yaml").read_text())
    shown = {"metadata": {"name": "aipipe-retrain-x1", "namespace": "workflows"}, "workflow": workflow,
             "status": {}}
    assert fill_placeholders(run_link["url"], shown) == f"{MLFLOW_UI}/#/models/signs"
    lint = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "lint", str(out_dir), "--schema-dir",
                           str(crds)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "ok: 15 manifest(s) against the CRD schemas" in lint.stdout


def test_compile_to_stdout_prints_the_links_configmap_too(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "compile", str(PIPELINE), "-o", "json"],
                         capture_output=True, text=True, cwd=REPO, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MLFLOW_TRACKING_URI": MLFLOW_UI})
    assert run.returncode == 0, run.stderr
    kinds = [doc["kind"] for doc in json.loads(run.stdout)]
    assert kinds[0] == "Workflow" and kinds[-1] == "ConfigMap" and kinds.count("ConfigMap") == 1


def test_no_links_configmap_without_an_mlflow_server(tmp_path: Path) -> None:
    out_dir = tmp_path / "manifests"
    run = compile_to(out_dir, MLFLOW_TRACKING_URI=f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert run.returncode == 0, run.stderr
    assert not (out_dir / LINKS_FILENAME).exists() and (out_dir / "workflow-aipipe-retrain.yaml").is_file()


@pytest.mark.parametrize(("links", "field", "message"), [
    ("- name: MLflow\n  scope: everywhere\n  url: http://x\n", "data.links[0].scope", "must be one of"),
    ("- name: MLflow\n  scope: workflow\n", "data.links[0].url", "non-empty string"),
    ("- name: MLflow\n  scope: workflow\n  url: http://x\n  colour: red\n", "data.links[0].colour",
     "unknown field"),
    ("name: MLflow\n", "data.links", "YAML list"),
    ("- [unclosed\n", "data.links", "not valid YAML"),
])
def test_lint_catches_a_broken_links_configmap(compiled: CompiledPipeline, links: str, field: str,
                                               message: str) -> None:
    assert compiled.links is not None
    broken = copy.deepcopy(compiled.links)
    broken["data"]["links"] = links
    found = lint_documents([("cm.yaml", broken)])
    assert [(d.field, d.check) for d in found] == [(field, "links")]
    assert message in found[0].message


def test_the_local_engine_runs_a_step_that_carries_output_gauges(compiled: CompiledPipeline, tmp_path: Path) -> None:
    """Argo computes template metrics after the node completes; the embedded engine must not resolve
    ``{{outputs.parameters.*}}`` inside ``metrics`` before the pod runs (needs aipipe.engine to skip them)."""
    from tests.engine.conftest import EngineRun

    evaluate = next(t for doc in compiled.templates for t in templates_of(doc) if t["name"] == "evaluate")
    step = {"name": "main", "metrics": evaluate["metrics"],
            "inputs": {"parameters": [{"name": "model-name", "value": "signs"}]},
            "outputs": {"parameters": [{"name": "candidate_metric", "valueFrom": {"path": "/tmp/candidate_metric"}}]},
            "container": {"image": "busybox", "command": ["sh", "-c", "echo 0.93 > /tmp/candidate_metric"]}}
    run = EngineRun(tmp_path / "home").run({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                                            "metadata": {"generateName": "gauge-"},
                                            "spec": {"entrypoint": "main", "templates": [step]}})
    assert run["status"]["phase"] == "Succeeded", run["status"].get("message")
    (node,) = run["status"]["nodes"].values()
    assert node["outputs"]["parameters"][0]["value"] == "0.93"
