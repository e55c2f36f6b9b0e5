"""Run one service in the foreground: start the processes, serve HTTP, stop cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import errno
import signal
import sys

from aiohttp import web

from aipipe.errors import UserError

from .config import ServerConfig, load_serving_spec
from .launcher import LISTENING
from .proxy import build_app
from .service import Service


async def serve(config: ServerConfig) -> None:
    spec = load_serving_spec(config.engine_dir)
    service = Service(config, spec)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_signal() -> None:
        service.stopping = True  # children get the signal too (process group): no restarts from now
        stop.set()

    fatal: list[str] = []

    def on_fatal(message: str) -> None:
        fatal.append(message)
        service.stopping = True
        stop.set()

    service.on_fatal = on_fatal
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    rolls: set[asyncio.Task[list[float]]] = set()

    def on_hangup() -> None:  # SIGHUP to this process: restart the replicas one at a time, staying ready
        if not rolls and len(service.gpus) >= 2:
            task = loop.create_task(service.rolling_restart())
            rolls.add(task)
            task.add_done_callback(rolls.discard)
        elif len(service.gpus) < 2:
            print("aipipe-serve: SIGHUP ignored: a rolling restart needs at least 2 model replicas",
                  file=sys.stderr, flush=True)

    loop.add_signal_handler(signal.SIGHUP, on_hangup)
    # lingering_time=0: a body refused before it is read (over the size limit) is not read after the answer
    # either; the connection closes instead, so an oversized upload costs the server only what it sent first
    runner = web.AppRunner(build_app(service), access_log=None, handle_signals=False, lingering_time=0)
    try:
        await runner.setup()
        workers_accept = config.acceptors == "workers"
        site = web.TCPSite(runner, config.host, config.port, backlog=2048, shutdown_timeout=2.0,
                           reuse_port=workers_accept or None)
        try:
            await site.start()
        except OSError as exc:  # in use, or not an address of this host
            reason = "the port is already in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
            raise UserError(f"cannot listen on {config.host}:{config.port}: {reason}", field="--port") from None
        host, port = runner.addresses[0][:2]
        listen = None
        if workers_accept:  # the workers forward control routes here (the public port is shared with them)
            await web.TCPSite(runner, "127.0.0.1", 0, shutdown_timeout=2.0).start()
            listen = (port, f"http://127.0.0.1:{runner.addresses[1][1]}")
        await service.start(listen)
        print(f"{LISTENING}http://{host}:{port}", flush=True)
        await stop.wait()
        print("aipipe-serve: stopping", file=sys.stderr, flush=True)
    finally:
        await runner.cleanup()
        await service.stop()
    if fatal:
        raise UserError(fatal[0], field="engine-dir")
