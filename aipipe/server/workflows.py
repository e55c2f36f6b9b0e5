"""Workflow routes: create/list/get/delete/lint/submit, watch, logs, stop/terminate/retry/resubmit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from aiohttp import web

from aipipe.engine.names import pod_name
from aipipe.engine.service import TERMINATED_MESSAGE, EngineService
from aipipe.engine.store import COMPLETED_PHASES, CRON_WORKFLOW
from aipipe.errors import NotFoundError, UserError
from aipipe.server.limits import parse_json, query_bool, query_int
from aipipe.server.names import check_object_names, path_name, path_namespace
from aipipe.server.runner import RunManager
from aipipe.server.schema import validate_body
from aipipe.validation import check_name, qualified

POLL_SECONDS = 0.25
T = TypeVar("T")

routes = web.RouteTableDef()


def _service(request: web.Request) -> EngineService:
    return request.app["service"]


def _runs(request: web.Request) -> RunManager:
    return request.app["runs"]


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a store/engine call off the event loop (sqlite may wait for a lock)."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def read_body(request: web.Request, type_name: str) -> dict[str, Any]:
    """The JSON body, validated against the swagger definition ``type_name`` (400 when malformed).

    The size is bounded by the app's ``client_max_size`` (413), nesting and UTF-8 by :func:`parse_json`."""
    raw = await request.read()
    body = await blocking(parse_json, raw, type_name) if raw.strip() else {}
    if not isinstance(body, dict):
        raise UserError("request body must be a JSON object", field=type_name)
    validate_body(type_name, body)
    return body


def is_dry_run(body: dict[str, Any]) -> bool:
    return bool(body.get("serverDryRun")) or "All" in (body.get("createOptions") or {}).get("dryRun", [])


def _list_meta(service: EngineService) -> dict[str, Any]:
    return {"resourceVersion": str(service.store.current_version())}


