"""What the trigger modules share: manifest dumping, the event-driven retrain WorkflowTemplate and
the trigger parameters (their defaults come from the config: ``triggers.*``)."""

from __future__ import annotations

from typing import Any

from aipipe.argo.labels import DESCRIPTION_ANNOTATION, TITLE_ANNOTATION
from aipipe.compile.links import MODEL_NAME_ANNOTATION
from aipipe.compile.params import PipelineParam, resolve_params
from aipipe.config import Config
from pipelines import retrain
from pipelines.templates.builder import PART_OF_LABEL, PROJECT_LABEL, TRIGGER_LABEL

API_VERSION = "argoproj.io/v1alpha1"
RETRAIN_TEMPLATE = "aipipe-retrain"  # what the WorkflowEventBindings and Sensors submit
LABELS = {PART_OF_LABEL: "aipipe"}

TRIGGER_PARAMETERS: tuple[PipelineParam, ...] = (
    PipelineParam("min_new_annotations", "20", "new annotations of a Label Studio project that start a retrain",
                  "int", minimum=1, maximum=1_000_000, config_key="triggers.min_new_annotations"),
    PipelineParam("data_prefix", "incoming/", "object-store prefix under the storage root where data drops land",
                  config_key="triggers.data_prefix"),
)


def trigger_params(cfg: Config, given: dict[str, str] | None = None) -> dict[str, str]:
    return resolve_params(TRIGGER_PARAMETERS, given, cfg)


def dump(model: Any, kind: str) -> dict[str, Any]:
    """A Hera (pydantic) model as a manifest of ``kind``: camelCase keys, no nulls."""
    body = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"apiVersion": API_VERSION, "kind": kind, **body}


def retrain_template(cfg: Config) -> dict[str, Any]:
    """The retrain pipeline as the WorkflowTemplate ``aipipe-retrain`` (what event triggers submit; each
    sets the ``aipipe.io/trigger`` label on what it submits). Runs are labelled with their project
    through ``labelsFrom``."""
    params = resolve_params(retrain.PARAMETERS, None, cfg)
    workflow = retrain.build(cfg, params, trigger="event").to_dict()
    labels = {k: v for k, v in workflow["metadata"].get("labels", {}).items()
              if k not in (PROJECT_LABEL, TRIGGER_LABEL)}
    spec = dict(workflow["spec"])
    spec["workflowMetadata"] = {
        "labels": labels,
        "labelsFrom": {PROJECT_LABEL: {"expression": "workflow.parameters.project"}},
        "annotations": {
            TITLE_ANNOTATION: f"Retrain {params['model_name']} on new data",
            # the project comes with the event (the run's label says which): the description can't name it
            DESCRIPTION_ANNOTATION: retrain.description(cfg, {**params, "project": "of the event"}),
            MODEL_NAME_ANNOTATION: params["model_name"],
        },
    }
    return {"apiVersion": API_VERSION, "kind": "WorkflowTemplate",
            "metadata": {"name": RETRAIN_TEMPLATE, "labels": dict(LABELS)}, "spec": spec}


def parameter_index(name: str) -> int:
    """Where parameter ``name`` sits in the retrain Workflow's ``spec.arguments.parameters``."""
    return [p.name for p in retrain.PARAMETERS].index(name)
