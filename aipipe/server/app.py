"""The aiohttp application of ``aipipe server`` and the function that serves it on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import signal

from aiohttp import web

from aipipe.config import Config
from aipipe.engine.service import EngineService
from aipipe.errors import UserError
from aipipe.server.errors import auth_middleware, errors_middleware
from aipipe.server.resources import add_resource_routes
from aipipe.server.runner import RunManager
from aipipe.server.workflows import routes as workflow_routes

log = logging.getLogger(__name__)
HOST = "127.0.0.1"
ARGO_API_VERSION = "v4.1.2"


async def version(request: web.Request) -> web.Response:
    """``/api/v1/version`` in Argo's Version shape (the API level this server follows)."""
    import platform
    from importlib.metadata import version as dist_version

    return web.json_response({
        "version": ARGO_API_VERSION, "buildDate": "", "gitCommit": "", "gitTag": ARGO_API_VERSION,
        "gitTreeState": "clean", "goVersion": "", "compiler": f"aipipe {dist_version('aipipe')}",
        "platform": f"{platform.system().lower()}/{platform.machine()}"})


async def info(request: web.Request) -> web.Response:
    return web.json_response({"managedNamespace": request.app["service"].default_namespace, "links": [],
                              "columns": [], "modals": {}})


async def userinfo(request: web.Request) -> web.Response:
    return web.json_response({})


def create_app(service: EngineService, token: str | None = None) -> web.Application:
    """The API app over ``service``; runs it drives are stopped when it shuts down."""
    app = web.Application(middlewares=[errors_middleware, auth_middleware(token)], client_max_size=64 * 2**20)
    app["service"] = service
    app["runs"] = RunManager(service)
    app.router.add_get("/api/v1/version", version)
    app.router.add_get("/api/v1/info", info)
    app.router.add_get("/api/v1/userinfo", userinfo)
    app.add_routes(workflow_routes)
    add_resource_routes(app)

    async def on_shutdown(app: web.Application) -> None:
        await asyncio.to_thread(app["runs"].shutdown)

    app.on_shutdown.append(on_shutdown)
    return app


def serve(cfg: Config, port: int = 2746, token: str | None = None) -> None:
    """Serve until SIGINT/SIGTERM; runs this server drives end Failed "terminated by user" on the way out."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = create_app(EngineService(cfg), token)

    async def main() -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=3.0)
        await runner.setup()
        site = web.TCPSite(runner, HOST, port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise UserError(f"cannot listen on {HOST}:{port}: {exc.strerror}", field="--port") from exc
        print(f"aipipe server: Argo Server API on http://{HOST}:{port} (home {cfg.home})", flush=True)
        recovered = await asyncio.to_thread(app["runs"].recover)  # only once the port is ours
        if recovered:
            log.warning("continuing runs whose driver had stopped: %s", ", ".join(recovered))
        await stopping.wait()
        await runner.cleanup()

    asyncio.run(main())
