"""Links out of a run: MLflow (run, registered model version) and the deployed endpoint.

They come from what the run carries: output parameters of its nodes (train's ``mlflow_run_url`` and
``model_version_url``, deploy's ``endpoint``, any ``*url*``/``*mlflow*`` parameter holding an http(s) URL) and
annotations holding such URLs. Without the URL outputs, train's ``mlflow_run_id``/``model_version`` become links
when the tracking URI is an http(s) server."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from aipipe.server.page.render import esc

ENDPOINT_PARAM = "endpoint"
RUN_ID_PARAM = "mlflow_run_id"
RUN_URL_PARAM = "mlflow_run_url"
VERSION_PARAM = "model_version"
VERSION_URL_PARAM = "model_version_url"
MODEL_NAME_INPUT = "model-name"


def _is_http(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


def _params(section: Any) -> dict[str, str]:
    return {str(p.get("name")): str(p.get("value") or "") for p in (section or {}).get("parameters") or []
            if isinstance(p, dict) and p.get("name")}


def run_links(workflow: dict[str, Any], tracking_uri: str) -> list[tuple[str, str]]:
    """(label, URL) pairs, each URL http(s), without duplicates, in a stable order."""
    found: list[tuple[str, str]] = []
    server = tracking_uri.rstrip("/") if _is_http(tracking_uri) else ""
    for key, value in sorted(((workflow.get("metadata") or {}).get("annotations") or {}).items()):
        if _is_http(value) and ("mlflow" in key.lower() or "url" in key.lower()):
            found.append((key.rsplit("/", 1)[-1], value))
    nodes = (workflow.get("status") or {}).get("nodes") or {}
    for node in sorted(nodes.values(), key=lambda n: str(n.get("startedAt") or "")):
        outputs, inputs = _params(node.get("outputs")), _params(node.get("inputs"))
        step = str(node.get("displayName") or node.get("name") or "")
        model = inputs.get(MODEL_NAME_INPUT) or "model"
        version_label = f"MLflow {model} version {outputs.get(VERSION_PARAM, '')}".rstrip()
        labels = {ENDPOINT_PARAM: "Deployed endpoint", RUN_URL_PARAM: "MLflow run", VERSION_URL_PARAM: version_label}
        for name, value in outputs.items():
            if _is_http(value) and (name in labels or "mlflow" in name.lower() or "url" in name.lower()):
                found.append((labels.get(name, f"{step}: {name}"), value))
        if server and outputs.get(RUN_ID_PARAM) and not _is_http(outputs.get(RUN_URL_PARAM)):
            found.append(("MLflow run", f"{server}/#/runs/{quote(outputs[RUN_ID_PARAM], safe='')}"))
        if server and outputs.get(VERSION_PARAM) and inputs.get(MODEL_NAME_INPUT) \
                and not _is_http(outputs.get(VERSION_URL_PARAM)):
            found.append((version_label, f"{server}/#/models/{quote(model, safe='')}/versions/"
                                         f"{quote(outputs[VERSION_PARAM], safe='')}"))
    unique: dict[str, str] = {}
    for label, url in found:
        unique.setdefault(url, label)
    return [(label, url) for url, label in unique.items()]


def links_html(links: list[tuple[str, str]]) -> str:
    if not links:
        return ""
    items = "".join(f'<li><a href="{esc(url)}" target="_blank" rel="noopener noreferrer">{esc(label)}</a></li>'
                    for label, url in links)
    return f'<ul class="links">{items}</ul>'
