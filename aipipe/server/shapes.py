"""JSON as Argo's server writes it: Go ``omitempty`` (no ``null``, no empty lists), ``spec.arguments``
always present on workflows, and ``status.artifactRepositoryRef`` naming the embedded artifact repository.

:func:`shaped` is the one function every workflow API answer goes through (the middleware for plain
JSON answers, :mod:`aipipe.server.streams` for watch events).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from aipipe.engine.context import default_artifact_root
from aipipe.server.queries import project

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
SHAPED_PREFIXES = ("/api/v1/workflows", "/api/v1/archived-workflows")


def omitempty(value: Any) -> Any:
    """``value`` without ``None`` and without empty lists inside objects (as Go's ``omitempty`` drops
    nil pointers and empty slices); empty objects stay (``suspend: {}``, ``archive: {none: {}}`` mean something)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if item is None or (isinstance(item, list) and not item):
                continue
            out[key] = omitempty(item)
        return out
    if isinstance(value, list):
        return [omitempty(item) for item in value if item is not None]
    return value


def artifact_repository_ref(artifact_root: Path) -> dict[str, Any]:
    """Argo's ``ArtifactRepositoryRefStatus`` for the default repository: the embedded engine keeps output
    artifacts as key-only ``s3`` records under ``artifact_root``, presented as one bucket of that endpoint."""
    return {"default": True,
            "artifactRepository": {"archiveLogs": False,
                                   "s3": {"endpoint": artifact_root.as_uri(), "bucket": "local"}}}


def shaped_workflow(workflow: dict[str, Any], repository: dict[str, Any] | None) -> dict[str, Any]:
    """One Workflow as Argo's server sends it (``repository`` None: a ``fields`` projection left the
    reference out). Argo projects the JSON, decodes it into its Go struct and encodes that again, so
    ``metadata``, ``spec`` and ``spec.arguments`` are there whatever the projection kept."""
    out = omitempty(workflow)
    out.setdefault("metadata", {})
    spec = out.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.setdefault("arguments", {})
    status = out.get("status")
    if repository and isinstance(status, dict) and status.get("phase") and "artifactRepositoryRef" not in status:
        status["artifactRepositoryRef"] = repository
    return out


def keeps(fields: str, dotted: str) -> bool:
    """Whether a ``fields`` projection keeps the value at ``dotted`` (no projection keeps everything)."""
    if not fields:
        return True
    probe: dict[str, Any] = {}
    node = probe
    *parents, leaf = dotted.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = True
    return bool(project(probe, fields) == probe)


def shaped(body: Any, repository: dict[str, Any], fields: str = "") -> Any:
    """A workflow API answer (already projected by ``fields``): a Workflow, a WorkflowList (``items`` stays
    a list), or anything else."""
    if not isinstance(body, dict):
        return body
    if "items" in body:
        items = body.get("items") or []
        out = omitempty({k: v for k, v in body.items() if k != "items"})
        ref = repository if keeps(fields, "items.status.artifactRepositoryRef") else None
        out["items"] = [shaped_workflow(w, ref) if isinstance(w, dict) else w for w in items]
        return out
    if isinstance(body.get("metadata"), dict) and isinstance(body.get("spec"), dict):
        return shaped_workflow(body, repository if keeps(fields, "status.artifactRepositoryRef") else None)
    return omitempty(body)


def watch_message(kind: str, workflow: dict[str, Any], repository: dict[str, Any], fields: str = "") -> dict[str, Any]:
    """One watch event, ``{"result": {"type": …, "object": …}}``, with ``fields`` (``result.…`` paths) applied."""
    message = project({"result": {"type": kind, "object": shaped_workflow(workflow, repository)}}, fields)
    result = message.setdefault("result", {})
    if isinstance(result.get("object"), dict):
        result["object"] = shaped_workflow(result["object"], None)
    return message


def repository_of(app: web.Application) -> dict[str, Any]:
    return artifact_repository_ref(artifacts_root(app))


def artifacts_root(app: web.Application) -> Path:
    """Where the embedded engine keeps output artifacts (its default repository)."""
    return default_artifact_root(app["service"].cfg)


@web.middleware
async def shapes_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Re-shape the JSON answers of the workflow API (streams shape their own events)."""
    response = await handler(request)
    if (not request.path.startswith(SHAPED_PREFIXES) or not isinstance(response, web.Response)
            or response.content_type != "application/json" or not isinstance(response.body, bytes)):
        return response
    body = json.loads(response.body)
    fields = request.query.get("fields", "")
    response.body = json.dumps(shaped(body, repository_of(request.app), fields)).encode()
    return response
