"""Retrain when data lands: a new object under ``<storage root>/<data_prefix>`` starts the retrain.

- On a cluster: an argo-events ``minio`` EventSource on the storage bucket (S3 API; credentials from the
  Secret) for object-created events under the prefix, and a Sensor whose ``argoWorkflow`` trigger submits
  the ``aipipe-retrain`` WorkflowTemplate.
- With ``aipipe server``: a WorkflowEventBinding on ``POST /api/v1/events/<ns>/s3``, where the storage
  watcher (``aipipe triggers watch``) or a MinIO webhook target posts S3 event notifications. An object
  posted again with the same ETag starts nothing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from hera.events.models import (
    ArgoWorkflowTrigger,
    EventDependency,
    EventSource,
    EventSourceSpec,
    S3Artifact,
    S3Bucket,
    S3Filter,
    Sensor,
    SensorSpec,
    Template,
    Trigger,
    TriggerTemplate,
)
from hera.events.models.io.k8s.api.core.v1 import SecretKeySelector
from hera.events.models.io.k8s.apimachinery.pkg.apis.meta.v1 import ObjectMeta

from aipipe.config import Config
from aipipe.server.watcher import DISCRIMINATOR, key_prefix
from aipipe.steppolicy import secret_key_name
from cron._common import API_VERSION, LABELS, RETRAIN_TEMPLATE, dump, retrain_template, trigger_params
from pipelines.templates.builder import TRIGGER_LABEL

PIPELINE = "retrain"
EVENT_SOURCE = "aipipe-data-drop"
EVENT_NAME = "data-drop"
SENSOR = "aipipe-data-drop-retrain"
BINDING = "aipipe-data-drop-retrain"
CREATED_EVENTS = ["s3:ObjectCreated:Put", "s3:ObjectCreated:CompleteMultipartUpload", "s3:ObjectCreated:Copy"]


def event_binding(cfg: Config) -> dict[str, Any]:
    """The WorkflowEventBinding: an object created under the prefix -> the retrain template."""
    bucket, prefix = key_prefix(cfg, trigger_params(cfg)["data_prefix"])
    selector = (f'discriminator == "{DISCRIMINATOR}" && any(payload.Records, {{#.eventName contains "ObjectCreated:" '
                f'&& #.s3.bucket.name == "{bucket}" && #.s3.object.key startsWith "{prefix}"}})')
    return {
        "apiVersion": API_VERSION, "kind": "WorkflowEventBinding",
        "metadata": {"name": BINDING, "labels": dict(LABELS)},
        "spec": {"event": {"selector": selector},
                 "submit": {"workflowTemplateRef": {"name": RETRAIN_TEMPLATE},
                            "metadata": {"labels": {TRIGGER_LABEL: "data-drop"}}}},
    }


def event_source(cfg: Config) -> dict[str, Any]:
    """The argo-events ``minio`` (S3 API) EventSource for object-created events under the prefix."""
    bucket, prefix = key_prefix(cfg, trigger_params(cfg)["data_prefix"])
    endpoint = urlparse(str(cfg.get("storage.s3_endpoint") or "https://s3.amazonaws.com"))
    secret = str(cfg.get("kubernetes.secret_name"))
    artifact = S3Artifact(
        bucket=S3Bucket(name=bucket), endpoint=endpoint.netloc, insecure=endpoint.scheme == "http",
        region=str(cfg.get("storage.s3_region")), events=CREATED_EVENTS, filter=S3Filter(prefix=prefix, suffix=""),
        access_key=SecretKeySelector(name=secret, key=secret_key_name("storage.s3_access_key")),
        secret_key=SecretKeySelector(name=secret, key=secret_key_name("storage.s3_secret_key")),
    )
    spec = EventSourceSpec(minio={EVENT_NAME: artifact})
    return dump(EventSource(metadata=ObjectMeta(name=EVENT_SOURCE, labels=dict(LABELS)), spec=spec), "EventSource")


def sensor(cfg: Config) -> dict[str, Any]:
    """The Sensor: a data drop -> submit the retrain template."""
    trigger = Trigger(template=TriggerTemplate(name="retrain", argo_workflow=ArgoWorkflowTrigger(operation="submit")))
    spec = SensorSpec(dependencies=[EventDependency(name="data-drop", event_source_name=EVENT_SOURCE,
                                                    event_name=EVENT_NAME)],
                      triggers=[trigger], template=Template(service_account_name=cfg.get("kubernetes.service_account")))
    body = dump(Sensor(metadata=ObjectMeta(name=SENSOR, labels=dict(LABELS)), spec=spec), "Sensor")
    body["spec"]["triggers"][0]["template"]["argoWorkflow"]["source"] = {"resource": {
        "apiVersion": API_VERSION, "kind": "Workflow",
        "metadata": {"generateName": f"{RETRAIN_TEMPLATE}-", "labels": {**LABELS, TRIGGER_LABEL: "data-drop"}},
        "spec": {"workflowTemplateRef": {"name": RETRAIN_TEMPLATE}}}}
    return body


def build_events(cfg: Config) -> list[dict[str, Any]]:
    """The retrain WorkflowTemplate, the WorkflowEventBinding, then the argo-events EventSource and Sensor."""
    return [retrain_template(cfg), event_binding(cfg), event_source(cfg), sensor(cfg)]
