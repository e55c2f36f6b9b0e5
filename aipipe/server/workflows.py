"""Workflow routes: create, list, get, delete, lint, submit from a template."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from aiohttp import web

from aipipe.argo.labels import CLUSTER_TEMPLATE_LABEL, TEMPLATE_LABEL
from aipipe.engine.names import now_rfc3339
from aipipe.engine.service import EngineService
from aipipe.engine.store import CLUSTER_WORKFLOW_TEMPLATE, CRON_WORKFLOW, WORKFLOW_TEMPLATE
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, is_dry_run, read_body, runs_of, service_of
from aipipe.server.cron import CRON_LABEL, SCHEDULED_TIME_ANNOTATION
from aipipe.server.names import check_object_names, path_name, path_namespace
from aipipe.server.queries import ListQuery, project_list, project_workflow, selector_matches
from aipipe.validation import check_name, qualified

__all__ = ["routes", "selector_matches", "workflow_from_resource"]

routes = web.RouteTableDef()


def _list_meta(service: EngineService) -> dict[str, Any]:
    return {"resourceVersion": str(service.store.current_version())}


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


# Argo's accepted spellings of resourceKind: kind, singular, plural, short name (case-sensitive)
SUBMIT_KINDS = {name: kind for kind, names in (
    (WORKFLOW_TEMPLATE, ("WorkflowTemplate", "workflowtemplate", "workflowtemplates", "wftmpl")),
    (CLUSTER_WORKFLOW_TEMPLATE, ("ClusterWorkflowTemplate", "clusterworkflowtemplate", "clusterworkflowtemplates",
                                 "cwftmpl")),
    (CRON_WORKFLOW, ("CronWorkflow", "cronworkflow", "cronworkflows", "cronwf"))) for name in names}


def workflow_from_resource(service: EngineService, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
    """The Workflow that ``argo submit --from kind/name`` makes (submitOptions applied), labelled with the
    template (or cron workflow) it came from, as Argo labels it."""
    kind = SUBMIT_KINDS.get(body.get("resourceKind") or "")
    name = body.get("resourceName") or ""
    if kind is None:
        raise UserError(f"resource kind {str(body.get('resourceKind') or '')[:64]!r} is not supported for submitting;"
                        f" expected one of {', '.join(SUBMIT_KINDS)}", field="resourceKind")
    if not name:
        raise UserError("resourceName is required", field="resourceName")
    check_name(name, qualified(kind), field="resourceName")
    found = service.store.get_resource(kind, name, namespace)
    if found is None:
        raise NotFoundError(f'{kind.lower()}s.argoproj.io "{name}" not found')
    meta: dict[str, Any] = {"generateName": f"{name}-", "labels": {}, "annotations": {}}
    if kind == CRON_WORKFLOW:
        spec = copy.deepcopy((found.get("spec") or {}).get("workflowSpec") or {})
        wf_meta = (found.get("spec") or {}).get("workflowMetadata") or {}
        meta["labels"] = {CRON_LABEL: name, **(wf_meta.get("labels") or {})}
        meta["annotations"] = {SCHEDULED_TIME_ANNOTATION: now_rfc3339(), **(wf_meta.get("annotations") or {})}
        meta["ownerReferences"] = [{"apiVersion": "argoproj.io/v1alpha1", "kind": CRON_WORKFLOW, "name": name,
                                    "uid": found["metadata"].get("uid", ""), "controller": True,
                                    "blockOwnerDeletion": True}]
    else:
        cluster = kind == CLUSTER_WORKFLOW_TEMPLATE
        spec = {"workflowTemplateRef": {"name": name, "clusterScope": True} if cluster else {"name": name}}
        meta["labels"] = {CLUSTER_TEMPLATE_LABEL if cluster else TEMPLATE_LABEL: name}
    _apply_submit_options(meta, spec, body.get("submitOptions") or {})
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": meta, "spec": spec}


def _pairs(text: str, field: str) -> dict[str, str]:
    """``k1=v1,k2=v2`` (submitOptions.labels / annotations)."""
    out = {}
    for item in filter(None, (i.strip() for i in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"expected NAME1=VALUE1,NAME2=VALUE2, got {item[:64]!r}", field=field)
        out[key] = value
    return out


def _apply_submit_options(meta: dict[str, Any], spec: dict[str, Any], opts: dict[str, Any]) -> None:
    """Argo's ApplySubmitOpts: entrypoint, service account, labels, annotations, parameters, name."""
    if opts.get("entryPoint"):
        spec["entrypoint"] = opts["entryPoint"]
    if opts.get("serviceAccount"):
        spec["serviceAccountName"] = opts["serviceAccount"]
    if opts.get("podPriorityClassName"):
        spec["podPriorityClassName"] = opts["podPriorityClassName"]
    meta["labels"].update(_pairs(opts.get("labels") or "", "submitOptions.labels"))
    meta["annotations"].update(_pairs(opts.get("annotations") or "", "submitOptions.annotations"))
    params = []
    for item in opts.get("parameters") or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"expected name=value, got {item!r}", field="submitOptions.parameters")
        params.append({"name": key, "value": value})
    if params:
        given = {p["name"]: p for p in spec.get("arguments", {}).get("parameters", [])}
        given.update({p["name"]: p for p in params})
        spec["arguments"] = {**spec.get("arguments", {}), "parameters": list(given.values())}
    if opts.get("name"):
        meta["name"] = opts["name"]
        meta.pop("generateName")
    elif opts.get("generateName"):
        meta["generateName"] = opts["generateName"]
    if not meta["annotations"]:
        meta.pop("annotations")


def _list(service: EngineService, query: ListQuery, fields: str) -> dict[str, Any]:
    items, paging = query.page(service.store.list_workflows(query.namespace or None))
    return project_list({"metadata": {**_list_meta(service), **paging}, "items": items}, fields)


@routes.get("/api/v1/workflows/")
@routes.get("/api/v1/workflows/{namespace}")
async def list_workflows(request: web.Request) -> web.Response:
    """One namespace, or every namespace under ``/api/v1/workflows/`` (Argo's empty namespace)."""
    namespace = path_namespace(request) if "namespace" in request.match_info else ""
    query = ListQuery.parse(request.query, namespace)
    return web.json_response(await blocking(_list, service_of(request), query, request.query.get("fields", "")))


@routes.get("/api/v1/workflows/{namespace}/{name}")
async def get_workflow(request: web.Request) -> web.Response:
    workflow = await blocking(service_of(request).store.get_workflow, path_namespace(request),
                              path_name(request, "Workflow"))
    return web.json_response(project_workflow(workflow, request.query.get("fields", "")))


@routes.delete("/api/v1/workflows/{namespace}/{name}")
async def delete_workflow(request: web.Request) -> web.Response:
    await blocking(service_of(request).delete, path_name(request, "Workflow"), path_namespace(request))
    return web.json_response({})
