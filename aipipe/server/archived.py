"""Argo's ArchivedWorkflowService over the run store: an archived workflow is a finished run.

The runs stay in the store when they finish, so they are both live and archived here: retry and
resubmit act on the run itself (Argo refuses to retry an archived workflow that is still live).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from aipipe.engine.service import EngineService
from aipipe.engine.store import COMPLETED_PHASES
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, read_body, service_of
from aipipe.server.control import resubmit_run, retry_run
from aipipe.server.queries import LABELS, ListQuery, parse_label_selector
from aipipe.validation import check_namespace

ARCHIVING_LABEL = "workflows.argoproj.io/workflow-archiving-status"
BASE = "/api/v1/archived-workflows"
# what Argo's archive list carries of each workflow (the rest comes with a get by uid)
_LIST_STATUS = ("phase", "startedAt", "finishedAt", "progress", "message", "estimatedDuration", "resourcesDuration")

routes = web.RouteTableDef()


def _finished(service: EngineService, namespace: str = "") -> list[dict[str, Any]]:
    return [w for w in service.store.list_workflows(namespace or None)
            if (w.get("status") or {}).get("phase") in COMPLETED_PHASES]


def _persisted(workflow: dict[str, Any]) -> dict[str, Any]:
    meta = workflow["metadata"]
    return {**workflow, "metadata": {**meta, "labels": {**(meta.get("labels") or {}), ARCHIVING_LABEL: "Persisted"}}}


def _list_item(workflow: dict[str, Any]) -> dict[str, Any]:
    meta, spec, status = workflow["metadata"], workflow.get("spec") or {}, workflow.get("status") or {}
    item = {"metadata": {k: meta[k] for k in ("name", "namespace", "uid", "creationTimestamp", "labels",
                                              "annotations") if k in meta},
            "spec": {"suspend": spec["suspend"]} if "suspend" in spec else {},
            "status": {k: status[k] for k in _LIST_STATUS if k in status}}
    return _persisted(item)


def _query_namespace(request: web.Request) -> str:
    raw = request.query.get("namespace", "")
    return check_namespace(raw, field="namespace") if raw else ""


def _archived(service: EngineService, uid: str, namespace: str, name: str) -> dict[str, Any]:
    """The finished run ``uid`` (matching ``namespace``/``name`` when given), else NotFoundError."""
    workflow = service.store.workflow_by_uid(uid)
    meta = (workflow or {}).get("metadata") or {}
    if (workflow is None or (workflow.get("status") or {}).get("phase") not in COMPLETED_PHASES
            or namespace not in ("", meta.get("namespace")) or name not in ("", meta.get("name"))):
        raise NotFoundError(f'archived workflow "{uid[:64]}" not found')
    return workflow


async def _by_uid(request: web.Request) -> dict[str, Any]:
    return await blocking(_archived, service_of(request), request.match_info["uid"], _query_namespace(request),
                          request.query.get("name", ""))


@routes.get(BASE)
async def list_archived(request: web.Request) -> web.Response:
    service = service_of(request)
    query = ListQuery.parse(request.query, _query_namespace(request), request.query.get("namePrefix", ""))
    items, paging = query.page(await blocking(_finished, service, query.namespace))
    return web.json_response({"metadata": paging, "items": [_list_item(w) for w in items]})


@routes.get(BASE + "/{uid}")
async def get_archived(request: web.Request) -> web.Response:
    return web.json_response(_persisted(await _by_uid(request)))


@routes.delete(BASE + "/{uid}")
async def delete_archived(request: web.Request) -> web.Response:
    meta = (await _by_uid(request))["metadata"]
    await blocking(service_of(request).delete, meta["name"], meta["namespace"])
    return web.json_response({})


@routes.get("/api/v1/archived-workflows-label-keys")
async def label_keys(request: web.Request) -> web.Response:
    runs = await blocking(_finished, service_of(request), _query_namespace(request))
    keys = {key for run in runs for key in (run["metadata"].get("labels") or {})}
    return web.json_response({"items": sorted(keys)})


@routes.get("/api/v1/archived-workflows-label-values")
async def label_values(request: web.Request) -> web.Response:
    """The values of one label key, asked as ``listOptions.labelSelector=<key>`` (an existence requirement)."""
    requirements = parse_label_selector(request.query.get(LABELS, ""))
    if len(requirements) != 1:
        raise UserError(f"exactly one label key is needed, found {len(requirements)}", field=LABELS)
    if requirements[0].op != "exists":
        raise UserError(f"operation {requirements[0].op!r} is not supported: give just the key", field=LABELS)
    key = requirements[0].key
    runs = await blocking(_finished, service_of(request), _query_namespace(request))
    values = {run["metadata"]["labels"][key] for run in runs if key in (run["metadata"].get("labels") or {})}
    return web.json_response({"items": sorted(values)})


def _body_matches(body: dict[str, Any], workflow: dict[str, Any], uid: str) -> None:
    """The body's optional uid/namespace/name must name the same run as the path."""
    meta = workflow["metadata"]
    for key, actual in (("uid", uid), ("namespace", meta["namespace"]), ("name", meta["name"])):
        if body.get(key) not in (None, "", actual):
            raise UserError(f"does not match the archived workflow {uid[:64]!r} ({actual!r})", field=key)


@routes.put(BASE + "/{uid}/retry")
async def retry_archived(request: web.Request) -> web.Response:
    body = await read_body(request, "RetryArchivedWorkflowRequest")
    meta = (await _matching(request, body))["metadata"]
    return await retry_run(request, meta["name"], meta["namespace"], body)


@routes.put(BASE + "/{uid}/resubmit")
async def resubmit_archived(request: web.Request) -> web.Response:
    body = await read_body(request, "ResubmitArchivedWorkflowRequest")
    meta = (await _matching(request, body))["metadata"]
    return await resubmit_run(request, meta["name"], meta["namespace"], body)


async def _matching(request: web.Request, body: dict[str, Any]) -> dict[str, Any]:
    """The finished run the path's uid names, checked against the body's uid/namespace/name."""
    uid = request.match_info["uid"]
    found = await blocking(_archived, service_of(request), uid, "", "")
    _body_matches(body, found, uid)
    return found
