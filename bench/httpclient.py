"""A lean keep-alive HTTP/1.1 client for the load generator: prebuilt POST requests, one response at a time.

aiohttp's client costs about 0.28 ms of CPU per request: one client process tops out near 3.6k requests/s
(the H200 host's "HTTP ceiling" row), which is what one of our small services serves, so a benchmark driving
each service from one client process measured the client. This client writes a request built once per payload
and parses only the status line and the framing headers (``Content-Length``, chunked, ``Connection: close``).
It speaks to loopback servers of this project and its peers; it is not a general-purpose client.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

MAX_HEAD = 64 * 1024  # bytes of status line and headers read before giving up on a response


class HttpError(Exception):
    """The connection failed or the response was not well-formed HTTP/1.1."""


def build_post(url: str, body: bytes, content_type: str) -> bytes:
    """The bytes of one ``POST`` of ``body`` to ``url`` (keep-alive)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    head = (f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


class HttpConnection:
    """One keep-alive connection to ``url``'s host; connects on first use and again after the server closes it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"expected an http:// URL, got {url!r}")
        self.host, self.port = parts.hostname, parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._used = False  # a response came back on this connection: the server may close it while idle

    async def post(self, request: bytes) -> int:
        """Send a request from :func:`build_post`, read the whole response, return its status. A connection the
        server closed while it sat idle is opened again and the request sent once more (no byte of a response
        had arrived, so the server did not take it); any other failure raises :class:`HttpError`."""
        reused = self._writer is not None and self._used
        try:
            return await self._exchange(request)
        except HttpError:
            self.close()
            if not reused:
                raise
        return await self._exchange(request)

    async def _exchange(self, request: bytes) -> int:
        try:
            if self._writer is None:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=MAX_HEAD)
                self._used = False
            assert self._reader is not None
            self._writer.write(request)
            head = await self._reader.readuntil(b"\r\n\r\n")
            status, headers = _parse_head(head)
            await self._read_body(headers)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise HttpError(f"{type(exc).__name__}: {exc}") from exc
        self._used = True
        if headers.get(b"connection", b"").lower() == b"close":
            self.close()
        return status

    async def _read_body(self, headers: dict[bytes, bytes]) -> None:
        assert self._reader is not None
        if b"content-length" in headers:
            await self._reader.readexactly(int(headers[b"content-length"]))
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            while True:
                size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await self._reader.readexactly(size + 2)  # the chunk and its CRLF
                if size == 0:
                    return
        else:  # the body runs to the end of the connection
            await self._reader.read()
            self.close()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def _parse_head(head: bytes) -> tuple[int, dict[bytes, bytes]]:
    lines = head[:-4].split(b"\r\n")
    fields = lines[0].split(b" ", 2)
    if len(fields) < 2 or not fields[0].startswith(b"HTTP/1.") or not fields[1].isdigit():
        raise HttpError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return int(fields[1]), headers
