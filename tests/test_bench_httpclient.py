"""The load generator's lean HTTP/1.1 client against a real aiohttp server: the framings it reads, a server that
closes, and a server that is gone."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from bench.httpclient import HttpConnection, HttpError, build_post


@asynccontextmanager
async def server() -> AsyncIterator[str]:
    async def sized(request: web.Request) -> web.Response:
        body = await request.read()
        return web.Response(body=body[::-1], status=201)

    async def chunked(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(status=200)
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for part in (b"a" * 10, b"b" * 5000, b"c"):
            await resp.write(part)
        await resp.write_eof()
        return resp

    async def closing(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text="bye", status=503, headers={"Connection": "close"})

    app = web.Application()
    app.router.add_post("/sized", sized)
    app.router.add_post("/chunked", chunked)
    app.router.add_post("/closing", closing)
    runner = web.AppRunner(app, keepalive_timeout=0.2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


def test_reads_each_framing_and_keeps_the_connection() -> None:
    async def run() -> list[int]:
        async with server() as url:
            conn = HttpConnection(url + "/sized")
            statuses = [await conn.post(build_post(url + "/sized", b"x" * n, "text/plain")) for n in (0, 1, 70_000)]
            statuses.append(await conn.post(build_post(url + "/chunked", b"{}", "application/json")))
            statuses.append(await conn.post(build_post(url + "/sized", b"after", "text/plain")))
            conn.close()
            return statuses

    assert asyncio.run(run()) == [201, 201, 201, 200, 201]


def test_reconnects_after_the_server_closes() -> None:
    async def run() -> list[int]:
        async with server() as url:
            conn = HttpConnection(url)
            first = await conn.post(build_post(url + "/closing", b"", "text/plain"))  # Connection: close
            second = await conn.post(build_post(url + "/sized", b"1", "text/plain"))
            await asyncio.sleep(0.6)  # past the server's keep-alive timeout: it closes the idle connection
            third = await conn.post(build_post(url + "/sized", b"2", "text/plain"))  # sent again on a new one
            conn.close()
            return [first, second, third]

    assert asyncio.run(run()) == [503, 201, 201]


def test_a_server_that_is_gone_is_an_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    conn = HttpConnection(f"http://127.0.0.1:{port}/x")
    with pytest.raises(HttpError):
        asyncio.run(conn.post(build_post(f"http://127.0.0.1:{port}/x", b"", "text/plain")))
    with pytest.raises(ValueError, match="http://"):
        HttpConnection("https://example.invalid/")
