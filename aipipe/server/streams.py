"""Streams: the workflow watch and node logs (framing, keep-alives and disconnects: :mod:`aipipe.server.sse`)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from aipipe.engine.names import pod_name
from aipipe.engine.store import COMPLETED_PHASES
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, service_of
from aipipe.server.errors import INVALID_ARGUMENT, NOT_FOUND
from aipipe.server.limits import query_bool, query_int
from aipipe.server.names import path_name, path_namespace
from aipipe.server.shapes import repository_of, watch_message
from aipipe.server.sse import EventStream
from aipipe.server.workflows import selector_matches

POLL_SECONDS = 0.25

routes = web.RouteTableDef()


async def _run(stream: EventStream, body: Any) -> web.StreamResponse:
    """Drive an open stream; a run deleted or a bad value found after the headers went out ends it with an
    error frame (the status line is already sent)."""
    try:
        await body
    except NotFoundError as exc:
        await stream.send_error(404, NOT_FOUND, str(exc))
    except UserError as exc:
        await stream.send_error(400, INVALID_ARGUMENT, str(exc))
    return stream.response


@routes.get("/api/v1/workflow-events/")
@routes.get("/api/v1/workflow-events/{namespace}")
async def watch_workflows(request: web.Request) -> web.StreamResponse:
    """ADDED for each matching run, then MODIFIED/DELETED as the store changes (every namespace when the
    path names none, as the Argo UI asks in its all-namespaces view); ``fields`` projects each event."""
    namespace = path_namespace(request) if "namespace" in request.match_info else ""
    labels = request.query.get("listOptions.labelSelector", "")
    fields = request.query.get("listOptions.fieldSelector", "")
    selector_matches({}, labels, fields)  # a malformed selector is a 400 before the stream opens
    timeout = query_int(request.query, "listOptions.timeoutSeconds")
    since_param = request.query.get("listOptions.resourceVersion", "")
    if since_param and not since_param.isdigit():
        raise UserError(f"expected a resource version (digits), got {since_param[:64]!r}",
                        field="listOptions.resourceVersion")
    stream = await EventStream(request).open()
    since = int(since_param) if since_param else None
    return await _run(stream, _watch(stream, namespace, labels, fields, timeout, since))


async def _watch(stream: EventStream, namespace: str, labels: str, fields: str, timeout: int,
                 since: int | None) -> None:
    service = service_of(stream.request)
    repository = repository_of(stream.request.app)
    fields_param = stream.request.query.get("fields", "")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout if timeout > 0 else None
    seen: set[str] = set()
    if since is None:
        since = await blocking(service.store.current_version)
        for workflow in await blocking(service.store.list_workflows, namespace):
            if selector_matches(workflow, labels, fields):
                seen.add(workflow["metadata"]["uid"])
                if not await stream.send_message(watch_message("ADDED", workflow, repository, fields_param)):
                    return
    while (deadline is None or loop.time() < deadline) and await stream.keepalive():
        await asyncio.sleep(POLL_SECONDS)
        for kind, workflow in await blocking(service.store.workflow_changes, since, namespace):
            since = max(since, int(workflow["metadata"]["resourceVersion"]))
            if not selector_matches(workflow, labels, fields):
                continue
            uid = workflow["metadata"]["uid"]
            event = kind if kind == "DELETED" or uid in seen else "ADDED"
            seen.add(uid)
            if not await stream.send_message(watch_message(event, workflow, repository, fields_param)):
                return


def _pod_names(workflow: dict[str, Any]) -> dict[str, str]:
    name = workflow["metadata"]["name"]
    return {node_id: pod_name(name, node.get("name", node_id), node.get("templateName", ""))
            for node_id, node in workflow.get("status", {}).get("nodes", {}).items()}


async def stream_logs(request: web.Request, pod_filter: str) -> web.StreamResponse:
    """Node output as ``{"content": line, "podName": …}`` messages; ``follow`` waits for the run's end."""
    namespace, name = path_namespace(request), path_name(request, "Workflow")
    follow = query_bool(request.query, "logOptions.follow")
    workflow = await blocking(service_of(request).store.get_workflow, namespace, name)
    stream = await EventStream(request).open()
    return await _run(stream, _logs(stream, workflow, pod_filter, follow, request.query.get("grep", "")))


async def _logs(stream: EventStream, workflow: dict[str, Any], pod_filter: str, follow: bool, grep: str) -> None:
    service = service_of(stream.request)
    namespace, name, uid = (workflow["metadata"][k] for k in ("namespace", "name", "uid"))
    after = 0
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
                if grep in line and not await stream.send({"content": line, "podName": pod}):
                    return
        finished = workflow.get("status", {}).get("phase") in COMPLETED_PHASES
        if not follow or (finished and not chunks) or not await stream.keepalive():
            break
        await asyncio.sleep(POLL_SECONDS)
        workflow = await blocking(service.store.get_workflow, namespace, name)
    for node_id, rest in partial.items():
        pod = _pod_names(workflow).get(node_id, node_id)
        if grep in rest and not await stream.send({"content": rest, "podName": pod}):
            return


@routes.get("/api/v1/workflows/{namespace}/{name}/log")
async def workflow_logs(request: web.Request) -> web.StreamResponse:
    return await stream_logs(request, request.query.get("podName", ""))


@routes.get("/api/v1/workflows/{namespace}/{name}/{podName}/log")
async def pod_logs(request: web.Request) -> web.StreamResponse:
    return await stream_logs(request, request.match_info["podName"])
