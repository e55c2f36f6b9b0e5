"""Workflow actions: stop, terminate, retry, resubmit."""

from __future__ import annotations

import uuid

from aiohttp import web

from aipipe.engine.service import TERMINATED_MESSAGE
from aipipe.server.common import blocking, read_body, runs_of, service_of
from aipipe.server.names import path_name, path_namespace

routes = web.RouteTableDef()


@routes.put("/api/v1/workflows/{namespace}/{name}/stop")
async def stop_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowStopRequest")
    return web.json_response(await blocking(service_of(request).stop, name, namespace,
                                            body.get("message") or TERMINATED_MESSAGE))


@routes.put("/api/v1/workflows/{namespace}/{name}/terminate")
async def terminate_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    await read_body(request, "WorkflowTerminateRequest")
    return web.json_response(await blocking(service_of(request).stop, name, namespace))


@routes.put("/api/v1/workflows/{namespace}/{name}/retry")
async def retry_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowRetryRequest")
    workflow = await blocking(service_of(request).prepare_retry, name, namespace,
                              restart_successful=bool(body.get("restartSuccessful")),
                              node_field_selector=body.get("nodeFieldSelector") or "",
                              parameters=body.get("parameters") or [])
    runs_of(request).start(workflow)
    return web.json_response(workflow)


@routes.put("/api/v1/workflows/{namespace}/{name}/resubmit")
async def resubmit_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowResubmitRequest")
    driver_id = uuid.uuid4().hex
    workflow = await blocking(service_of(request).prepare_resubmit, name, namespace,
                              parameters=body.get("parameters") or [], driver_id=driver_id)
    runs_of(request).start(workflow, driver_id)
    return web.json_response(workflow)
