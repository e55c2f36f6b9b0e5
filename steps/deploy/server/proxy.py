"""The supervisor's HTTP front (aiohttp): health, readiness, metrics, info, and predictions routed through the
service (the prediction handler and its bounds live in :mod:`.handlers`, shared with the workers' acceptors).
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from .handlers import handle_predict, json_response, new_app
from .service import Service

SERVICE_KEY = web.AppKey("service", Service)


async def healthz(request: web.Request) -> web.Response:
    return json_response(200, {"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    service = request.app[SERVICE_KEY]
    if service.ready():
        return json_response(200, {"status": "ready"})
    errors = [g.last_error for g in service.gpus if g.last_error]
    return json_response(503, {"status": "not ready", "replicas_ready": sum(g.ready for g in service.gpus),
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
    return json_response(200, doc)


async def predict(request: web.Request) -> web.Response:
    return await handle_predict(request, request.app[SERVICE_KEY])


def build_app(service: Service) -> web.Application:
    app = new_app(service.config)
    app[SERVICE_KEY] = service
    app.add_routes([web.get("/healthz", healthz), web.get("/readyz", readyz), web.get("/metrics", metrics),
                    web.get("/v1/info", info), web.post("/v1/predict", predict)])
    return app
