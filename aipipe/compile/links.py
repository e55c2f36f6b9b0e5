"""Argo UI links to MLflow: the ``links`` entry of the workflow-controller ConfigMap.

The Argo Server reads ``links`` (a YAML list of ``{name, scope, url, target}``) from the
``workflow-controller-configmap`` and the UI shows each as a button: ``workflow`` links on a run's
page, ``workflow-list`` links above the list. The UI fills ``${…}`` placeholders from the object
it shows: ``${metadata.name}``, ``${status.startedAt}``, and on a run page any field of the run as
``${workflow.…}`` (label and annotation keys may contain dots and slashes there).

``aipipe compile --out-dir`` writes the ConfigMap as :data:`LINKS_FILENAME` when MLflow is an
http(s) server (an embedded sqlite store has no UI to link to). Merge it into the live ConfigMap
without dropping its other keys: ``kubectl patch configmap workflow-controller-configmap -n <ns>
--type merge --patch-file argo-links-configmap.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from aipipe.config import Config
from aipipe.mlflow_ui import ui_base

CONTROLLER_CONFIGMAP = "workflow-controller-configmap"
LINKS_FILENAME = "argo-links-configmap.yaml"
LINK_FIELDS = ("name", "scope", "url", "target")
LINK_SCOPES = ("workflow", "pod", "pod-logs", "event-source-logs", "sensor-logs", "workflow-list", "chat")
MODEL_NAME_ANNOTATION = "aipipe.io/model-name"  # a run's exact MLflow model name (labels cannot hold every name)


def mlflow_ui_url(cfg: Config) -> str | None:
    """The MLflow server's base URL, or None when tracking is not an http(s) server."""
    return ui_base(cfg.mlflow_tracking_uri)


def model_page(ui: str, model: str) -> str:
    """The MLflow page of a registered model (its versions, aliases and runs)."""
    return f"{ui}/#/models/{model}"


def mlflow_links(ui: str) -> list[dict[str, str]]:
    """The links: the run's registered model (from its annotation) and the model registry."""
    model = f"${{workflow.metadata.annotations.{MODEL_NAME_ANNOTATION}}}"
    return [
        {"name": "MLflow model", "scope": "workflow", "url": model_page(ui, model), "target": "_blank"},
        {"name": "MLflow models", "scope": "workflow-list", "url": f"{ui}/#/models", "target": "_blank"},
    ]


def links_configmap(cfg: Config) -> dict[str, Any] | None:
    """The ``links`` part of the workflow-controller ConfigMap, or None when MLflow has no UI."""
    ui = mlflow_ui_url(cfg)
    if ui is None:
        return None
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": CONTROLLER_CONFIGMAP, "namespace": str(cfg.get("argo.namespace"))},
        "data": {"links": yaml.safe_dump(mlflow_links(ui), sort_keys=False, default_flow_style=False)},
    }


def link_errors(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for each problem of the ``links`` entry of a workflow-controller ConfigMap."""
    raw = (doc.get("data") or {}).get("links")
    if raw is None:
        return []
    if not isinstance(raw, str):
        return [("data.links", "must be a string holding a YAML list (links: |)")]
    try:
        links = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        return [("data.links", f"not valid YAML: {exc}")]
    if not isinstance(links, list):
        return [("data.links", "must be a YAML list of {name, scope, url, target}")]
    errors = []
    for i, link in enumerate(links):
        where = f"data.links[{i}]"
        if not isinstance(link, dict):
            errors.append((where, "must be a mapping"))
            continue
        errors += [(f"{where}.{key}", f"unknown field {key!r}") for key in link if key not in LINK_FIELDS]
        errors += [(f"{where}.{key}", "must be a non-empty string") for key in ("name", "scope", "url")
                   if not isinstance(link.get(key), str) or not link[key]]
        if "target" in link and not isinstance(link["target"], str):
            errors.append((f"{where}.target", "must be a string such as _blank or _self"))
        if isinstance(link.get("scope"), str) and link["scope"] and link["scope"] not in LINK_SCOPES:
            errors.append((f"{where}.scope", f"must be one of {', '.join(LINK_SCOPES)}"))
    return errors
