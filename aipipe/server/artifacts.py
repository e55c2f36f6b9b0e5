"""Artifact downloads, on the routes of Argo's artifact server, from the embedded engine's repository.

- ``/artifact-files/{ns}/{workflows|archived-workflows}/{name|uid}/{nodeId}/{inputs|outputs}/{artifact}[/{file}]``
  (what the Argo UI links to; a folder stored with ``archive: none`` answers a listing at ``…/{artifact}/``)
- ``/artifacts/{ns}/{name}/{nodeId}/{artifact}`` and ``/input-artifacts/…`` (by workflow name)
- ``/artifacts-by-uid/{uid}/{nodeId}/{artifact}`` and ``/input-artifacts-by-uid/…``

The node's artifact record gives the key (``s3.key``, relative to the repository); every path is built
with :func:`aipipe.engine.io.key_uri`, which keeps it inside the repository. The security middleware
requires the token (header or cookie) on these routes as on the API.
"""

from __future__ import annotations

import html
import mimetypes
import posixpath
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from aipipe.engine.io import ArtifactError, artifact_key, key_uri
from aipipe.errors import NotFoundError, UserError
from aipipe.server.common import blocking, service_of
from aipipe.server.names import path_namespace
from aipipe.server.shapes import artifacts_root
from aipipe.storage import Storage
from aipipe.validation import check_name

UID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
UNSAFE_IN_FILENAME = re.compile(r'[^A-Za-z0-9._+-]')
DIRECTIONS = {"outputs": False, "inputs": True}
SECURITY_HEADERS = {"Content-Security-Policy": "sandbox; base-uri 'none'; default-src 'none'; img-src 'self'; "
                                               "style-src 'self' 'unsafe-inline'",
                    "X-Frame-Options": "SAMEORIGIN", "X-Content-Type-Options": "nosniff"}

routes = web.RouteTableDef()


async def _by_name(request: web.Request, name: str) -> dict[str, Any]:
    namespace = path_namespace(request)
    check_name(name, "workflows.argoproj.io", field="name")
    return await blocking(service_of(request).store.get_workflow, namespace, name)


async def _by_uid(request: web.Request, uid: str, namespace: str | None = None) -> dict[str, Any]:
    if not UID_RE.fullmatch(uid):
        raise UserError(f"expected a workflow uid (8-4-4-4-12 hex digits), got {uid[:64]!r}", field="uid")
    workflow = await blocking(service_of(request).store.workflow_by_uid, uid)
    if workflow is None or (namespace is not None and workflow["metadata"]["namespace"] != namespace):
        raise NotFoundError(f'no workflow with uid "{uid}"' + (f' in namespace "{namespace}"' if namespace else ""))
    return workflow


def find_artifact(workflow: dict[str, Any], node_id: str, name: str, is_input: bool) -> dict[str, Any]:
    """The artifact record ``name`` of node ``node_id`` (404 naming what is missing)."""
    run = workflow["metadata"]["name"]
    node = (workflow.get("status") or {}).get("nodes", {}).get(node_id)
    if node is None:
        raise NotFoundError(f'workflow "{run}" has no node "{node_id}"')
    side = "inputs" if is_input else "outputs"
    for artifact in (node.get(side) or {}).get("artifacts") or []:
        if artifact.get("name") == name:
            return artifact
    raise NotFoundError(f'node "{node_id}" of workflow "{run}" has no {side[:-1]} artifact "{name}"')


