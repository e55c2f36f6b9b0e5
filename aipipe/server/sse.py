"""One open stream of ``{"result": …}`` messages, framed as Argo's server frames them.

A request whose ``Accept`` header is exactly ``text/event-stream`` (what a browser's ``EventSource`` and
Argo's own CLI send) gets Server-Sent Events: ``data: {"result": …}`` frames, and a ``:`` comment line
after :data:`KEEPALIVE_SECONDS` without a frame so proxies and browsers keep the connection. Any other
client (``application/json``, ``*/*``: the official SDK, Hera, curl) gets newline-delimited JSON as
``application/json``, as grpc-gateway writes it. Headers go out at once, before the first message.

A client that goes away ends the stream quietly: :meth:`EventStream.send` returns False and the
stream's loop stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any

from aiohttp import ClientConnectionResetError, web

log = logging.getLogger(__name__)

EVENT_STREAM = "text/event-stream"
KEEPALIVE_SECONDS = 10.0
GONE = (ConnectionError, ClientConnectionResetError)


def wants_event_stream(request: web.Request) -> bool:
    """Argo's rule: SSE only when the one ``Accept`` header value is ``text/event-stream``."""
    values = request.headers.getall("Accept", [])
    return len(values) == 1 and values[0].strip() == EVENT_STREAM


class EventStream:
    """Frames messages for one response; tracks when it last wrote (for keep-alives) and whether the
    client is still there."""

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.sse = wants_event_stream(request)
        self.response = web.StreamResponse(headers={
            "Content-Type": EVENT_STREAM if self.sse else "application/json",
            "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self._last_write = 0.0
        self._gone = False

    async def open(self) -> EventStream:
        """Send the headers now, so the client knows the stream is there before any message."""
        await self.response.prepare(self.request)
        self._last_write = asyncio.get_running_loop().time()
        return self

    @property
    def connected(self) -> bool:
        """False once the client went away (aiohttp does not cancel handlers on disconnect)."""
        transport = self.request.transport
        return not self._gone and transport is not None and not transport.is_closing()

    async def send(self, result: dict[str, Any]) -> bool:
        """One ``{"result": …}`` message; False when the client is gone."""
        return await self.send_message({"result": result})

    async def send_message(self, message: dict[str, Any]) -> bool:
        """One message as given (already wrapped); False when the client is gone."""
        return await self._write(self._frame(message))

    async def send_error(self, http_code: int, grpc_code: int, message: str) -> bool:
        """An error after the stream opened, in grpc-gateway's stream error shape."""
        return await self._write(self._frame({"error": {"grpc_code": grpc_code, "http_code": http_code,
                                                        "message": message,
                                                        "http_status": HTTPStatus(http_code).phrase}}))

    async def keepalive(self) -> bool:
        """A ``:`` comment when nothing was written for :data:`KEEPALIVE_SECONDS` (SSE only)."""
        if not self.sse or asyncio.get_running_loop().time() - self._last_write < KEEPALIVE_SECONDS:
            return self.connected
        return await self._write(b":\n")

    def _frame(self, message: dict[str, Any]) -> bytes:
        data = json.dumps(message, separators=(",", ":")).encode()
        return b"data: " + data + b"\n\n" if self.sse else data + b"\n"

    async def _write(self, data: bytes) -> bool:
        if not self.connected:
            return False
        try:
            await self.response.write(data)
        except GONE:
            self._gone = True
            log.info("%s %s: the client went away", self.request.method, self.request.path)
            return False
        self._last_write = asyncio.get_running_loop().time()
        return True
