"""One run: its summary and actions, the live part (summary + graph) and one node's details."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from aipipe.argo.labels import DESCRIPTION_ANNOTATION, TITLE_ANNOTATION
from aipipe.engine.store import COMPLETED_PHASES
from aipipe.server.page.graph import render_svg
from aipipe.server.page.links import links_html, run_links
from aipipe.server.page.render import (
    FAILED_PHASES,
    duration_of,
    esc,
    format_duration,
    format_time,
    markdown_lite,
    phase_badge,
)
from aipipe.server.page.runs import annotation, pipeline_of, trigger_of

ACTIONS = ("retry", "resubmit", "stop", "terminate", "resume")
POD_TYPES = frozenset({"Pod", "Container"})


def _q(value: str) -> str:
    return quote(value, safe="")


def fragment_href(namespace: str, name: str, node_id: str = "") -> str:
    base = f"/fragments/runs/{_q(namespace)}/{_q(name)}"
    return f"{base}/nodes/{_q(node_id)}" if node_id else base


def _enabled(action: str, phase: str, suspended: bool) -> bool:
    done = phase in COMPLETED_PHASES
    return {"retry": phase in FAILED_PHASES, "resubmit": done, "stop": not done, "terminate": not done,
            "resume": suspended and not done}[action]


def _message(text: Any, phase: str) -> str:
    if not text:
        return ""
    cls = "message failed" if phase in FAILED_PHASES else "message"
    return f'<p class="{cls}">{esc(text)}</p>'


def _fact(label: str, value: str) -> str:
    return f"<dt>{esc(label)}</dt><dd>{value}</dd>" if value else ""


def live_fragment(workflow: dict[str, Any], bindings: Mapping[str, dict[str, Any]], tracking_uri: str) -> str:
    """What changes while the run goes on: the summary, the action buttons, the links and the graph."""
    status = workflow.get("status") or {}
    phase = str(status.get("phase") or "Pending")
    suspended = bool((workflow.get("spec") or {}).get("suspend")) or any(
        n.get("type") == "Suspend" and n.get("phase") == "Running" for n in (status.get("nodes") or {}).values())
    buttons = "".join(f'<button type="button" class="action" data-action="{a}"'
                      f'{"" if _enabled(a, phase, suspended) else " disabled"}>{a.capitalize()}</button>'
                      for a in ACTIONS)
    facts = "".join((
        _fact("Phase", phase_badge(phase)),
        _fact("Pipeline", esc(pipeline_of(workflow))),
        _fact("Trigger", esc(trigger_of(workflow, bindings))),
        _fact("Started (UTC)", esc(format_time(status.get("startedAt")))),
        _fact("Duration", esc(format_duration(duration_of(status)))),
        _fact("Progress", esc(status.get("progress") or "")),
    ))
    title, description = annotation(workflow, TITLE_ANNOTATION), annotation(workflow, DESCRIPTION_ANNOTATION)
    heading = (f'<h2 class="title">{esc(title)}</h2>' if title else "") + (
        f'<div class="description">{markdown_lite(description)}</div>' if description else "")
    return (f'<section class="summary" data-phase="{esc(phase)}">{heading}<dl>{facts}</dl>'
            f'{_message(status.get("message"), phase)}<div class="actions">{buttons}</div>'
            f'{links_html(run_links(workflow, tracking_uri))}</section>'
            f'<section class="graph-box">{render_svg(workflow)}</section>')


def run_body(workflow: dict[str, Any], live: str) -> str:
    meta = workflow["metadata"]
    namespace, name = str(meta["namespace"]), str(meta["name"])
    return (f'<div id="run" data-namespace="{esc(namespace)}" data-name="{esc(name)}" '
            f'data-fragment="{esc(fragment_href(namespace, name))}">'
            f'<h1><a href="/">Runs</a> / {esc(name)} <span class="muted small">{esc(namespace)}</span></h1>'
            f'<p id="action-status" class="muted" role="status"></p>'
            f'<div id="live">{live}</div>'
            '<aside id="node-panel"><p class="muted">Click a node for its inputs, outputs, artifacts and logs.</p>'
            "</aside></div>")


def _param_rows(params: Any) -> str:
    rows = "".join(f"<tr><td>{esc(p.get('name'))}</td><td><code>{esc(p.get('value', ''))}</code></td></tr>"
                   for p in params or [] if isinstance(p, dict))
    return f'<table class="params">{rows}</table>' if rows else ""


def _artifacts(artifacts: Any, download: str | None) -> str:
    items = []
    for art in artifacts or []:
        if not isinstance(art, dict) or not art.get("name"):
            continue
        label = esc(art["name"])
        if download is not None:
            label = f'<a class="artifact" href="{esc(download + _q(str(art["name"])))}" download>{label}</a>'
        where = art.get("path") or ""
        items.append(f'<li>{label} <span class="muted small">{esc(where)}</span></li>')
    return f'<ul class="artifacts">{"".join(items)}</ul>' if items else ""


def _section(title: str, inner: str) -> str:
    return f"<h3>{esc(title)}</h3>{inner}" if inner else ""


def node_fragment(workflow: dict[str, Any], node_id: str) -> str:
    """The details of one node: facts, failure message, inputs, outputs, artifacts, the log box."""
    meta = workflow["metadata"]
    namespace, name = str(meta["namespace"]), str(meta["name"])
    node = ((workflow.get("status") or {}).get("nodes") or {}).get(node_id)
    if node is None:
        return f'<p class="muted">No node {esc(node_id)} in this run.</p>'
    phase = str(node.get("phase") or "Pending")
    inputs, outputs = node.get("inputs") or {}, node.get("outputs") or {}
    facts = "".join((
        _fact("Phase", phase_badge(phase)), _fact("Type", esc(node.get("type") or "")),
        _fact("Template", esc(node.get("templateName") or "")),
        _fact("Started (UTC)", esc(format_time(node.get("startedAt")))),
        _fact("Duration", esc(format_duration(duration_of(node)))), _fact("Progress", esc(node.get("progress") or "")),
        _fact("Exit code", esc(outputs.get("exitCode") or "")),
    ))
    download = f"/artifact-files/{_q(namespace)}/workflows/{_q(name)}/{_q(node_id)}/outputs/"
    result = outputs.get("result")
    body = "".join((
        _section("Inputs", _param_rows(inputs.get("parameters")) + _artifacts(inputs.get("artifacts"), None)),
        _section("Outputs", _param_rows(outputs.get("parameters"))
                 + (f'<p>result: <code>{esc(result)}</code></p>' if result else "")),
        _section("Artifacts", _artifacts(outputs.get("artifacts"), download)),
    ))
    logs = ""
    if node.get("type") in POD_TYPES:
        query = urlencode({"podName": node_id, "logOptions.container": "main", "logOptions.follow": "true"})
        logs = (f'<h3>Logs</h3><pre id="logs" class="logs" data-node-id="{esc(node_id)}" '
                f'data-log-url="/api/v1/workflows/{esc(_q(namespace))}/{esc(_q(name))}/log?{esc(query)}"></pre>')
    return (f'<div class="node-info" data-node-id="{esc(node_id)}" data-phase="{esc(phase)}">'
            f'<h2>{esc(node.get("displayName") or node.get("name") or node_id)}</h2><dl>{facts}</dl>'
            f'{_message(node.get("message"), phase)}<div class="node-sections">{body}</div></div>{logs}')
