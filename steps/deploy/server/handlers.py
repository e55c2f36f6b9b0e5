"""What every HTTP acceptor of a service shares: the prediction handler with its bounds (content types, body
size with the held 413, ``top_k``), JSON errors, and the app that carries them. The supervisor's proxy
(:mod:`.proxy`) submits to the service; a worker's own acceptor (:mod:`.front`) to the worker."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from aiohttp import web

from . import protocol as p
from .config import ServerConfig
from .imaging import BadRequest, parse_top_k

IMAGE_TYPES = frozenset({"image/jpeg", "image/jpg", "image/png", "image/webp", "image/bmp", "image/gif",
                         "image/tiff", "application/octet-stream"})
JSON_TYPE = "application/json"
HELD_KEY = web.AppKey("oversized_held", list[int])
OVERSIZE_HOLD_S = 0.5  # an upload over the size limit waits this long, unread, for its 413
MAX_HELD = 64  # oversized uploads held at a time (each holds at most a socket receive buffer)


def json_response(status: int, doc: object) -> web.Response:
    return web.Response(status=status, body=json.dumps(doc).encode(), content_type=JSON_TYPE)


def _error(status: int, message: str) -> web.Response:
    return json_response(status, {"error": message})


@web.middleware
async def json_errors(request: web.Request,
                      handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """aiohttp's own errors (404, 405, …) as ``{"error": …}`` too."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason or "error")


class Submitter(Protocol):
    """Where a prediction goes: the service (through the router), or a worker's own acceptor."""

    @property
    def config(self) -> ServerConfig: ...

    async def submit(self, kind: int, payload: bytes, top_k: int) -> tuple[int, bytes]: ...

    def record(self, status: int, seconds: float) -> None: ...


async def handle_predict(request: web.Request, target: Submitter) -> web.Response:
    """Check, read and submit one prediction request; record its status and latency."""
    started = time.perf_counter()
    response = await _predict(request, target)
    target.record(response.status, time.perf_counter() - started)
    return response


async def _hold(app: web.Application) -> None:
    """Keep an oversized upload waiting, unread, before its 413 (then the connection closes unread).

    Unread, its TCP window stays closed, so the sender moves little more than a socket buffer's worth
    and cannot retry at once; a few are held at a time (``MAX_HELD``), the rest answered straight away.
    """
    held = app[HELD_KEY]
    if held[0] >= MAX_HELD:
        return
    held[0] += 1
    try:
        await asyncio.sleep(OVERSIZE_HOLD_S)
    finally:
        held[0] -= 1


async def _predict(request: web.Request, service: Submitter) -> web.Response:
    cfg = service.config
    ctype = request.content_type
    if ctype == JSON_TYPE:
        kind = p.JOB_JSON
    elif ctype in IMAGE_TYPES:
        kind = p.JOB_RAW
    else:
        return _error(400, f"content type {ctype!r} not supported: send the image bytes as one of "
                           f"{', '.join(sorted(IMAGE_TYPES))}, or {JSON_TYPE} {{\"image\": <base64>}}")
    limit = f"body larger than the {cfg.max_body_mb:g} MB limit"
    if request.content_length is not None and request.content_length > cfg.max_body_bytes:
        await _hold(request.app)
        return _error(413, limit)
    try:
        top_k = parse_top_k(request.query.get("top_k"), cfg.default_top_k)
        body = await request.read()
    except BadRequest as exc:
        return _error(400, str(exc))
    except web.HTTPRequestEntityTooLarge:
        return _error(413, limit)
    if not body:
        return _error(400, "empty body: send the image bytes or a JSON object")
    status, payload = await service.submit(kind, body, top_k)
    return web.Response(status=status, body=payload, content_type=JSON_TYPE)


def new_app(config: ServerConfig) -> web.Application:
    """An app with the service's body limit, JSON errors and the oversized-upload hold."""
    app = web.Application(client_max_size=config.max_body_bytes, middlewares=[json_errors])
    app[HELD_KEY] = [0]
    return app
