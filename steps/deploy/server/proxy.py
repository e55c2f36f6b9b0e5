"""The async HTTP front (aiohttp): routing, health, metrics, size limits, content types, timeouts."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from . import protocol as p
from .imaging import BadRequest, parse_top_k
from .service import Service

IMAGE_TYPES = frozenset({"image/jpeg", "image/jpg", "image/png", "image/webp", "image/bmp", "image/gif",
                         "image/tiff", "application/octet-stream"})
JSON_TYPE = "application/json"
SERVICE_KEY = web.AppKey("service", Service)
HELD_KEY = web.AppKey("oversized_held", list[int])
OVERSIZE_HOLD_S = 0.5  # an upload over the size limit waits this long, unread, for its 413
MAX_HELD = 64  # oversized uploads held at a time (each holds at most a socket receive buffer)


def _json(status: int, doc: object) -> web.Response:
    return web.Response(status=status, body=json.dumps(doc).encode(), content_type=JSON_TYPE)


def _error(status: int, message: str) -> web.Response:
    return _json(status, {"error": message})


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


async def healthz(request: web.Request) -> web.Response:
    return _json(200, {"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    service = request.app[SERVICE_KEY]
    if service.ready():
        return _json(200, {"status": "ready"})
    errors = [g.last_error for g in service.gpus if g.last_error]
    return _json(503, {"status": "not ready", "replicas_ready": sum(g.ready for g in service.gpus),
                       "replicas": len(service.gpus), **({"error": errors[0]} if errors else {})})


async def metrics(request: web.Request) -> web.Response:
    body = request.app[SERVICE_KEY].metrics.render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def info(request: web.Request) -> web.Response:
    service = request.app[SERVICE_KEY]
    cfg = service.config
    doc = {**service.spec.manifest, "model_version": service.spec.model_version, "replicas": cfg.gpu_procs,
           "classes": service.spec.classes, "max_batch": cfg.max_batch, "max_delay_ms": cfg.max_delay_ms,
           "queue_size": cfg.queue_size, "max_body_mb": cfg.max_body_mb, **service.describe()}
    return _json(200, doc)


async def predict(request: web.Request) -> web.Response:
    service = request.app[SERVICE_KEY]
    started = time.perf_counter()
    response = await _predict(request, service)
    service.metrics.requests.labels(code=str(response.status)).inc()
    service.metrics.latency.observe(time.perf_counter() - started)
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


async def _predict(request: web.Request, service: Service) -> web.Response:
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


def build_app(service: Service) -> web.Application:
    app = web.Application(client_max_size=service.config.max_body_bytes, middlewares=[json_errors])
    app[SERVICE_KEY] = service
    app[HELD_KEY] = [0]
    app.add_routes([web.get("/healthz", healthz), web.get("/readyz", readyz), web.get("/metrics", metrics),
                    web.get("/v1/info", info), web.post("/v1/predict", predict)])
    return app
