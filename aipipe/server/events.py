"""Argo's event endpoint and WorkflowEventBindings on ``aipipe server``.

``POST /api/v1/events/{namespace}/{discriminator}`` takes any JSON (token required, like every
route), answers ``{}`` at once and dispatches in the background: every WorkflowEventBinding of the
namespace whose ``spec.event.selector`` (expr-lang, the engine's evaluator) is true over ``payload``,
``metadata`` (the request's ``X-`` headers, lower-case, each a list) and ``discriminator`` submits its
``workflowTemplateRef`` with ``valueFrom.event`` parameters. A malformed body is a 400 and starts nothing.

Two payload kinds are recognised and checked: Label Studio webhooks (``action`` with ``annotation`` /
``annotations``) and S3 event notifications (``Records``, as MinIO and AWS send them). Their items (an
annotation id per project, an object's bucket/key/ETag) are remembered per binding, so a repeated
delivery starts nothing; the binding annotation :data:`THRESHOLD_ANNOTATION` (default 1) makes it fire
only once that many new items arrived (counted per Label Studio project, in the run store).
Bindings are listed at ``GET /api/v1/workflow-event-bindings/{namespace}`` as Argo serves them;
``POST`` there and ``DELETE …/{name}`` (aipipe's additions: Argo reads them from Kubernetes) store them.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from aipipe.argo.labels import CLUSTER_TEMPLATE_LABEL, TEMPLATE_LABEL
from aipipe.engine.expr import ExprError, evaluate, to_text
from aipipe.engine.service import EngineService
from aipipe.engine.store import WORKFLOW_EVENT_BINDING
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking
from aipipe.server.errors import error_response
from aipipe.server.limits import parse_json
from aipipe.server.names import check_object_names, path_name, path_namespace
from aipipe.server.runner import RunManager
from aipipe.server.trigger_store import TriggerStore
from aipipe.server.workflows import selector_matches

log = logging.getLogger(__name__)

THRESHOLD_ANNOTATION = "aipipe.io/min-new-items"
BINDING_LABEL = "workflows.argoproj.io/workflow-event-binding"
MAX_ITEMS = 10_000  # annotation ids / records one delivery may carry
UNAVAILABLE = 14  # gRPC code of a 503
MAX_PENDING = 64  # events being dispatched at once; more are refused with 503, as Argo's full queue

routes = web.RouteTableDef()


# -- payload kinds -------------------------------------------------------------------------------
def _int_id(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"expected an integer id, got {to_text(value)[:64]!r}", field=field)
    return value


def delivery_items(payload: Any) -> tuple[list[str], str]:
    """The items a delivery carries (keys remembered for duplicates) and the group its count goes to.

    ``([], "")`` for a payload of no known kind; UserError (400) for a known kind that is malformed."""
    if not isinstance(payload, dict):
        return [], ""
    if "Records" in payload:
        return _s3_items(payload["Records"]), ""
    if "action" in payload and ("annotation" in payload or "annotations" in payload):
        return _label_studio_items(payload)
    return [], ""


def _s3_items(records: Any) -> list[str]:
    if not isinstance(records, list) or not records or len(records) > MAX_ITEMS:
        raise UserError(f"expected a list of 1 to {MAX_ITEMS} event records", field="payload.Records")
    keys = []
    for i, record in enumerate(records):
        s3 = record.get("s3") if isinstance(record, dict) else None
        bucket = (s3 or {}).get("bucket") if isinstance(s3, dict) else None
        obj = (s3 or {}).get("object") if isinstance(s3, dict) else None
        if not isinstance(bucket, dict) or not isinstance(bucket.get("name"), str) or not bucket["name"]:
            raise UserError("is required", field=f"payload.Records[{i}].s3.bucket.name")
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str) or not obj["key"]:
            raise UserError("is required", field=f"payload.Records[{i}].s3.object.key")
        etag = obj.get("eTag") or obj.get("etag") or obj.get("sequencer") or ""
        keys.append(f"s3:{bucket['name']}/{obj['key']}@{str(etag).strip(chr(34))}")
    return keys


def _label_studio_items(payload: dict[str, Any]) -> tuple[list[str], str]:
    if not isinstance(payload["action"], str):
        raise UserError("expected a string", field="payload.action")
    project = payload.get("project")
    if not isinstance(project, dict):
        raise UserError("is required (an object with the project's id)", field="payload.project")
    group = f"project:{_int_id(project.get('id'), 'payload.project.id')}"
    if "annotation" in payload:
        annotation = payload["annotation"]
        if not isinstance(annotation, dict):
            raise UserError("expected an object", field="payload.annotation")
        return [f"annotation:{_int_id(annotation.get('id'), 'payload.annotation.id')}"], group
    annotations = payload["annotations"]
    if not isinstance(annotations, list) or not annotations or len(annotations) > MAX_ITEMS:
        raise UserError(f"expected a list of 1 to {MAX_ITEMS} annotations", field="payload.annotations")
    ids = []
    for i, item in enumerate(annotations):
        if not isinstance(item, dict):
            raise UserError("expected an object", field=f"payload.annotations[{i}]")
        ids.append(f"annotation:{_int_id(item.get('id'), f'payload.annotations[{i}].id')}")
    return ids, group


def event_metadata(headers: Mapping[str, str]) -> dict[str, list[str]]:
    """Argo's ``metadata``: the request's ``X-`` headers, lower-case names, each a list of values."""
    out: dict[str, list[str]] = {}
    for name, value in headers.items():
        if name.lower().startswith("x-"):
            out.setdefault(name.lower(), []).append(value)
    return out


# -- dispatch ---------------------------------------------------------------------------------------
class EventDispatcher:
    """Matches events to the stored bindings and starts their runs (off the event loop)."""

    def __init__(self, service: EngineService, runs: RunManager, triggers: TriggerStore | None = None) -> None:
        self.service = service
        self.runs = runs
        self.triggers = triggers or TriggerStore.from_home(service.cfg.home)

    def dispatch(self, namespace: str, discriminator: str, payload: Any, metadata: dict[str, list[str]]
                 ) -> list[str]:
        """Submit a run for every matching binding; returns the names of the runs started."""
        env = {"payload": payload, "metadata": metadata, "discriminator": discriminator}
        keys, group = delivery_items(payload)
        started = []
        for binding in self.service.store.list_resources(WORKFLOW_EVENT_BINDING, namespace):
            name = binding["metadata"]["name"]
            try:
                if evaluate(str(binding["spec"]["event"]["selector"]), env) is not True:
                    continue
                if not self._admitted(namespace, binding, keys, group):
                    continue
                created = self._submit(binding, namespace, env)
            except (ExprError, UserError, NotFoundError) as exc:
                log.warning("workfloweventbinding %s/%s: %s", namespace, name, exc)
                continue
            if created is not None:
                started.append(created)
        return started

    def _admitted(self, namespace: str, binding: dict[str, Any], keys: list[str], group: str) -> bool:
        name = binding["metadata"]["name"]
        raw = (binding["metadata"].get("annotations") or {}).get(THRESHOLD_ANNOTATION, "1")
        try:
            threshold = max(1, int(raw))
        except ValueError as exc:
            raise UserError(f"expected an integer, got {raw!r}", field=f"metadata.annotations.{THRESHOLD_ANNOTATION}"
                            ) from exc
        admission = self.triggers.admit(namespace, name, keys, group, threshold, time.time())
        if admission.new_keys == 0:
            log.info("workfloweventbinding %s/%s: repeated delivery, nothing new", namespace, name)
        elif not admission.fire:
            log.info("workfloweventbinding %s/%s: %d of %d new items%s", namespace, name, admission.count,
                     threshold, f" ({group})" if group else "")
        return admission.fire

    def _submit(self, binding: dict[str, Any], namespace: str, env: dict[str, Any]) -> str | None:
        submit = binding["spec"].get("submit")
        if not submit:
            return None
        ref = submit.get("workflowTemplateRef") or {}
        template = str(ref.get("name") or "")
        if not template:
            raise UserError("is required", field="spec.submit.workflowTemplateRef.name")
        parameters = []
        for param in (submit.get("arguments") or {}).get("parameters") or []:
            value = param.get("value")
            source = (param.get("valueFrom") or {}).get("event")
            if source:
                try:
                    value = to_text(evaluate(str(source), env))
                except ExprError:
                    if "default" not in (param.get("valueFrom") or {}):
                        raise
                    value = param["valueFrom"]["default"]
            parameters.append({"name": param["name"], "value": "" if value is None else str(value)})
        meta = submit.get("metadata") or {}
        cluster = bool(ref.get("clusterScope"))
        labels = {**(meta.get("labels") or {}), BINDING_LABEL: binding["metadata"]["name"],
                  CLUSTER_TEMPLATE_LABEL if cluster else TEMPLATE_LABEL: template}
        workflow = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                    "metadata": {"generateName": f"{template}-", "labels": labels,
                                 "annotations": dict(meta.get("annotations") or {})},
                    "spec": {"workflowTemplateRef": {"name": template, **({"clusterScope": True} if cluster else {})},
                             **({"arguments": {"parameters": parameters}} if parameters else {})}}
        driver_id = uuid.uuid4().hex
        created = self.service.submit(workflow, namespace, driver_id=driver_id)
        log.info("workfloweventbinding %s/%s: started %s", namespace, binding["metadata"]["name"],
                 created["metadata"]["name"])
        self.runs.start(created, driver_id)
        return str(created["metadata"]["name"])


def _dispatcher(request: web.Request) -> EventDispatcher:
    return request.app["events"]


async def _receive(request: web.Request, discriminator: str) -> web.Response:
    namespace = path_namespace(request)
    raw = await request.read()
    if not raw.strip():
        raise UserError("an event body (JSON) is required", field="body")
    payload = await blocking(parse_json, raw, "body")
    delivery_items(payload)  # a malformed Label Studio / S3 payload is refused before anything starts
    metadata = event_metadata(request.headers)
    tasks: set[asyncio.Task[Any]] = request.app["event_tasks"]
    if len(tasks) >= MAX_PENDING:
        return error_response(503, UNAVAILABLE, f"event queue is full ({MAX_PENDING} events being processed); "
                                                "retry later")
    task = asyncio.create_task(blocking(_dispatcher(request).dispatch, namespace, discriminator, payload, metadata))
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    return web.json_response({})


@routes.post("/api/v1/events/{namespace}/")
async def receive_event(request: web.Request) -> web.Response:
    return await _receive(request, "")


@routes.post("/api/v1/events/{namespace}/{discriminator}")
async def receive_event_discriminated(request: web.Request) -> web.Response:
    discriminator = request.match_info["discriminator"]
    if len(discriminator) > 253:
        raise UserError("at most 253 characters", field="discriminator")
    return await _receive(request, discriminator)


# -- bindings -------------------------------------------------------------------------------------
@routes.get("/api/v1/workflow-event-bindings/{namespace}")
async def list_bindings(request: web.Request) -> web.Response:
    service: EngineService = request.app["service"]
    items = await blocking(service.store.list_resources, WORKFLOW_EVENT_BINDING, path_namespace(request))
    labels = request.query.get("listOptions.labelSelector", "")
    fields = request.query.get("listOptions.fieldSelector", "")
    selector_matches({}, labels, fields)
    items = [i for i in items if selector_matches(i, labels, fields)]
    return web.json_response({"metadata": {"resourceVersion": str(service.store.current_version())},
                              "items": items})


def check_binding(obj: dict[str, Any]) -> None:
    """A binding the dispatcher can use: a selector that parses, a submit naming a template."""
    from aipipe.engine.expr import Parser

    spec = obj.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("event"), dict):
        raise UserError("is required", field="spec.event")
    selector = spec["event"].get("selector")
    if not isinstance(selector, str) or not selector.strip():
        raise UserError("is required", field="spec.event.selector")
    try:
        Parser(selector).parse()
    except ExprError as exc:
        raise UserError(str(exc), field="spec.event.selector") from exc
    submit = spec.get("submit")
    if submit is not None and not (isinstance(submit, dict) and isinstance(submit.get("workflowTemplateRef"), dict)
                                   and submit["workflowTemplateRef"].get("name")):
        raise UserError("is required", field="spec.submit.workflowTemplateRef.name")


@routes.post("/api/v1/workflow-event-bindings/{namespace}")
async def put_binding(request: web.Request) -> web.Response:
    """Create or replace a binding (body: ``{"workflowEventBinding": {...}}`` or the object itself)."""
    namespace = path_namespace(request)
    body = await blocking(parse_json, await request.read(), "workflowEventBinding")
    obj = body.get("workflowEventBinding", body) if isinstance(body, dict) else body
    if not isinstance(obj, dict):
        raise UserError("must be an object", field="workflowEventBinding")
    check_object_names(obj, WORKFLOW_EVENT_BINDING, namespace)
    check_binding(obj)
    service: EngineService = request.app["service"]
    return web.json_response(await blocking(service.store.put_resource, WORKFLOW_EVENT_BINDING, obj, namespace))


@routes.delete("/api/v1/workflow-event-bindings/{namespace}/{name}")
async def delete_binding(request: web.Request) -> web.Response:
    service: EngineService = request.app["service"]
    await blocking(service.store.delete_resource, WORKFLOW_EVENT_BINDING,
                   path_name(request, WORKFLOW_EVENT_BINDING), path_namespace(request))
    return web.json_response({})
