"""The page routes: runs list, one run, its fragments (for live refresh), triggers, our static files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp import web

from aipipe.engine.store import CRON_WORKFLOW, WORKFLOW_EVENT_BINDING
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, service_of
from aipipe.server.names import path_name, path_namespace
from aipipe.server.page.render import STATIC, esc, page
from aipipe.server.page.run import live_fragment, node_fragment, run_body
from aipipe.server.page.runs import filter_form, filter_runs, runs_table
from aipipe.server.page.triggers import triggers_body
from aipipe.validation import check_namespace

STATIC_DIR = Path(__file__).with_name("static")
STATIC_TYPES = {"page.js": "text/javascript", "page.css": "text/css"}

routes = web.RouteTableDef()


# Our own script and stylesheet only (inline style attributes colour the phase badges); never framed.
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", headers={
        "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": POLICY,
        "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"})


def _bindings_by_name(request: web.Request) -> dict[str, dict[str, Any]]:
    items = service_of(request).store.list_resources(WORKFLOW_EVENT_BINDING, None)
    return {f"{b['metadata']['namespace']}/{b['metadata']['name']}": b for b in items}


def _namespace(request: web.Request) -> str:
    """The ``namespace`` query parameter, checked (400 naming it), else the server's default namespace."""
    given = request.query.get("namespace")
    return check_namespace(given[:253], field="namespace") if given else service_of(request).default_namespace


async def _table(request: web.Request) -> tuple[str, str]:
    """The runs table for the request's filters, and an error line when a filter is malformed."""
    phase, label = request.query.get("phase", ""), request.query.get("label", "")
    store = service_of(request).store
    try:
        chosen = filter_runs(await blocking(store.list_workflows, _namespace(request)), phase, label)
    except UserError as exc:
        return "", f'<p class="message failed">{esc(exc)}</p>'
    return runs_table(chosen, await blocking(_bindings_by_name, request)), ""


@routes.get("/")
async def runs_page(request: web.Request) -> web.Response:
    table, error = await _table(request)
    query = request.query_string
    body = (f'<h1>Runs <span class="muted small">{esc(_namespace(request))}</span></h1>'
            + filter_form(request.query.get("phase", ""), request.query.get("label", "")) + error
            + f'<div id="runs" data-namespace="{esc(_namespace(request))}" '
              f'data-fragment="/fragments/runs{esc("?" + query if query else "")}">{table}</div>')
    return _html(page("Runs", body, script="runs", active="runs"), 400 if error else 200)


@routes.get("/fragments/runs")
async def runs_fragment(request: web.Request) -> web.Response:
    table, error = await _table(request)
    return _html(error or table, 400 if error else 200)


async def _workflow(request: web.Request) -> dict[str, Any]:
    return await blocking(service_of(request).store.get_workflow, path_namespace(request),
                          path_name(request, "Workflow"))


def _not_found(exc: NotFoundError) -> web.Response:
    return _html(page("Not found", f'<h1>Not found</h1><p class="message failed">{esc(exc)}</p>'
                      '<p><a href="/">All runs</a></p>'), 404)


async def _live(request: web.Request, workflow: dict[str, Any]) -> str:
    bindings = await blocking(_bindings_by_name, request)
    return await blocking(live_fragment, workflow, bindings, service_of(request).cfg.mlflow_tracking_uri)


@routes.get("/runs/{namespace}/{name}")
async def run_page(request: web.Request) -> web.Response:
    try:
        workflow = await _workflow(request)
    except NotFoundError as exc:
        return _not_found(exc)
    body = run_body(workflow, await _live(request, workflow))
    return _html(page(workflow["metadata"]["name"], body, script="run", active="runs"))


@routes.get("/fragments/runs/{namespace}/{name}")
async def run_fragment(request: web.Request) -> web.Response:
    return _html(await _live(request, await _workflow(request)))


@routes.get("/fragments/runs/{namespace}/{name}/nodes/{node}")
async def node_details(request: web.Request) -> web.Response:
    return _html(node_fragment(await _workflow(request), request.match_info["node"]))


@routes.get("/triggers")
async def triggers_page(request: web.Request) -> web.Response:
    store = service_of(request).store
    crons = await blocking(store.list_resources, CRON_WORKFLOW, None)
    bindings = await blocking(store.list_resources, WORKFLOW_EVENT_BINDING, None)
    runs = await blocking(store.list_workflows, None)
    return _html(page("Schedules & triggers", triggers_body(crons, bindings, runs), active="triggers"))


@routes.get(STATIC + "/{file}")
async def static_file(request: web.Request) -> web.Response:
    name = request.match_info["file"]
    if name not in STATIC_TYPES:
        raise NotFoundError(f"no static file {name!r}")
    text = await blocking((STATIC_DIR / name).read_text, encoding="utf-8")
    return web.Response(text=text, content_type=STATIC_TYPES[name], headers={"Cache-Control": "no-cache"})
