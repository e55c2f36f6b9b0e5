"""The aiohttp application of ``aipipe server`` and the function that serves it on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.web_request import BaseRequest
from aiohttp.web_response import StreamResponse

from aipipe.config import Config
from aipipe.engine.service import EngineService
from aipipe.errors import UserError
from aipipe.server.archived import routes as archived_routes
from aipipe.server.artifacts import routes as artifact_routes
from aipipe.server.control import routes as control_routes
from aipipe.server.cron import CronController
from aipipe.server.errors import errors_middleware
from aipipe.server.events import EventDispatcher
from aipipe.server.events import routes as event_routes
from aipipe.server.gpus import routes as gpu_routes
from aipipe.server.limits import DEFAULT_MAX_BODY_MIB
from aipipe.server.page import routes as page_routes
from aipipe.server.resources import add_resource_routes
from aipipe.server.runner import RunManager
from aipipe.server.security import login_routes, security_middleware
from aipipe.server.shapes import shapes_middleware
from aipipe.server.streams import routes as stream_routes
from aipipe.server.token import load_or_create_token, token_path
from aipipe.server.workflows import routes as workflow_routes

log = logging.getLogger(__name__)
HOST = "127.0.0.1"
ARGO_API_VERSION = "v4.1.2"
CRON_TICK_SECONDS = 1.0
AUTH_MODES = ("client", "server")  # Argo's names: client = bearer token required, server = none


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


class AccessLogger(AbstractAccessLogger):
    """Method, path (never the query string: ``/login?token=…`` stays out of the log), status, time."""

    def log(self, request: BaseRequest, response: StreamResponse, time: float) -> None:
        self.logger.info("%s %s %s %.3fs", request.method, request.path, response.status, time)


def create_app(service: EngineService, token: str | None, max_body_mib: float = DEFAULT_MAX_BODY_MIB
               ) -> web.Application:
    """The API app over ``service``; ``token`` None turns authentication off (``--auth-mode=server``).

    Runs it drives are let go (left resumable) when it shuts down."""
    app = web.Application(middlewares=[errors_middleware, security_middleware(token), shapes_middleware],
                          client_max_size=int(max_body_mib * 2**20))
    app["service"] = service
    app["runs"] = RunManager(service)
    app["cron"] = CronController(service, app["runs"].start)
    app["events"] = EventDispatcher(service, app["runs"])
    app["event_tasks"] = set()
    app.add_routes(page_routes)
    app.add_routes(login_routes(token))
    app.router.add_get("/api/v1/version", version)
    app.router.add_get("/api/v1/info", info)
    app.router.add_get("/api/v1/userinfo", userinfo)
    app.add_routes(workflow_routes)
    app.add_routes(archived_routes)
    app.add_routes(control_routes)
    app.add_routes(stream_routes)
    app.add_routes(artifact_routes)
    add_resource_routes(app)
    app.add_routes(event_routes)
    app.add_routes(gpu_routes)

    async def on_shutdown(app: web.Application) -> None:
        if app["event_tasks"]:
            await asyncio.wait(app["event_tasks"], timeout=10)
        await asyncio.to_thread(app["runs"].shutdown)

    app.on_shutdown.append(on_shutdown)
    app.cleanup_ctx.append(_cron_loop)
    return app


async def _cron_loop(app: web.Application) -> AsyncIterator[None]:
    """Tick the CronWorkflow controller every :data:`CRON_TICK_SECONDS` while the app runs."""

    async def loop() -> None:
        while True:
            try:
                await asyncio.to_thread(app["cron"].tick)
            except Exception:  # a store error must not end scheduling for good
                log.exception("cron controller tick failed")
            await asyncio.sleep(CRON_TICK_SECONDS)

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def resolve_token(cfg: Config, token: str | None, auth_mode: str) -> str | None:
    """The token the server requires: ``--auth-token``/``AIPIPE_SERVER_TOKEN``, else ``AIPIPE_HOME/server.token``
    (made on first start); None with ``--auth-mode=server``."""
    if auth_mode not in AUTH_MODES:
        raise UserError(f"expected client or server, got {auth_mode!r}", field="--auth-mode")
    if auth_mode == "server":
        if token:
            raise UserError("--auth-mode=server turns authentication off; give no token with it", field="--auth-mode")
        return None
    if token and token.strip():
        return token.strip()
    return load_or_create_token(cfg.home)[0]


def serve(cfg: Config, port: int = 2746, token: str | None = None, auth_mode: str = "client",
          max_body_mib: float = DEFAULT_MAX_BODY_MIB) -> None:
    """Serve until SIGINT/SIGTERM; on the way out the runs this server drives are left resumable
    (their processes end, their phase stays Running), exactly as after a crash."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    required = resolve_token(cfg, token, auth_mode)
    app = create_app(EngineService(cfg), required, max_body_mib)

    async def main() -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=3.0, access_log_class=AccessLogger)
        await runner.setup()
        site = web.TCPSite(runner, HOST, port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise UserError(f"cannot listen on {HOST}:{port}: {exc.strerror}", field="--port") from exc
        _announce(cfg, port, required, token)
        recovered = await asyncio.to_thread(app["runs"].recover)  # only once the port is ours
        if recovered:
            log.warning("continuing runs whose driver had stopped: %s", ", ".join(recovered))
        await stopping.wait()
        await runner.cleanup()

    asyncio.run(main())


def _announce(cfg: Config, port: int, required: str | None, given: str | None) -> None:
    """The address and how to sign in, on stdout (the terminal), never through logging."""
    url = f"http://{HOST}:{port}"
    print(f"aipipe server: Argo Server API on {url} (home {cfg.home})", flush=True)
    if required is None:
        message = ("WARNING: --auth-mode=server: authentication is OFF; any local process can submit runs "
                   "that execute as this user")
        log.warning(message)
    elif not given:
        print(f"aipipe server: sign in at {url}/login?token={required}\n"
              f"aipipe server: the token is in {token_path(cfg.home)}; the aipipe CLI reads it by itself "
              "(or ARGO_TOKEN)", flush=True)
    else:
        print(f"aipipe server: sign in at {url}/login with the token you gave (--auth-token / "
              "AIPIPE_SERVER_TOKEN)", flush=True)
