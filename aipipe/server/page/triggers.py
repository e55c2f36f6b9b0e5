"""The schedules & triggers page: CronWorkflows and WorkflowEventBindings with the runs they started."""

from __future__ import annotations

from typing import Any

from aipipe.server.cron import CRON_LABEL
from aipipe.server.events import BINDING_LABEL, THRESHOLD_ANNOTATION
from aipipe.server.page.render import esc, format_time, phase_badge
from aipipe.server.page.runs import run_href


def _last_run(runs: list[dict[str, Any]], namespace: str, label: str, name: str) -> str:
    mine = [w for w in runs if w["metadata"]["namespace"] == namespace
            and (w["metadata"].get("labels") or {}).get(label) == name]
    if not mine:
        return '<span class="muted">none yet</span>'
    last = max(mine, key=lambda w: str(w["metadata"].get("creationTimestamp") or ""))
    return (f'<a href="{esc(run_href(last))}">{esc(last["metadata"]["name"])}</a> '
            f'{phase_badge((last.get("status") or {}).get("phase"))}')


def _table(head: tuple[str, ...], rows: list[str], empty: str, cls: str) -> str:
    if not rows:
        return f'<p class="muted">{esc(empty)}</p>'
    cells = "".join(f"<th>{esc(h)}</th>" for h in head)
    return f'<table class="{cls}"><thead><tr>{cells}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def cron_table(crons: list[dict[str, Any]], runs: list[dict[str, Any]]) -> str:
    rows = []
    for cron in sorted(crons, key=lambda c: (c["metadata"]["namespace"], c["metadata"]["name"])):
        meta, spec, status = cron["metadata"], cron.get("spec") or {}, cron.get("status") or {}
        schedules = list(spec.get("schedules") or []) + ([spec["schedule"]] if spec.get("schedule") else [])
        rows.append(
            f'<tr data-name="{esc(meta["name"])}"><td>{esc(meta["name"])}'
            f'<div class="muted small">{esc(meta["namespace"])}</div></td>'
            f"<td><code>{esc(', '.join(schedules))}</code> {esc(spec.get('timezone') or '')}</td>"
            f"<td>{'suspended' if spec.get('suspend') else 'active'}</td>"
            f"<td>{esc(spec.get('concurrencyPolicy') or 'Allow')}</td>"
            f"<td>{esc(format_time(status.get('lastScheduledTime')))}</td>"
            f"<td>{esc(status.get('succeeded', 0))} / {esc(status.get('failed', 0))}</td>"
            f"<td>{_last_run(runs, meta['namespace'], CRON_LABEL, meta['name'])}</td></tr>")
    return _table(("Name", "Schedule", "State", "Concurrency", "Last scheduled (UTC)", "Succeeded / failed",
                   "Last run"), rows, "No CronWorkflows.", "crons")


def binding_table(bindings: list[dict[str, Any]], runs: list[dict[str, Any]]) -> str:
    rows = []
    for binding in sorted(bindings, key=lambda b: (b["metadata"]["namespace"], b["metadata"]["name"])):
        meta, spec = binding["metadata"], binding.get("spec") or {}
        template = ((spec.get("submit") or {}).get("workflowTemplateRef") or {}).get("name") or ""
        threshold = (meta.get("annotations") or {}).get(THRESHOLD_ANNOTATION, "1")
        rows.append(
            f'<tr data-name="{esc(meta["name"])}"><td>{esc(meta["name"])}'
            f'<div class="muted small">{esc(meta["namespace"])}</div></td>'
            f"<td><code>{esc((spec.get('event') or {}).get('selector') or '')}</code></td>"
            f"<td>{esc(template)}</td><td>{esc(threshold)}</td>"
            f"<td>{_last_run(runs, meta['namespace'], BINDING_LABEL, meta['name'])}</td></tr>")
    return _table(("Name", "Event selector", "Submits", "New items to fire", "Last run"), rows,
                  "No WorkflowEventBindings.", "bindings")


def triggers_body(crons: list[dict[str, Any]], bindings: list[dict[str, Any]], runs: list[dict[str, Any]]) -> str:
    return ("<h1>Schedules &amp; triggers</h1><h2>Schedules (CronWorkflows)</h2>" + cron_table(crons, runs)
            + "<h2>Event triggers (WorkflowEventBindings)</h2>"
            + '<p class="muted small">Events are posted to <code>/api/v1/events/{namespace}/{discriminator}</code>.'
            "</p>" + binding_table(bindings, runs))
