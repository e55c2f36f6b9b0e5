"""The runs list: what each run is (pipeline, trigger), the server-side filters and the table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from aipipe.argo.labels import CLUSTER_TEMPLATE_LABEL, TEMPLATE_LABEL, TITLE_ANNOTATION
from aipipe.server.cron import CRON_LABEL
from aipipe.server.events import BINDING_LABEL
from aipipe.server.page.render import duration_of, esc, format_duration, format_time, phase_badge
from aipipe.server.queries import labels_match, parse_label_selector

PHASES = ("Pending", "Running", "Succeeded", "Failed", "Error")
TRIGGER_LABEL = "aipipe.io/trigger"  # what aipipe's own pipelines say started them (pipelines/templates/_common.py)


def annotation(workflow: dict[str, Any], key: str) -> str:
    return str((workflow["metadata"].get("annotations") or {}).get(key) or "")


def run_href(workflow: dict[str, Any]) -> str:
    meta = workflow["metadata"]
    return f"/runs/{quote(meta['namespace'], safe='')}/{quote(meta['name'], safe='')}"


def pipeline_of(workflow: dict[str, Any]) -> str:
    """The template it runs (``workflowTemplateRef``, else the template/cron label), else its name prefix."""
    ref = (workflow.get("spec") or {}).get("workflowTemplateRef") or {}
    labels = workflow["metadata"].get("labels") or {}
    for candidate in (ref.get("name"), labels.get(TEMPLATE_LABEL), labels.get(CLUSTER_TEMPLATE_LABEL),
                      labels.get(CRON_LABEL)):
        if candidate:
            return str(candidate)
    return str(workflow["metadata"].get("generateName") or "").rstrip("-")


def trigger_of(workflow: dict[str, Any], bindings: Mapping[str, dict[str, Any]]) -> str:
    """The run's ``aipipe.io/trigger`` label when it has one, else ``cron``, ``s3`` (a binding whose selector
    reads S3 ``Records``), ``webhook`` (another binding) or ``manual``; ``bindings`` by ``namespace/name``."""
    labels = workflow["metadata"].get("labels") or {}
    if labels.get(TRIGGER_LABEL):
        return str(labels[TRIGGER_LABEL])
    if labels.get(CRON_LABEL):
        return "cron"
    binding_name = labels.get(BINDING_LABEL)
    if not binding_name:
        return "manual"
    binding = bindings.get(f"{workflow['metadata']['namespace']}/{binding_name}") or {}
    selector = str(((binding.get("spec") or {}).get("event") or {}).get("selector") or "")
    return "s3" if "Records" in selector or "s3" in selector.lower() else "webhook"


def filter_runs(workflows: list[dict[str, Any]], phase: str, label: str) -> list[dict[str, Any]]:
    """Runs in ``phase`` (any when empty) matching the label selector ``label``, newest first.

    A malformed selector raises UserError naming ``label``."""
    requirements = parse_label_selector(label, field="label")
    chosen = [w for w in workflows if (not phase or (w.get("status") or {}).get("phase") == phase)
              and labels_match(w, requirements)]
    return sorted(chosen, key=lambda w: (str(w["metadata"].get("creationTimestamp") or ""), w["metadata"]["name"]),
                  reverse=True)


def runs_table(workflows: list[dict[str, Any]], bindings: Mapping[str, dict[str, Any]]) -> str:
    """The ``<table>`` of runs (or a note when there are none)."""
    if not workflows:
        return '<p class="muted" id="no-runs">No runs match.</p>'
    rows = []
    for workflow in workflows:
        meta, status = workflow["metadata"], workflow.get("status") or {}
        rows.append(
            f'<tr data-name="{esc(meta["name"])}" data-phase="{esc(status.get("phase") or "")}">'
            f'<td><a href="{esc(run_href(workflow))}">{esc(meta["name"])}</a>'
            f'<div class="muted small">{esc(annotation(workflow, TITLE_ANNOTATION) or meta["namespace"])}</div></td>'
            f"<td>{esc(pipeline_of(workflow))}</td><td>{phase_badge(status.get('phase'))}</td>"
            f'<td class="trigger">{esc(trigger_of(workflow, bindings))}</td>'
            f"<td>{esc(format_time(status.get('startedAt')))}</td>"
            f"<td>{esc(format_duration(duration_of(status)))}</td><td>{esc(status.get('progress') or '')}</td></tr>")
    return ('<table class="runs"><thead><tr><th>Name</th><th>Pipeline</th><th>Phase</th><th>Trigger</th>'
            "<th>Started (UTC)</th><th>Duration</th><th>Progress</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def filter_form(phase: str, label: str) -> str:
    options = "".join(f'<option value="{p}"{" selected" if p == phase else ""}>{p}</option>' for p in PHASES)
    return ('<form class="filters" method="get" action="/">'
            f'<label>Phase <select name="phase"><option value="">any</option>{options}</select></label>'
            f'<label>Labels <input name="label" value="{esc(label)}" placeholder="key=value,other!=x" '
            'size="32"></label><button type="submit">Filter</button></form>')
