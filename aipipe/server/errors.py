"""Argo-style error bodies (``{"code": <gRPC code>, "message": …}``) for every failure of a request."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import ClientConnectionResetError, web

from aipipe.errors import AuthError, ConflictError, NotFoundError, UserError

log = logging.getLogger(__name__)

# gRPC status codes used by grpc-gateway for the HTTP status it returns
INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED = 3, 5, 6, 7
RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAUTHENTICATED = 8, 12, 13, 16

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_response(http_status: int, grpc_code: int, message: str) -> web.Response:
    return web.json_response({"code": grpc_code, "message": message}, status=http_status)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Map our exceptions and aiohttp's routing errors to Argo's error shape; a client that went away
    is not an error (no traceback in the log)."""
    try:
        return await handler(request)
    except AuthError as exc:
        return error_response(401, UNAUTHENTICATED, str(exc))
    except NotFoundError as exc:
        return error_response(404, NOT_FOUND, str(exc))
    except ConflictError as exc:
        return error_response(409, ALREADY_EXISTS, str(exc))
    except UserError as exc:
        return error_response(400, INVALID_ARGUMENT, str(exc))
    except json.JSONDecodeError as exc:
        return error_response(400, INVALID_ARGUMENT, f"request body is not valid JSON: {exc}")
    except web.HTTPRequestEntityTooLarge as exc:
        return error_response(413, RESOURCE_EXHAUSTED, exc.text or "request body too large")
    except web.HTTPNotFound:
        return error_response(404, NOT_FOUND, f"no route for {request.method} {request.path}")
    except web.HTTPMethodNotAllowed:
        return error_response(405, UNIMPLEMENTED, f"method {request.method} not allowed on {request.path}")
    except web.HTTPException:
        raise
    except (ConnectionResetError, ClientConnectionResetError):
        log.info("%s %s: the client went away", request.method, request.path)
        return web.Response(status=499)  # never sent: the connection is gone
    except Exception as exc:
        log.exception("%s %s failed", request.method, request.path)
        return error_response(500, INTERNAL, f"internal error: {exc}")
