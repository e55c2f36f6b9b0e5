"""HTTP templates: one request, made by the engine itself, as Argo's agent makes it (``workflow/executor/agent.go``).

The node is of type ``HTTP``; the response body is its ``outputs.result``. Without a ``successCondition`` a 2xx
status succeeds and any other fails the node ("received non-2xx response code: N"); with one, the expr-lang
condition sees ``request.{method,url,body,bodyBytes,headers}`` and ``response.{statusCode,body,headers}`` (headers as
Go's ``map[string][]string``, canonical names). A request that cannot be made fails the node with Go's wording
(``Get "URL": …``).

Bounds Argo leaves open: a request without ``timeoutSeconds`` gets the 30 s Argo's docs name, only ``http`` and
``https`` URLs are fetched, at most 10 redirects are followed (Go's client), and a body over
:data:`MAX_BODY_BYTES` fails the node rather than being kept whole in the run's state.
"""

from __future__ import annotations

import base64
import binascii
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from aipipe.engine.calls import Call
from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.handler import NodeResult
from aipipe.engine.noderef import NodeRef
from aipipe.engine.phases import NodePhase
from aipipe.engine.runtime import Runtime
from aipipe.engine.settle import settled
from aipipe.engine.template import Scope, TemplateError, render_deep
from aipipe.errors import UserError

DEFAULT_TIMEOUT_S = 30
MAX_BODY_BYTES = 1 << 20
MAX_REDIRECTS = 10
CANCEL_POLL_S = 0.2
SCHEMES = ("http", "https")


class HttpFailure(Exception):
    """The request could not be made or its answer not judged: the node fails with this message."""


