"""Retrain on new annotations: an argo-events webhook EventSource for Label Studio and a Sensor
that submits the retrain Workflow for the project named in the event.

Label Studio sends ``POST /label-studio`` with ``Authorization: Bearer <token>`` (a custom
header of the webhook); the EventSource checks it against the Secret key
``label-studio-webhook-token``. The Sensor keeps only annotation events, sets the ``project``
parameter from ``body.project.id`` and is rate-limited, so a labelling burst starts one run
(a run with nothing new ends Succeeded right after export anyway). Apply with ``kubectl apply``.
"""

from __future__ import annotations

from typing import Any

from hera.events.models import (
    ArgoWorkflowTrigger,
    DataFilter,
    EventDependency,
    EventDependencyFilter,
    EventSource,
    EventSourceSpec,
    RateLimit,
    Sensor,
    SensorSpec,
    Template,
    Trigger,
    TriggerParameter,
    TriggerParameterSource,
    TriggerTemplate,
    WebhookContext,
)
from hera.events.models.io.k8s.api.core.v1 import SecretKeySelector
from hera.events.models.io.k8s.apimachinery.pkg.apis.meta.v1 import ObjectMeta

from aipipe.compile.params import resolve_params
from aipipe.config import Config
from pipelines import retrain
from pipelines.templates._common import PART_OF_LABEL

PIPELINE = "retrain"
EVENT_SOURCE = "aipipe-label-studio"
EVENT_NAME = "label-studio"
SENSOR = "aipipe-label-studio-retrain"
PORT = "12000"
ENDPOINT = "/label-studio"
TOKEN_KEY = "label-studio-webhook-token"
ANNOTATION_ACTIONS = ["ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED"]
RUNS_PER_HOUR = 2
API_VERSION = "argoproj.io/v1alpha1"


def _dump(model: Any, kind: str) -> dict[str, Any]:
    body = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"apiVersion": API_VERSION, "kind": kind, **body}


def event_source(cfg: Config) -> dict[str, Any]:
    """The webhook EventSource Label Studio posts to; the bearer token comes from the Secret."""
    # argo-events inlines WebhookContext into the webhook entry (Go ``json:",inline"``); Hera's
    # WebhookEventSource model nests it instead, so the context is dumped and placed inline here.
    webhook = WebhookContext(
        endpoint=ENDPOINT, method="POST", port=PORT,
        auth_secret=SecretKeySelector(name=cfg.get("kubernetes.secret_name"), key=TOKEN_KEY),
    )
    source = _dump(EventSource(metadata=ObjectMeta(name=EVENT_SOURCE, labels={PART_OF_LABEL: "aipipe"}),
                               spec=EventSourceSpec()), "EventSource")
    source["spec"]["webhook"] = {EVENT_NAME: webhook.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return source


def sensor(cfg: Config) -> dict[str, Any]:
    """The Sensor: annotation events -> submit the retrain Workflow for that project."""
    params = resolve_params(retrain.PARAMETERS, None, cfg)
    workflow = retrain.build(cfg, params, trigger="webhook").to_dict()
    project_index = [p.name for p in retrain.PARAMETERS].index("project")
    dependency = EventDependency(
        name="annotation", event_source_name=EVENT_SOURCE, event_name=EVENT_NAME,
        filters=EventDependencyFilter(data=[DataFilter(path="body.action", type="string",
                                                       value=ANNOTATION_ACTIONS)]),
    )
    trigger = Trigger(
        template=TriggerTemplate(name="retrain", argo_workflow=ArgoWorkflowTrigger(
            operation="submit",
            parameters=[TriggerParameter(
                src=TriggerParameterSource(dependency_name="annotation", data_key="body.project.id"),
                dest=f"spec.arguments.parameters.{project_index}.value")],
        )),
        rate_limit=RateLimit(unit="Hour", requests_per_unit=RUNS_PER_HOUR),
    )
    spec = SensorSpec(dependencies=[dependency], triggers=[trigger],
                      template=Template(service_account_name=cfg.get("kubernetes.service_account")))
    body = _dump(Sensor(metadata=ObjectMeta(name=SENSOR, labels={PART_OF_LABEL: "aipipe"}), spec=spec), "Sensor")
    # Hera's K8SResource model holds only a base64 ``value``; argo-events takes the object itself.
    body["spec"]["triggers"][0]["template"]["argoWorkflow"]["source"] = {"resource": workflow}
    return body


def build_events(cfg: Config) -> list[dict[str, Any]]:
    """EventSource and Sensor manifests (argo-events), in apply order."""
    return [event_source(cfg), sensor(cfg)]
