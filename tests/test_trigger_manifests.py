"""The trigger manifests cron/ emits: every one valid against the shared Argo CRDs / argo-events schema,
and their selectors true for the events they are meant for (the engine's evaluator), false otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aipipe.compile import CompiledPipeline, compile_pipeline
from aipipe.compile.lint import lint_documents
from aipipe.compile.schema import load_validators, schema_errors
from aipipe.config import load_config
from aipipe.engine.expr import evaluate
from aipipe.server.watcher import StoredObject, s3_event
from cron import nightly_retrain

REPO = Path(__file__).resolve().parents[1]
PIPELINE = REPO / "pipelines" / "retrain.py"
ENV = {"AIPIPE_HOME": "/var/lib/aipipe", "AIPIPE_STORAGE_ROOT": "s3://bucket/aipipe",
       "AIPIPE_S3_ENDPOINT": "http://minio:9000", "AIPIPE_MIN_NEW_ANNOTATIONS": "7",
       "AIPIPE_CRON_SKIP_WITHIN_HOURS": "6", "AIPIPE_CRON_TIMEZONE": "Europe/Berlin"}


@pytest.fixture(scope="module")
def compiled() -> CompiledPipeline:
    return compile_pipeline(PIPELINE, load_config(env=ENV, path=None))


@pytest.fixture(scope="module")
def events(compiled: CompiledPipeline) -> list[dict[str, Any]]:
    return compiled.events


@pytest.fixture(scope="module")
def crds(shared_dir: Path) -> Path:
    return shared_dir / "argo" / "crds-full"


def events_validator(shared_dir: Path, kind: str) -> jsonschema.Draft7Validator:
    definitions = json.loads((shared_dir / "argo-events" / "schema.json").read_text())["definitions"]
    # ../shared/argo-events/SOURCE.md: a webhook's `url` is a false `required` entry (no omitempty in Go)
    for name in ("WebhookContext", "WebhookEventSource"):
        entry = definitions[f"io.argoproj.events.v1alpha1.{name}"]
        entry["required"] = [r for r in entry["required"] if r != "url"]
    return jsonschema.Draft7Validator({"$ref": f"#/definitions/io.argoproj.events.v1alpha1.{kind}",
                                       "definitions": definitions})


def by(events: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(d for d in events if d["kind"] == kind and d["metadata"]["name"] == name)


def test_every_trigger_manifest_validates(compiled: CompiledPipeline, crds: Path, shared_dir: Path) -> None:
    events = compiled.events
    validators = load_validators(crds)
    kinds = sorted({d["kind"] for d in events})
    assert kinds == ["EventSource", "Sensor", "WorkflowEventBinding", "WorkflowTemplate"]
    for doc in events:
        if doc["kind"] in ("EventSource", "Sensor"):
            assert [e.message for e in events_validator(shared_dir, doc["kind"]).iter_errors(doc)] == []
            for trigger in doc["spec"].get("triggers", []):
                workflow = trigger["template"]["argoWorkflow"]["source"]["resource"]
                assert list(schema_errors(validators["Workflow"], workflow)) == []
        else:
            assert list(schema_errors(validators[doc["kind"]], doc)) == [], doc["metadata"]["name"]
    assert lint_documents([(d["metadata"]["name"], d) for d in events if d["kind"].startswith("Workflow")],
                          crds, compiled.templates) == []


def test_schema_check_catches_a_broken_binding(events: list[dict[str, Any]], crds: Path) -> None:
    binding = json.loads(json.dumps(by(events, "WorkflowEventBinding", "aipipe-label-studio-retrain")))
    del binding["spec"]["event"]["selector"]
    assert list(schema_errors(load_validators(crds)["WorkflowEventBinding"], binding))


def test_nightly_cron_workflow_with_when_guard_validates(crds: Path) -> None:
    cron = nightly_retrain.build(load_config(env=ENV, path=None)).to_dict()
    assert cron["spec"]["timezone"] == "Europe/Berlin"
    assert 'duration("6h")' in cron["spec"]["when"]
    assert list(schema_errors(load_validators(crds)["CronWorkflow"], cron)) == []
    assert "when" not in nightly_retrain.build(load_config(env={}, path=None)).to_dict()["spec"]


def test_event_source_has_a_service(events: list[dict[str, Any]]) -> None:
    source = by(events, "EventSource", "aipipe-label-studio")
    port = int(source["spec"]["webhook"]["label-studio"]["port"])
    assert source["spec"]["service"]["ports"] == [{"port": port, "targetPort": port}]


def test_label_studio_binding_selects_annotation_events(events: list[dict[str, Any]]) -> None:
    binding = by(events, "WorkflowEventBinding", "aipipe-label-studio-retrain")
    assert binding["metadata"]["annotations"]["aipipe.io/min-new-items"] == "7"
    selector = binding["spec"]["event"]["selector"]
    created = {"action": "ANNOTATION_CREATED", "annotation": {"id": 5}, "project": {"id": 3, "title": "birds"}}
    assert evaluate(selector, {"payload": created, "metadata": {}, "discriminator": "label-studio"}) is True
    assert evaluate(selector, {"payload": created, "metadata": {}, "discriminator": "s3"}) is False
    deleted = {**created, "action": "ANNOTATIONS_DELETED"}
    assert evaluate(selector, {"payload": deleted, "metadata": {}, "discriminator": "label-studio"}) is False
    (param,) = binding["spec"]["submit"]["arguments"]["parameters"]
    assert evaluate(param["valueFrom"]["event"], {"payload": created}) == "3"
    sensor = by(events, "Sensor", "aipipe-label-studio-retrain")
    title = sensor["spec"]["triggers"][0]["template"]["argoWorkflow"]["parameters"][1]
    assert "body.project.title" in title["src"]["dataTemplate"]


def test_data_drop_binding_selects_objects_under_the_prefix(events: list[dict[str, Any]]) -> None:
    selector = by(events, "WorkflowEventBinding", "aipipe-data-drop-retrain")["spec"]["event"]["selector"]
    inside = s3_event([StoredObject("bucket", "aipipe/incoming/batch-1/a.png", "abc", 3)])
    outside = s3_event([StoredObject("bucket", "aipipe/models/a.pt", "abc", 3)])
    assert evaluate(selector, {"payload": inside, "metadata": {}, "discriminator": "s3"}) is True
    assert evaluate(selector, {"payload": outside, "metadata": {}, "discriminator": "s3"}) is False
    source = by(events, "EventSource", "aipipe-data-drop")["spec"]["minio"]["data-drop"]
    assert source["bucket"] == {"name": "bucket"} and source["filter"]["prefix"] == "aipipe/incoming/"
    assert source["endpoint"] == "minio:9000" and source["insecure"] is True
