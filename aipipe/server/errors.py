"""Argo-style error bodies (``{"code": <gRPC code>, "message": …}``) and bearer-token checking."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from aipipe.errors import AuthError, ConflictError, NotFoundError, UserError

log = logging.getLogger(__name__)

# gRPC status codes used by grpc-gateway for the HTTP status it returns
INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, UNIMPLEMENTED, INTERNAL, UNAUTHENTICATED = 3, 5, 6, 12, 13, 16

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_response(http_status: int, grpc_code: int, message: str) -> web.Response:
    return web.json_response({"code": grpc_code, "message": message}, status=http_status)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Map our exceptions and aiohttp's routing errors to Argo's error shape."""
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
    except web.HTTPNotFound:
        return error_response(404, NOT_FOUND, f"no route for {request.method} {request.path}")
    except web.HTTPMethodNotAllowed:
        return error_response(405, UNIMPLEMENTED, f"method {request.method} not allowed on {request.path}")
    except web.HTTPException:
        raise
    except Exception as exc:
        log.exception("%s %s failed", request.method, request.path)
        return error_response(500, INTERNAL, f"internal error: {exc}")


def auth_middleware(token: str | None) -> Middleware:
    """Require ``Authorization: Bearer <token>`` on every request when a token is configured."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token:
            given = request.headers.get("Authorization", "")
            given = given[len("Bearer "):] if given.startswith("Bearer ") else given
            if not hmac.compare_digest(given.encode(), token.encode()):
                raise AuthError("token not valid: send the server's token as 'Authorization: Bearer <token>'")
        return await handler(request)

    return check
