"""Retrain on new annotations: the Label Studio trigger, in both cluster forms and for ``aipipe server``.

- A ``WorkflowEventBinding`` for Argo's event endpoint (``POST /api/v1/events/<ns>/label-studio``, the
  Argo Server's or ``aipipe server``'s, with a bearer token): annotation events submit the
  ``aipipe-retrain`` WorkflowTemplate with ``project`` from the event. Its ``aipipe.io/min-new-items``
  annotation (the ``min_new_annotations`` parameter) makes ``aipipe server`` start a run only once
  that many new annotations of a project arrived; repeated deliveries of an annotation count once.
- An argo-events webhook EventSource (with its ``service``, so Label Studio can reach it) that checks
  ``Authorization: Bearer <token>`` against the Secret key ``label-studio-webhook-token``, and a Sensor
  whose ``argoWorkflow`` trigger submits the same template, its project and title from the event.
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
    Service,
    Template,
    Trigger,
    TriggerParameter,
    TriggerParameterSource,
    TriggerTemplate,
    WebhookContext,
)
from hera.events.models.io.k8s.api.core.v1 import SecretKeySelector, ServicePort
from hera.events.models.io.k8s.apimachinery.pkg.apis.meta.v1 import ObjectMeta
from hera.events.models.io.k8s.apimachinery.pkg.util.intstr import IntOrString

from aipipe.argo.labels import TITLE_ANNOTATION
from aipipe.config import Config
from cron._common import API_VERSION, LABELS, RETRAIN_TEMPLATE, dump, retrain_template, trigger_params
from pipelines.templates.builder import TRIGGER_LABEL

PIPELINE = "retrain"
EVENT_SOURCE = "aipipe-label-studio"
EVENT_NAME = "label-studio"
SENSOR = "aipipe-label-studio-retrain"
BINDING = "aipipe-label-studio-retrain"
DISCRIMINATOR = "label-studio"
PORT = 12000
ENDPOINT = "/label-studio"
TOKEN_KEY = "label-studio-webhook-token"
ANNOTATION_ACTIONS = ["ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED"]
RUNS_PER_HOUR = 2
THRESHOLD_ANNOTATION = "aipipe.io/min-new-items"  # read by aipipe server (aipipe.server.events)


def event_binding(cfg: Config) -> dict[str, Any]:
    """The WorkflowEventBinding: annotation events of Label Studio -> the retrain template for that project."""
    actions = ", ".join(f'"{a}"' for a in ANNOTATION_ACTIONS)
    return {
        "apiVersion": API_VERSION, "kind": "WorkflowEventBinding",
        "metadata": {"name": BINDING, "labels": dict(LABELS),
                     "annotations": {THRESHOLD_ANNOTATION: trigger_params(cfg)["min_new_annotations"]}},
        "spec": {
            "event": {"selector": f'discriminator == "{DISCRIMINATOR}" && payload.action in [{actions}] '
                                  "&& payload.project.id != nil"},
            "submit": {
                "workflowTemplateRef": {"name": RETRAIN_TEMPLATE},
                "metadata": {"labels": {TRIGGER_LABEL: "webhook"}},
                "arguments": {"parameters": [
                    {"name": "project", "valueFrom": {"event": "string(payload.project.id)"}}]},
            },
        },
    }


def event_source(cfg: Config) -> dict[str, Any]:
    """The webhook EventSource Label Studio posts to, exposed by a Service; the token comes from the Secret."""
    # argo-events inlines WebhookContext into the webhook entry (Go ``json:",inline"``); Hera's
    # WebhookEventSource model nests it instead, so the context is dumped and placed inline here.
    webhook = WebhookContext(
        endpoint=ENDPOINT, method="POST", port=str(PORT),
        auth_secret=SecretKeySelector(name=cfg.get("kubernetes.secret_name"), key=TOKEN_KEY),
    )
    spec = EventSourceSpec(service=Service(ports=[ServicePort(port=PORT, target_port=IntOrString(PORT))]))
    source = dump(EventSource(metadata=ObjectMeta(name=EVENT_SOURCE, labels=dict(LABELS)), spec=spec), "EventSource")
    source["spec"]["webhook"] = {EVENT_NAME: webhook.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return source


def sensor(cfg: Config) -> dict[str, Any]:
    """The Sensor: annotation events -> submit the retrain template for that project, titled after it."""
    dependency = EventDependency(
        name="annotation", event_source_name=EVENT_SOURCE, event_name=EVENT_NAME,
        filters=EventDependencyFilter(data=[DataFilter(path="body.action", type="string",
                                                       value=ANNOTATION_ACTIONS)]),
    )
    title_key = TITLE_ANNOTATION.replace(".", "\\.")
    trigger = Trigger(
        template=TriggerTemplate(name="retrain", argo_workflow=ArgoWorkflowTrigger(
            operation="submit",
            parameters=[
                TriggerParameter(src=TriggerParameterSource(dependency_name="annotation", data_key="body.project.id"),
                                 dest="spec.arguments.parameters.0.value"),
                TriggerParameter(src=TriggerParameterSource(
                    dependency_name="annotation",
                    data_template="Retrain on new annotations of Label Studio project {{ .Input.body.project.title }}"),
                    dest=f"metadata.annotations.{title_key}"),
            ],
        )),
        rate_limit=RateLimit(unit="Hour", requests_per_unit=RUNS_PER_HOUR),
    )
    spec = SensorSpec(dependencies=[dependency], triggers=[trigger],
                      template=Template(service_account_name=cfg.get("kubernetes.service_account")))
    body = dump(Sensor(metadata=ObjectMeta(name=SENSOR, labels=dict(LABELS)), spec=spec), "Sensor")
    # Hera's K8SResource model holds only a base64 ``value``; argo-events takes the object itself.
    body["spec"]["triggers"][0]["template"]["argoWorkflow"]["source"] = {"resource": workflow_from_template("webhook")}
    return body


def workflow_from_template(trigger: str) -> dict[str, Any]:
    """The Workflow a Sensor creates: the retrain template, its ``project`` set by the trigger."""
    return {"apiVersion": API_VERSION, "kind": "Workflow",
            "metadata": {"generateName": f"{RETRAIN_TEMPLATE}-", "labels": {**LABELS, TRIGGER_LABEL: trigger},
                         "annotations": {}},
            "spec": {"workflowTemplateRef": {"name": RETRAIN_TEMPLATE},
                     "arguments": {"parameters": [{"name": "project", "value": ""}]}}}


def build_events(cfg: Config) -> list[dict[str, Any]]:
    """The retrain WorkflowTemplate, the WorkflowEventBinding, then the argo-events EventSource and Sensor."""
    return [retrain_template(cfg), event_binding(cfg), event_source(cfg), sensor(cfg)]
