"""Streams: the workflow watch and node logs."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from aiohttp import web

from aipipe.engine.names import pod_name
from aipipe.engine.store import COMPLETED_PHASES
from aipipe.errors import UserError
from aipipe.server.common import blocking, service_of
from aipipe.server.limits import query_bool, query_int
from aipipe.server.names import path_name, path_namespace
from aipipe.server.workflows import selector_matches

POLL_SECONDS = 0.25

routes = web.RouteTableDef()


async def _open_stream(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    return response


def _connected(request: web.Request) -> bool:
    """False once the client went away (aiohttp does not cancel handlers on disconnect)."""
    return request.transport is not None and not request.transport.is_closing()


async def _send(response: web.StreamResponse, result: dict[str, Any]) -> None:
    """One line of a stream; a client that went away ends the stream quietly (``_connected`` turns False)."""
    with contextlib.suppress(ConnectionResetError):
        await response.write(json.dumps({"result": result}).encode() + b"\n")


@routes.get("/api/v1/workflow-events/{namespace}")
async def watch_workflows(request: web.Request) -> web.StreamResponse:
    """ADDED for each matching run, then MODIFIED/DELETED as the store changes (one JSON per line)."""
    service = service_of(request)
    namespace = path_namespace(request)
    labels = request.query.get("listOptions.labelSelector", "")
    fields = request.query.get("listOptions.fieldSelector", "")
    selector_matches({}, labels, fields)  # a malformed selector is a 400 before the stream opens
    timeout = query_int(request.query, "listOptions.timeoutSeconds")
    since_param = request.query.get("listOptions.resourceVersion", "")
    if since_param and not since_param.isdigit():
        raise UserError(f"expected a resource version (digits), got {since_param[:64]!r}",
                        field="listOptions.resourceVersion")
    response = await _open_stream(request)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout if timeout > 0 else None
    seen: set[str] = set()
    if since_param.isdigit():
        since = int(since_param)
    else:
        since = await blocking(service.store.current_version)
        for workflow in await blocking(service.store.list_workflows, namespace):
            if selector_matches(workflow, labels, fields):
                seen.add(workflow["metadata"]["uid"])
                await _send(response, {"type": "ADDED", "object": workflow})
    while (deadline is None or loop.time() < deadline) and _connected(request):
        await asyncio.sleep(POLL_SECONDS)
        for kind, workflow in await blocking(service.store.workflow_changes, since, namespace):
            since = max(since, int(workflow["metadata"]["resourceVersion"]))
            if not selector_matches(workflow, labels, fields):
                continue
            uid = workflow["metadata"]["uid"]
            event = kind if kind == "DELETED" or uid in seen else "ADDED"
            seen.add(uid)
            await _send(response, {"type": event, "object": workflow})
    return response


def _pod_names(workflow: dict[str, Any]) -> dict[str, str]:
    name = workflow["metadata"]["name"]
    return {node_id: pod_name(name, node.get("name", node_id), node.get("templateName", ""))
            for node_id, node in workflow.get("status", {}).get("nodes", {}).items()}


async def stream_logs(request: web.Request, pod_filter: str) -> web.StreamResponse:
    """Node output as ``{"result": {"content": line, "podName": …}}`` lines; ``follow`` waits for the end."""
    service = service_of(request)
    namespace, name = path_namespace(request), path_name(request, "Workflow")
    follow = query_bool(request.query, "logOptions.follow")
    workflow = await blocking(service.store.get_workflow, namespace, name)
    grep = request.query.get("grep", "")
    response = await _open_stream(request)
    uid, after = workflow["metadata"]["uid"], 0
    partial: dict[str, str] = {}  # node id -> its last line while it has no newline yet
    while True:
        chunks = await blocking(service.store.read_logs, uid, after)
        pods = _pod_names(workflow)
        for chunk in chunks:
            after = chunk.seq
            pod = pods.get(chunk.node_id, chunk.node_id)
            if pod_filter and pod_filter not in (pod, chunk.node_id):
                continue
            text = partial.pop(chunk.node_id, "") + chunk.content
            *lines, rest = text.split("\n")
            if rest:
                partial[chunk.node_id] = rest
            for line in lines:
                if grep in line:
                    await _send(response, {"content": line, "podName": pod})
        finished = workflow.get("status", {}).get("phase") in COMPLETED_PHASES
        if not follow or (finished and not chunks) or not _connected(request):
            break
        await asyncio.sleep(POLL_SECONDS)
        workflow = await blocking(service.store.get_workflow, namespace, name)
    for node_id, rest in partial.items():
        pod = _pod_names(workflow).get(node_id, node_id)
        if grep in rest:
            await _send(response, {"content": rest, "podName": pod})
    return response


@routes.get("/api/v1/workflows/{namespace}/{name}/log")
async def workflow_logs(request: web.Request) -> web.StreamResponse:
    return await stream_logs(request, request.query.get("podName", ""))


@routes.get("/api/v1/workflows/{namespace}/{name}/{podName}/log")
async def pod_logs(request: web.Request) -> web.StreamResponse:
    return await stream_logs(request, request.match_info["podName"])