class HttpHandler:
    """Makes an ``http`` template's request on a thread of its own, so a stop of the run ends the node at once."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        rt = self.rt
        rt.enter(node)
        try:  # the condition is the agent's to evaluate against the response, not a tag to substitute
            spec = render_deep(call.template.get("http") or {}, scope, f"{node.display}.http",
                               skip=frozenset({"successCondition"}))
            request = HttpRequest.of(spec, self._header_value)
        except TemplateError as exc:
            return {"phase": NodePhase.ERROR, "message": str(exc), "terminal": exc.absent}
        except (UserError, HttpFailure) as exc:
            return {"phase": NodePhase.FAILED, "message": str(exc)}
        answer: list[NodeResult] = []

        def work() -> None:
            try:
                answer.append(self._exchange(request, node.id))
            except Exception as exc:  # never leave the node without an end
                answer.append({"phase": NodePhase.ERROR, "message": f"engine error: {exc!r}"})

        worker = threading.Thread(target=work, daemon=True, name=f"http-{node.id}")
        deadline = time.monotonic() + request.timeout_s  # the whole exchange, as Go's context timeout bounds it
        worker.start()
        settled()  # the request is on its way: Argo's walk moves on
        while worker.is_alive():  # a request cut short here is left to its own socket timeouts
            worker.join(CANCEL_POLL_S)
            if not worker.is_alive():
                break
            if rt.halted(node.id):
                return {"phase": NodePhase.FAILED, "message": rt.stop_reason}
            if time.monotonic() > deadline:
                return {"phase": NodePhase.FAILED, "message": f"{request.where}: context deadline exceeded"}
        return answer[0]

    def _header_value(self, header: Mapping[str, Any]) -> str:
        ref = (header.get("valueFrom") or {}).get("secretKeyRef")
        if not ref:
            return str(header.get("value") or "")
        value = self.rt.ctx.secrets.get(str(ref.get("name") or ""), str(ref.get("key") or ""),
                                        optional=bool(ref.get("optional")))
        return value or ""  # an optional Secret key that is absent sends an empty value

    def _exchange(self, request: HttpRequest, nid: str) -> NodeResult:
        mask = self.rt.ctx.secrets.mask
        try:
            status, headers, body = request.send()
        except HttpFailure as exc:
            self.rt.ctx.on_log(nid, mask(f"{request.method} {request.url}: {exc}\n"))
            return {"phase": NodePhase.FAILED, "message": mask(str(exc))}
        text = body.decode(errors="replace")
        self.rt.ctx.on_log(nid, mask(f"{request.method} {request.url}: {status} ({len(body)} bytes)\n"))
        outputs = {"result": mask(text)}
        try:
            passed, message = request.judge(status, headers, text)
        except HttpFailure as exc:
            return {"phase": NodePhase.FAILED, "message": str(exc), "outputs": outputs}
        if passed:
            return {"phase": NodePhase.SUCCEEDED, "outputs": outputs}
        return {"phase": NodePhase.FAILED, "message": message, "outputs": outputs}


@dataclass(frozen=True)
class HttpRequest:
    """One ``http`` template's request, rendered, and how its answer is judged."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes
    text_body: str
    timeout_s: float
    verify: bool
    condition: str

    @property
    def where(self) -> str:
        """How Go's errors name the exchange: ``Get "URL"``."""
        return exchange_name(self.method, self.url)

    @classmethod
    def of(cls, spec: Mapping[str, Any], header_value: Callable[[Mapping[str, Any]], str]) -> HttpRequest:
        """The request ``spec`` (the template's rendered ``http``) describes; ``header_value(header)`` reads a
        header's value (a Secret's included)."""
        url = str(spec.get("url") or "")
        method = str(spec.get("method") or "GET")
        refused = scheme_problem(method, url)
        if refused:
            raise HttpFailure(refused)
        raw = (spec.get("bodyFrom") or {}).get("bytes")
        text = str(spec.get("body") or "")
        try:
            body = base64.b64decode(str(raw), validate=True) if raw is not None else text.encode()
        except (binascii.Error, ValueError) as exc:
            raise HttpFailure(f"http.bodyFrom.bytes: not base64 ({exc})") from exc
        headers = [(str(h.get("name") or ""), header_value(h)) for h in spec.get("headers") or []]
        return cls(method, url, headers, body, text, _timeout(spec.get("timeoutSeconds")),
                   not spec.get("insecureSkipVerify"), str(spec.get("successCondition") or ""))

    def send(self) -> tuple[int, dict[str, list[str]], bytes]:
        """(status, headers, body); an exchange that fails raises HttpFailure with Go's wording."""
        merged = joined_headers(self.headers)
        where = self.where
        with requests.Session() as session:
            session.max_redirects = MAX_REDIRECTS
            try:
                with session.request(self.method, self.url, headers=merged, data=self.body or None,
                                     timeout=self.timeout_s, verify=self.verify, stream=True) as response:
                    body = _read_bounded(response, where)
                    raw = response.raw.headers  # urllib3's: a repeated header keeps each value, as Go's
                    headers = {canonical_header(name): list(raw.getlist(name)) for name in raw}
                    return response.status_code, headers, body
            except requests.RequestException as exc:
                raise HttpFailure(request_failure(self.method, self.url, exc)) from exc

    def judge(self, status: int, headers: dict[str, list[str]], body: str) -> tuple[bool, str]:
        """(passed, the message of a failure): the default 2xx rule, or the template's ``successCondition``."""
        if not self.condition:
            return 200 <= status < 300, f"received non-2xx response code: {status}"
        scope = {"request": {"method": self.method, "url": self.url, "body": self.text_body,
                             "bodyBytes": list(self.body), "headers": self._request_headers()},
                 "response": {"statusCode": status, "body": body, "headers": headers}}
        try:
            value = evaluate(self.condition, scope)
        except ExprError as exc:
            raise HttpFailure(f"unable to evaluate expression '{self.condition}': {exc}") from exc
        if not isinstance(value, bool):
            raise HttpFailure(f"unable to cast expression result '{value}' to bool")
        return value, f"successCondition '{self.condition}' evaluated false"

    def _request_headers(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, value in self.headers:
            out.setdefault(canonical_header(name), []).append(value)
        return out


def _timeout(value: Any) -> float:
    """``timeoutSeconds`` as a positive number of seconds (absent: :data:`DEFAULT_TIMEOUT_S`)."""
    if value in (None, ""):
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = 0.0
    if not seconds > 0:
        raise HttpFailure(f"http.timeoutSeconds: must be a positive number of seconds, got {value!r}")
    return seconds


def _read_bounded(response: requests.Response, where: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(64 * 1024):
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise HttpFailure(f"{where}: the response body is over {MAX_BODY_BYTES} bytes, the embedded engine's "
                              "bound for an HTTP node's result")
        chunks.append(chunk)
    return b"".join(chunks)


def request_failure(method: str, url: str, exc: requests.RequestException) -> str:
    """A failed exchange in Go's words: ``Get "URL": context deadline exceeded`` …"""
    where = exchange_name(method, url)
    if isinstance(exc, requests.Timeout):
        return f"{where}: context deadline exceeded"
    if isinstance(exc, requests.TooManyRedirects):
        return f"{where}: stopped after {MAX_REDIRECTS} redirects"
    return f"{where}: {_reason(exc)}"


def _reason(exc: requests.RequestException) -> str:
    """The innermost cause of a failed exchange, as one line."""
    cause: BaseException = exc
    while cause.__cause__ is not None or (cause.args and isinstance(cause.args[0], BaseException)):
        cause = cause.__cause__ or cause.args[0]
    text = str(getattr(cause, "reason", None) or cause)
    return " ".join(text.split()) or type(cause).__name__


def scheme_problem(method: str, url: str) -> str | None:
    """Go's refusal of a URL that is not ``http`` or ``https`` (None: it is)."""
    scheme = urlsplit(url).scheme.lower()
    return None if scheme in SCHEMES else f'{exchange_name(method, url)}: unsupported protocol scheme "{scheme}"'


def joined_headers(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Headers to send: as Go's Header.Add, a repeated name carries every value (joined with ``, ``)."""
    merged: dict[str, str] = {}
    for name, value in pairs:
        merged[name] = f"{merged[name]}, {value}" if name in merged else value
    return merged


def exchange_name(method: str, url: str) -> str:
    """How Go's url.Error names an exchange: ``Get "URL"``, ``Post "URL"`` …"""
    return f'{method[:1].upper()}{method[1:].lower()} "{url}"'


def canonical_header(name: str) -> str:
    """Go's CanonicalMIMEHeaderKey: each dash-separated word capitalised (``content-type`` → ``Content-Type``)."""
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))
