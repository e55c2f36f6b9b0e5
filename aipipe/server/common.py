"""Helpers every route module shares: the engine service, the run manager, blocking calls, bodies."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from aiohttp import web

from aipipe.engine.service import EngineService
from aipipe.errors import UserError
from aipipe.server.limits import parse_json
from aipipe.server.runner import RunManager
from aipipe.server.schema import validate_body

T = TypeVar("T")


def service_of(request: web.Request) -> EngineService:
    return request.app["service"]


def runs_of(request: web.Request) -> RunManager:
    return request.app["runs"]


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a store/engine call off the event loop (sqlite may wait for a lock)."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def read_body(request: web.Request, type_name: str) -> dict[str, Any]:
    """The JSON body, validated against the swagger definition ``type_name`` (400 when malformed).

    The size is bounded by the app's ``client_max_size`` (413), nesting and UTF-8 by :func:`parse_json`."""
    raw = await request.read()
    body = await blocking(parse_json, raw, type_name) if raw.strip() else {}
    if not isinstance(body, dict):
        raise UserError("request body must be a JSON object", field=type_name)
    validate_body(type_name, body)
    return body


def is_dry_run(body: dict[str, Any]) -> bool:
    return bool(body.get("serverDryRun")) or "All" in (body.get("createOptions") or {}).get("dryRun", [])


