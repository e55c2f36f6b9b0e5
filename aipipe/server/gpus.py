"""``GET /api/v1/aipipe/gpus``: the machine's GPU pool (each GPU's memory, grants and leases; the queue), read-only."""

from __future__ import annotations

from aiohttp import web

from aipipe.engine.context import pool_policy
from aipipe.engine.gpu import detect_inventory
from aipipe.engine.gpupool import pool_report
from aipipe.server.common import blocking, service_of

routes = web.RouteTableDef()


@routes.get("/api/v1/aipipe/gpus")
async def gpus(request: web.Request) -> web.Response:
    home = service_of(request).cfg.home
    report = await blocking(lambda: pool_report(home, detect_inventory(home), pool_policy()[0]))
    return web.json_response(report)