# -- selectors ---------------------------------------------------------------------------------
def _get_path(obj: dict[str, Any], dotted: str) -> str:
    value: Any = obj
    for part in dotted.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def selector_matches(obj: dict[str, Any], label_selector: str, field_selector: str) -> bool:
    """Kubernetes equality selectors: ``k=v``, ``k==v``, ``k!=v``, and label existence ``k`` / ``!k``."""
    labels = obj.get("metadata", {}).get("labels", {})
    for term in filter(None, (t.strip() for t in label_selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            if labels.get(key.strip()) != value.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    for term in filter(None, (t.strip() for t in field_selector.split(","))):
        if "=" not in term:
            raise UserError(f"expected key=value or key!=value, got {term[:64]!r}", field="listOptions.fieldSelector")
        negate = "!=" in term
        key, value = term.replace("==", "=").split("!=" if negate else "=", 1)
        if (_get_path(obj, key.strip()) == value.strip()) == negate:
            return False
    return True


def _filtered(items: list[dict[str, Any]], query: Any) -> list[dict[str, Any]]:
    labels = query.get("listOptions.labelSelector", "")
    fields = query.get("listOptions.fieldSelector", "")
    selector_matches({}, labels, fields)  # a malformed selector is a 400 even when nothing matches
    return [w for w in items if selector_matches(w, labels, fields)]


# -- create / list / get / delete ------------------------------------------------------------
@routes.post("/api/v1/workflows/{namespace}")
async def create_workflow(request: web.Request) -> web.Response:
    namespace = path_namespace(request)
    body = await read_body(request, "WorkflowCreateRequest")
    if not isinstance(body.get("workflow"), dict):
        raise UserError("workflow is required", field="workflow")
    check_object_names(body["workflow"], "Workflow", namespace)
    driver_id = uuid.uuid4().hex
    created = await blocking(_service(request).submit, body["workflow"], namespace, dry_run=is_dry_run(body),
                             driver_id=driver_id)
    if not is_dry_run(body):
        _runs(request).start(created, driver_id)
    return web.json_response(created)


@routes.post("/api/v1/workflows/{namespace}/lint")
async def lint_workflow(request: web.Request) -> web.Response:
    namespace = path_namespace(request)
    body = await read_body(request, "WorkflowLintRequest")
    workflow = body.get("workflow") or {}
    check_object_names(workflow, "Workflow", namespace)
    await blocking(_service(request).validate, workflow, namespace)
    return web.json_response(workflow)


@routes.post("/api/v1/workflows/{namespace}/submit")
async def submit_from(request: web.Request) -> web.Response:
    """Create a Workflow from a WorkflowTemplate, ClusterWorkflowTemplate or CronWorkflow."""
    namespace = path_namespace(request)
    body = await read_body(request, "WorkflowSubmitRequest")
    workflow = await blocking(workflow_from_resource, _service(request), namespace, body)
    check_object_names(workflow, "Workflow", namespace)
    driver_id = uuid.uuid4().hex
    dry = bool((body.get("submitOptions") or {}).get("serverDryRun") or
               (body.get("submitOptions") or {}).get("dryRun"))
    created = await blocking(_service(request).submit, workflow, namespace, dry_run=dry, driver_id=driver_id)
    if not dry:
        _runs(request).start(created, driver_id)
    return web.json_response(created)


def workflow_from_resource(service: EngineService, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
    """The Workflow that ``argo submit --from kind/name`` makes (submitOptions applied)."""
    kind = (body.get("resourceKind") or "").lower()
    name = body.get("resourceName") or ""
    opts = body.get("submitOptions") or {}
    if not name:
        raise UserError("resourceName is required", field="resourceName")
    kinds = {"workflowtemplate": "WorkflowTemplate", "clusterworkflowtemplate": "ClusterWorkflowTemplate",
             "cronworkflow": CRON_WORKFLOW}
    if kind in kinds:
        check_name(name, qualified(kinds[kind]), field="resourceName")
    if kind in ("workflowtemplate", "clusterworkflowtemplate"):
        cluster = kind == "clusterworkflowtemplate"
        spec: dict[str, Any] = {"workflowTemplateRef": {"name": name, "clusterScope": True} if cluster
                                else {"name": name}}
        found = service.store.get_resource("ClusterWorkflowTemplate" if cluster else "WorkflowTemplate", name,
                                           namespace)
    elif kind == "cronworkflow":
        found = service.store.get_resource(CRON_WORKFLOW, name, namespace)
        spec = dict((found or {}).get("spec", {}).get("workflowSpec", {}))
    else:
        raise UserError("must be WorkflowTemplate, ClusterWorkflowTemplate or CronWorkflow", field="resourceKind")
    if found is None:
        raise NotFoundError(f'{kind} "{name}" not found')
    if opts.get("entryPoint"):
        spec["entrypoint"] = opts["entryPoint"]
    if opts.get("serviceAccount"):
        spec["serviceAccountName"] = opts["serviceAccount"]
    params = []
    for item in opts.get("parameters") or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"expected name=value, got {item!r}", field="submitOptions.parameters")
        params.append({"name": key, "value": value})
    if params:
        spec["arguments"] = {"parameters": params}
    labels = dict(item.split("=", 1) for item in (opts.get("labels") or "").split(",") if "=" in item)
    meta: dict[str, Any] = {"labels": labels} if labels else {}
    meta.update({"name": opts["name"]} if opts.get("name") else {"generateName": opts.get("generateName") or
                                                                  f"{name}-"})
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": meta, "spec": spec}


@routes.get("/api/v1/workflows/{namespace}")
async def list_workflows(request: web.Request) -> web.Response:
    service = _service(request)
    namespace = path_namespace(request)
    limit = query_int(request.query, "listOptions.limit")
    items = _filtered(await blocking(service.store.list_workflows, namespace), request.query)
    if limit > 0:
        items = items[:limit]
    return web.json_response({"metadata": _list_meta(service), "items": items})


@routes.get("/api/v1/workflows/{namespace}/{name}")
async def get_workflow(request: web.Request) -> web.Response:
    return web.json_response(await blocking(_service(request).store.get_workflow, path_namespace(request),
                                            path_name(request, "Workflow")))


@routes.delete("/api/v1/workflows/{namespace}/{name}")
async def delete_workflow(request: web.Request) -> web.Response:
    await blocking(_service(request).delete, path_name(request, "Workflow"), path_namespace(request))
    return web.json_response({})


# -- actions ---------------------------------------------------------------------------------
@routes.put("/api/v1/workflows/{namespace}/{name}/stop")
async def stop_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowStopRequest")
    return web.json_response(await blocking(_service(request).stop, name, namespace,
                                            body.get("message") or TERMINATED_MESSAGE))


@routes.put("/api/v1/workflows/{namespace}/{name}/terminate")
async def terminate_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    await read_body(request, "WorkflowTerminateRequest")
    return web.json_response(await blocking(_service(request).stop, name, namespace))


@routes.put("/api/v1/workflows/{namespace}/{name}/retry")
async def retry_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowRetryRequest")
    workflow = await blocking(_service(request).prepare_retry, name, namespace,
                              restart_successful=bool(body.get("restartSuccessful")),
                              node_field_selector=body.get("nodeFieldSelector") or "",
                              parameters=body.get("parameters") or [])
    _runs(request).start(workflow)
    return web.json_response(workflow)


@routes.put("/api/v1/workflows/{namespace}/{name}/resubmit")
async def resubmit_workflow(request: web.Request) -> web.Response:
    name, namespace = path_name(request, "Workflow"), path_namespace(request)
    body = await read_body(request, "WorkflowResubmitRequest")
    driver_id = uuid.uuid4().hex
    workflow = await blocking(_service(request).prepare_resubmit, name, namespace,
                              parameters=body.get("parameters") or [], driver_id=driver_id)
    _runs(request).start(workflow, driver_id)
    return web.json_response(workflow)


# -- streams -----------------------------------------------------------------------------------
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
    service = _service(request)
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
    service = _service(request)
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
