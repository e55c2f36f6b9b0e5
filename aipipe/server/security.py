"""Who may talk to ``aipipe server``: loopback Host, same Origin, a bearer token, JSON bodies.

Checked in this order on every request, before any handler runs:

1. ``Host`` must name a loopback address (``localhost``, ``127.x.x.x``, ``[::1]``): a DNS-rebound
   name (``evil.example`` resolving to 127.0.0.1) is refused, 403.
2. ``Origin``, when sent, must be the server's own (``http://<Host>``): another site's page is refused, 403.
3. The token, Argo's way: ``Authorization: Bearer <token>``, or the ``authorization`` cookie
   (``Bearer <token>``, HttpOnly, SameSite=Strict) that ``/login`` sets for a browser; 401 otherwise
   (a page, not an API route, is sent to ``/login``). ``--auth-mode=server`` turns this step off.
4. A state-changing request authenticated by the cookie alone needs a same-origin ``Origin`` or
   ``Referer`` (CSRF), 403.
5. A request body on ``/api/`` must be ``application/json`` (415): a browser's no-preflight
   ``text/plain`` POST never reaches a handler.
"""

from __future__ import annotations

import hmac
import html
from collections.abc import Awaitable, Callable
from urllib.parse import unquote, urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware

from aipipe.server.errors import INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, error_response
from aipipe.server.loopback import loopback_host

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
COOKIE = "authorization"
LOGIN_PATH = "/login"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
JSON_TYPES = frozenset({"application/json"})


def own_origin(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}".lower()


def _same_origin(url: str, request: web.Request) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme and parts.netloc) and f"{parts.scheme}://{parts.netloc}".lower() == own_origin(request)


def presented_token(request: web.Request) -> tuple[str | None, bool]:
    """The token the request carries and whether it came from the cookie (header first)."""
    header = request.headers.get("Authorization")
    if header is not None:
        return _strip_bearer(header), False
    cookie = request.cookies.get(COOKIE)
    if cookie:
        return _strip_bearer(unquote(cookie)), True
    return None, False


def _strip_bearer(value: str) -> str:
    value = value.strip()
    return value[len("Bearer "):].strip() if value[:len("Bearer ")].lower() == "bearer " else value


def token_matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def security_middleware(token: str | None) -> Middleware:
    """The checks of this module; ``token`` None means ``--auth-mode=server`` (steps 3 and 4 off)."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not loopback_host(request.host):
            return error_response(403, PERMISSION_DENIED, f"Host {request.host!r} is not a loopback address; "
                                  "aipipe server answers only http://127.0.0.1 or http://localhost")
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() != own_origin(request):
            return error_response(403, PERMISSION_DENIED, f"cross-origin request from {origin!r} refused")
        if token is not None and request.path != LOGIN_PATH:
            given, from_cookie = presented_token(request)
            if not token_matches(given, token):
                if request.method in SAFE_METHODS and not request.path.startswith("/api/"):
                    raise web.HTTPFound(LOGIN_PATH)
                return error_response(401, UNAUTHENTICATED, "token not valid: send the server's token as "
                                      "'Authorization: Bearer <token>' (it is in AIPIPE_HOME/server.token)")
            if from_cookie and request.method not in SAFE_METHODS and origin is None \
                    and not _same_origin(request.headers.get("Referer", ""), request):
                return error_response(403, PERMISSION_DENIED, "a request authenticated by cookie must come "
                                      "from this server's own pages (no same-origin Origin or Referer)")
        if request.method in BODY_METHODS and request.path.startswith("/api/") and _has_body(request) \
                and request.content_type not in JSON_TYPES:
            return error_response(415, INVALID_ARGUMENT,
                                  f"Content-Type must be application/json, got {request.content_type!r}")
        return await handler(request)

    return check


def _has_body(request: web.Request) -> bool:
    return request.content_length != 0 if request.content_length is not None else request.body_exists


# -- login ----------------------------------------------------------------------------------------
_FORM = """<!doctype html><html><head><meta charset="utf-8"><title>aipipe server: sign in</title></head>
<body><h1>aipipe server</h1>{message}
<form method="post" action="/login"><label>Token (in AIPIPE_HOME/server.token)
<input type="password" name="token" autocomplete="current-password" autofocus></label>
<button type="submit">Sign in</button></form></body></html>"""


def login_routes(token: str | None) -> list[web.RouteDef]:
    """``GET /login?token=…`` (the link the server prints) and the form's ``POST /login``."""

    def _form(message: str = "", status: int = 200) -> web.Response:
        paragraph = f"<p>{html.escape(message)}</p>" if message else ""
        return web.Response(text=_FORM.format(message=paragraph), status=status, content_type="text/html")

    def _sign_in(given: str | None) -> web.StreamResponse:
        if token is None:
            raise web.HTTPFound("/")
        if not given:
            return _form()
        if not token_matches(_strip_bearer(given), token):
            return _form("That token is not this server's.", 401)
        response = web.HTTPFound("/")
        response.set_cookie(COOKIE, f"Bearer {token}", path="/", httponly=True, samesite="Strict")
        response.headers["Cache-Control"] = "no-store"
        return response

    async def get_login(request: web.Request) -> web.StreamResponse:
        return _sign_in(request.query.get("token"))

    async def post_login(request: web.Request) -> web.StreamResponse:
        if request.content_type != "application/x-www-form-urlencoded":
            return _form("Send the form.", 415)
        form = await request.post()
        value = form.get("token")
        return _sign_in(value if isinstance(value, str) else None)

    return [web.get(LOGIN_PATH, get_login), web.post(LOGIN_PATH, post_login)]
