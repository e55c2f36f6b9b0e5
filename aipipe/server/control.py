"""Workflow actions as Argo's server takes them: stop, terminate, suspend, resume, set, retry, resubmit.

Stop and terminate shut the run down with Argo's strategies (exit handlers run on Stop, not on
Terminate); suspend, resume and set act on the run and its ``suspend`` nodes (``aipipe.engine.control``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from aipipe.engine.control import RESUME, SHUTDOWN, STOP, SUSPEND, TERMINATE, set_request
from aipipe.server.common import blocking, read_body, runs_of, service_of
from aipipe.server.names import path_name, path_namespace

routes = web.RouteTableDef()


@routes.put("/api/v1/workflows/{namespace}/{name}/stop")
async def stop_workflow(request: web.Request) -> web.Response:
    """Argo's Stop: running nodes end Failed "Stopped with strategy 'Stop'", exit handlers still run; with a
    nodeFieldSelector, fails the matching suspend node with the request's message instead."""
    return await _act(request, "WorkflowStopRequest", lambda body: {
        "action": SHUTDOWN, "strategy": STOP, "nodeFieldSelector": body.get("nodeFieldSelector") or "",
        "message": body.get("message") or ""})


@routes.put("/api/v1/workflows/{namespace}/{name}/terminate")
async def terminate_workflow(request: web.Request) -> web.Response:
    """Argo's Terminate: running nodes end Failed "Stopped with strategy 'Terminate'"; no exit handler runs."""
    return await _act(request, "WorkflowTerminateRequest", lambda body: {"action": SHUTDOWN, "strategy": TERMINATE})


@routes.put("/api/v1/workflows/{namespace}/{name}/suspend")
async def suspend_workflow(request: web.Request) -> web.Response:
    """``spec.suspend: true``: nothing new starts until resumed."""
    return await _act(request, "WorkflowSuspendRequest", lambda body: {"action": SUSPEND})


@routes.put("/api/v1/workflows/{namespace}/{name}/resume")
async def resume_workflow(request: web.Request) -> web.Response:
    """Clear ``spec.suspend`` and resume every waiting suspend node, or only the nodes a nodeFieldSelector picks."""
    return await _act(request, "WorkflowResumeRequest", lambda body: {
        "action": RESUME, "nodeFieldSelector": body.get("nodeFieldSelector") or ""})


@routes.put("/api/v1/workflows/{namespace}/{name}/set")
async def set_workflow(request: web.Request) -> web.Response:
    """Set the phase, message or supplied output parameters of the suspend nodes a nodeFieldSelector picks."""
    return await _act(request, "WorkflowSetRequest", set_request)


async def _act(request: web.Request, body_type: str,
               action_of: Callable[[dict[str, Any]], dict[str, Any]]) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, body_type)
    action = action_of(body)
    return web.json_response(await blocking(service_of(request).control, name, namespace, action))


@routes.put("/api/v1/workflows/{namespace}/{name}/retry")
async def retry_workflow(request: web.Request) -> web.Response:
    body = await read_body(request, "WorkflowRetryRequest")
    return await retry_run(request, path_name(request, "Workflow"), path_namespace(request), body)


@routes.put("/api/v1/workflows/{namespace}/{name}/resubmit")
async def resubmit_workflow(request: web.Request) -> web.Response:
    body = await read_body(request, "WorkflowResubmitRequest")
    return await resubmit_run(request, path_name(request, "Workflow"), path_namespace(request), body)


async def retry_run(request: web.Request, name: str, namespace: str, body: dict[str, Any]) -> web.Response:
    """Argo's retry (failed nodes run again) of a run, driven by this server."""
    workflow = await blocking(service_of(request).prepare_retry, name, namespace,
                              restart_successful=bool(body.get("restartSuccessful")),
                              node_field_selector=body.get("nodeFieldSelector") or "",
                              parameters=body.get("parameters") or [])
    runs_of(request).start(workflow)
    return web.json_response(workflow)


async def resubmit_run(request: web.Request, name: str, namespace: str, body: dict[str, Any]) -> web.Response:
    """Argo's resubmit (a new run of the same spec), driven by this server."""
    driver_id = uuid.uuid4().hex
    workflow = await blocking(service_of(request).prepare_resubmit, name, namespace,
                              parameters=body.get("parameters") or [], driver_id=driver_id)
    runs_of(request).start(workflow, driver_id)
    return web.json_response(workflow)
