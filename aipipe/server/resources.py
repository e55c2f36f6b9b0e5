"""CRUD routes for WorkflowTemplates, ClusterWorkflowTemplates and CronWorkflows (stored, not scheduled)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from aipipe.engine.service import EngineService
from aipipe.engine.store import CLUSTER_WORKFLOW_TEMPLATE, CRON_WORKFLOW, WORKFLOW_TEMPLATE
from aipipe.errors import ConflictError, NotFoundError, UserError
from aipipe.server.common import blocking, is_dry_run, read_body, service_of
from aipipe.server.names import check_object_names, path_name, path_namespace
from aipipe.server.queries import LABELS, labels_match, page_by_name, parse_label_selector

Handler = Callable[[web.Request], Awaitable[web.Response]]


@dataclass(frozen=True)
class ResourceKind:
    """How one kind appears in the API: its path, request types and the body key holding the object."""

    kind: str
    base: str  # path of the collection
    body_key: str  # "template" or "cronWorkflow"
    create_type: str
    update_type: str
    lint_type: str


KINDS = (
    ResourceKind(WORKFLOW_TEMPLATE, "/api/v1/workflow-templates/{namespace}", "template",
                 "WorkflowTemplateCreateRequest", "WorkflowTemplateUpdateRequest", "WorkflowTemplateLintRequest"),
    ResourceKind(CLUSTER_WORKFLOW_TEMPLATE, "/api/v1/cluster-workflow-templates", "template",
                 "ClusterWorkflowTemplateCreateRequest", "ClusterWorkflowTemplateUpdateRequest",
                 "ClusterWorkflowTemplateLintRequest"),
    ResourceKind(CRON_WORKFLOW, "/api/v1/cron-workflows/{namespace}", "cronWorkflow",
                 "CreateCronWorkflowRequest", "UpdateCronWorkflowRequest", "LintCronWorkflowRequest"),
)


def lint_resource(service: EngineService, kind: str, obj: dict[str, Any], namespace: str) -> None:
    """Check what the engine would run: a template with an entrypoint, a cron's schedules and workflowSpec."""
    spec = obj.get("spec") or {}
    if kind == CRON_WORKFLOW:
        from croniter import croniter

        schedules = list(spec.get("schedules") or []) + ([spec["schedule"]] if spec.get("schedule") else [])
        if not schedules:
            raise UserError("at least one schedule is required", field="spec.schedules")
        for schedule in schedules:
            if not croniter.is_valid(schedule):
                raise UserError(f"invalid cron schedule {schedule!r}", field="spec.schedules")
        spec = spec.get("workflowSpec") or {}
    if spec.get("entrypoint") or spec.get("workflowTemplateRef"):
        service.validate({"kind": "Workflow", "metadata": {"name": obj.get("metadata", {}).get("name", "lint")},
                          "spec": spec}, namespace, as_template=kind != CRON_WORKFLOW)


def _object(body: dict[str, Any], rk: ResourceKind) -> dict[str, Any]:
    obj = body.get(rk.body_key)
    if not isinstance(obj, dict):
        raise UserError("is required", field=rk.body_key)
    return obj


def add_resource_routes(app: web.Application) -> None:
    """Register list/create/lint/get/update/delete for every kind (and cron suspend/resume)."""
    for rk in KINDS:
        item = rk.base + "/{name}"
        app.router.add_get(rk.base, _list(rk))
        if "{namespace}" in rk.base:  # every namespace, as Argo's empty namespace
            app.router.add_get(rk.base.replace("{namespace}", ""), _list(rk))
        app.router.add_post(rk.base, _create(rk))
        app.router.add_post(rk.base + "/lint", _lint(rk))
        app.router.add_get(item, _get(rk))
        app.router.add_put(item, _update(rk))
        app.router.add_delete(item, _delete(rk))
    cron = KINDS[2]
    app.router.add_put(cron.base + "/{name}/suspend", _set_suspend(cron, True))
    app.router.add_put(cron.base + "/{name}/resume", _set_suspend(cron, False))


def _namespace(request: web.Request) -> str:
    """The route's namespace, checked; "" for cluster-scoped kinds."""
    return path_namespace(request) if "namespace" in request.match_info else ""


def _list(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        service = service_of(request)
        requirements = parse_label_selector(request.query.get(LABELS, ""))  # 400 when malformed, items or not
        items = await blocking(service.store.list_resources, rk.kind, _namespace(request) or None)
        pattern = request.query.get("namePattern", "")
        items, paging = page_by_name([i for i in items if labels_match(i, requirements)
                                      and pattern in i["metadata"]["name"]], request.query)
        return web.json_response({"metadata": {"resourceVersion": str(service.store.current_version()), **paging},
                                  "items": items})

    return handler


def _create(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        namespace = _namespace(request)
        body = await read_body(request, rk.create_type)
        obj = _object(body, rk)
        check_object_names(obj, rk.kind, namespace or None)
        service = service_of(request)
        await blocking(lint_resource, service, rk.kind, obj, namespace)
        if is_dry_run(body):  # like the Kubernetes API server: everything but the write, conflicts included
            name = (obj.get("metadata") or {}).get("name")
            if name and await blocking(service.store.get_resource, rk.kind, name, namespace) is not None:
                raise ConflictError(f'{rk.kind.lower()}s.argoproj.io "{name}" already exists')
            return web.json_response(obj)
        return web.json_response(await blocking(service.store.put_resource, rk.kind, obj, namespace,
                                                create_only=True))

    return handler


def _lint(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        namespace = _namespace(request)
        obj = _object(await read_body(request, rk.lint_type), rk)
        check_object_names(obj, rk.kind, namespace or None)
        await blocking(lint_resource, service_of(request), rk.kind, obj, namespace)
        return web.json_response(obj)

    return handler


def _get(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        name, namespace = path_name(request, rk.kind), _namespace(request)
        obj = await blocking(service_of(request).store.get_resource, rk.kind, name, namespace)
        if obj is None:
            raise NotFoundError(f'{rk.kind.lower()}s.argoproj.io "{name}" not found')
        return web.json_response(obj)

    return handler


def _update(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        name, namespace = path_name(request, rk.kind), _namespace(request)
        obj = _object(await read_body(request, rk.update_type), rk)
        if not isinstance(obj.get("metadata", {}), dict):
            raise UserError("must be an object", field="metadata")
        if obj.setdefault("metadata", {}).setdefault("name", name) != name:
            raise UserError(f"does not match the name in the path ({name!r})", field="metadata.name")
        check_object_names(obj, rk.kind, namespace or None)
        service = service_of(request)
        await blocking(lint_resource, service, rk.kind, obj, namespace)
        return web.json_response(await blocking(service.store.put_resource, rk.kind, obj, namespace,
                                                must_exist=True))

    return handler


def _delete(rk: ResourceKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        await blocking(service_of(request).store.delete_resource, rk.kind, path_name(request, rk.kind),
                       _namespace(request))
        return web.json_response({})

    return handler


def _set_suspend(rk: ResourceKind, suspend: bool) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        service = service_of(request)
        name, namespace = path_name(request, rk.kind), path_namespace(request)
        obj = await blocking(service.store.get_resource, rk.kind, name, namespace)
        if obj is None:
            raise NotFoundError(f'cronworkflows.argoproj.io "{name}" not found')
        obj.setdefault("spec", {})["suspend"] = suspend
        return web.json_response(await blocking(service.store.put_resource, rk.kind, obj, namespace,
                                                must_exist=True))

    return handler