async def _serve(request: web.Request, workflow: dict[str, Any], node_id: str, name: str, is_input: bool,
                 file_path: str = "", listing: bool = False) -> web.StreamResponse:
    artifact = find_artifact(workflow, node_id, name, is_input)
    raw = artifact.get("raw")
    if isinstance(raw, dict) and not file_path:
        return web.Response(body=str(raw.get("data", "")).encode(), content_type="text/plain",
                            headers={"Content-Disposition": _disposition(name), **SECURITY_HEADERS})
    key = artifact_key(artifact)
    if key is None:
        raise NotFoundError(f'artifact "{name}" of node "{node_id}" is not stored in the artifact repository')
    try:
        uri = key_uri(artifacts_root(request.app).as_uri(), key, file_path, field="artifact file")
    except ArtifactError as exc:
        raise UserError(str(exc), field="artifact file") from exc
    storage = Storage.from_config(service_of(request).cfg)
    local = storage.local_path(uri)
    if local is not None and local.is_file() and not listing:
        return web.FileResponse(local, headers=_file_headers(uri))
    files = await blocking(storage.list, uri.rstrip("/") + "/")
    if not files:
        raise NotFoundError(f'artifact "{name}" of node "{node_id}": nothing stored at key "{key}"'
                            + (f' for "{file_path}"' if file_path else ""))
    if not listing:
        raise web.HTTPTemporaryRedirect(request.path + "/")
    return web.Response(text=_listing(files, uri), content_type="text/html", headers=SECURITY_HEADERS)


def _file_headers(uri: str) -> dict[str, str]:
    base = posixpath.basename(uri)
    kind, encoding = mimetypes.guess_type(base)
    kind = "application/gzip" if encoding == "gzip" else kind or "application/octet-stream"
    return {"Content-Disposition": _disposition(base), "Content-Type": kind, **SECURITY_HEADERS}


def _disposition(filename: str) -> str:
    """``filename="…"`` with only characters safe in a quoted header value."""
    return 'filename="{}"'.format(UNSAFE_IN_FILENAME.sub("_", filename))


def _listing(files: list[str], uri: str) -> str:
    """An HTML list of a folder's entries (files and first-level folders), names escaped."""
    prefix = uri.rstrip("/") + "/"
    entries = sorted({f[len(prefix):].split("/", 1)[0] + ("/" if "/" in f[len(prefix):] else "")
                      for f in files if f.startswith(prefix)})
    items = "".join(f'<li><a href="./{html.escape(e, quote=True)}">{html.escape(e)}</a></li>\n' for e in entries)
    return f'<html><body><ul>\n<li><a href="..">..</a></li>\n{items}</ul></body></html>'


@routes.get(r"/artifact-files/{namespace}/{discriminator}/{id}/{nodeId}/{direction}/{artifactName}{rest:(/.*)?}")
async def artifact_file(request: web.Request) -> web.StreamResponse:
    """What the Argo UI links to; ``id`` is the name (``workflows``) or uid (``archived-workflows``)."""
    info = request.match_info
    namespace = path_namespace(request)
    if info["direction"] not in DIRECTIONS:
        raise UserError(f"expected inputs or outputs, got {info['direction'][:64]!r}", field="direction")
    if info["discriminator"] == "workflows":
        workflow = await _by_name(request, info["id"])
    elif info["discriminator"] == "archived-workflows":
        workflow = await _by_uid(request, info["id"], namespace)
    else:
        raise UserError(f"expected workflows or archived-workflows, got {info['discriminator'][:64]!r}",
                        field="idDiscriminator")
    rest = info["rest"]
    file_path = posixpath.normpath(rest.strip("/")) if rest.strip("/") else ""
    return await _serve(request, workflow, info["nodeId"], info["artifactName"], DIRECTIONS[info["direction"]],
                        file_path, listing=rest.endswith("/"))


def _route(find: Callable[[web.Request, str], Awaitable[dict[str, Any]]], key: str, is_input: bool) -> Any:
    """A download route that finds its run with ``find`` from the path parameter ``key`` (name or uid)."""
    async def handler(request: web.Request) -> web.StreamResponse:
        info = request.match_info
        workflow = await find(request, info[key])
        return await _serve(request, workflow, info["nodeId"], info["artifactName"], is_input)
    return handler


routes.get("/artifacts/{namespace}/{name}/{nodeId}/{artifactName}")(_route(_by_name, "name", False))
routes.get("/input-artifacts/{namespace}/{name}/{nodeId}/{artifactName}")(_route(_by_name, "name", True))
routes.get("/artifacts-by-uid/{uid}/{nodeId}/{artifactName}")(_route(_by_uid, "uid", False))
routes.get("/input-artifacts-by-uid/{uid}/{nodeId}/{artifactName}")(_route(_by_uid, "uid", True))
