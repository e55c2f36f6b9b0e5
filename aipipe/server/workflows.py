"""Workflow routes: create, list, get, delete, lint, submit from a template."""

from __future__ import annotations

import uuid
from typing import Any

from aiohttp import web

from aipipe.engine.service import EngineService
from aipipe.engine.store import CRON_WORKFLOW
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, is_dry_run, read_body, runs_of, service_of
from aipipe.server.limits import query_int
from aipipe.server.names import check_object_names, path_name, path_namespace
from aipipe.validation import check_name, qualified

routes = web.RouteTableDef()


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
    created = await blocking(service_of(request).submit, body["workflow"], namespace, dry_run=is_dry_run(body),
                             driver_id=driver_id)
    if not is_dry_run(body):
        runs_of(request).start(created, driver_id)
    return web.json_response(created)


@routes.post("/api/v1/workflows/{namespace}/lint")
async def lint_workflow(request: web.Request) -> web.Response:
    namespace = path_namespace(request)
    body = await read_body(request, "WorkflowLintRequest")
    workflow = body.get("workflow") or {}
    check_object_names(workflow, "Workflow", namespace)
    await blocking(service_of(request).validate, workflow, namespace)
    return web.json_response(workflow)


@routes.post("/api/v1/workflows/{namespace}/submit")
async def submit_from(request: web.Request) -> web.Response:
    """Create a Workflow from a WorkflowTemplate, ClusterWorkflowTemplate or CronWorkflow."""
    namespace = path_namespace(request)
    body = await read_body(request, "WorkflowSubmitRequest")
    workflow = await blocking(workflow_from_resource, service_of(request), namespace, body)
    check_object_names(workflow, "Workflow", namespace)
    driver_id = uuid.uuid4().hex
    dry = bool((body.get("submitOptions") or {}).get("serverDryRun") or
               (body.get("submitOptions") or {}).get("dryRun"))
    created = await blocking(service_of(request).submit, workflow, namespace, dry_run=dry, driver_id=driver_id)
    if not dry:
        runs_of(request).start(created, driver_id)
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
    service = service_of(request)
    namespace = path_namespace(request)
    limit = query_int(request.query, "listOptions.limit")
    items = _filtered(await blocking(service.store.list_workflows, namespace), request.query)
    if limit > 0:
        items = items[:limit]
    return web.json_response({"metadata": _list_meta(service), "items": items})


@routes.get("/api/v1/workflows/{namespace}/{name}")
async def get_workflow(request: web.Request) -> web.Response:
    return web.json_response(await blocking(service_of(request).store.get_workflow, path_namespace(request),
                                            path_name(request, "Workflow")))


@routes.delete("/api/v1/workflows/{namespace}/{name}")
async def delete_workflow(request: web.Request) -> web.Response:
    await blocking(service_of(request).delete, path_name(request, "Workflow"), path_namespace(request))
    return web.json_response({})
