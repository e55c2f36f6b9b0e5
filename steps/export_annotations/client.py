"""Label Studio through ``label-studio-sdk`` 2.x: project lookup, snapshot export, conversions.

Either a legacy token or a personal access token (a JWT refresh token, exchanged by the SDK)
works. Unreachable or 5xx → retried with exponential backoff (each attempt said on stderr, which
the run's tree shows on the node line), then :class:`ServiceUnavailable` naming the URL; the total wait
is bounded (``LABEL_STUDIO_WAIT_SECONDS``); a connection that cannot be opened fails within
:data:`CONNECT_SECONDS`; a refused token → :class:`AuthError` at once; an unknown project → NotFoundError.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aipipe.errors import AuthError, NotFoundError, ServiceUnavailable, UserError

T = TypeVar("T")
EXPORT_POLL_SECONDS = 0.5
EXPORT_TIMEOUT_SECONDS = 600.0
CONNECT_SECONDS = 5.0  # opening a connection; reading an answer may take the request timeout
MAX_DELAY_SECONDS = 15.0  # the longest single wait between two attempts


@dataclass(frozen=True)
class Retry:
    """Exponential backoff: ``attempts`` tries, waiting ``base``, 2·base, 4·base … (at most
    :data:`MAX_DELAY_SECONDS`) seconds between them, and ``max_wait`` seconds in all when given."""

    attempts: int = 5
    base: float = 1.0
    max_wait: float | None = None

    @classmethod
    def within(cls, max_wait: float, base: float = 1.0) -> Retry:
        """As many attempts as fit in ``max_wait`` seconds of waiting."""
        if max_wait < 0 or base <= 0:
            raise UserError(f"a wait of {max_wait} s with a first delay of {base} s", field="label_studio.wait_seconds")
        attempts, total = 1, 0.0
        while total + min(base * 2 ** (attempts - 1), MAX_DELAY_SECONDS) <= max_wait:
            total += min(base * 2 ** (attempts - 1), MAX_DELAY_SECONDS)
            attempts += 1
        return cls(attempts, base, max_wait)

    def delays(self) -> list[float]:
        out: list[float] = []
        for i in range(max(self.attempts - 1, 0)):
            delay = min(self.base * 2**i, MAX_DELAY_SECONDS)
            if self.max_wait is not None and sum(out) + delay > self.max_wait:
                break
            out.append(delay)
        return out


@dataclass(frozen=True)
class Project:
    id: int
    title: str
    label_config: str


def _status_of(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None)


def _is_transient(exc: BaseException) -> bool:
    import httpx
    import requests

    status = _status_of(exc)
    if status is not None:
        return status == 429 or status >= 500
    return isinstance(exc, (httpx.TransportError, requests.ConnectionError, requests.Timeout, ConnectionError,
                            TimeoutError))


def call_with_retries(fn: Callable[[], T], *, url: str, what: str, retry: Retry,
                      sleep: Callable[[float], None] = time.sleep) -> T:
    """Run one Label Studio request; retry transient failures, map the rest to aipipe errors."""
    delays = retry.delays()
    for attempt in range(len(delays) + 1):
        try:
            return fn()
        except Exception as exc:
            status = _status_of(exc)
            if status in (401, 403):
                raise AuthError(f"Label Studio at {url} refused the API key (HTTP {status}) while trying to "
                                f"{what}: check LABEL_STUDIO_API_KEY", field="label_studio.api_key") from exc
            if status == 404:
                raise NotFoundError(f"Label Studio at {url} has no such object ({what})") from exc
            if not _is_transient(exc):
                if status is not None:
                    raise UserError(f"Label Studio at {url} rejected the request to {what} (HTTP {status}): "
                                    f"{getattr(exc, 'body', '')}") from exc
                raise
            reason = f"HTTP {status}" if status is not None else _reason(exc)
            if attempt == len(delays):
                waited = f", {sum(delays):g} s of waiting" if delays else ""
                raise ServiceUnavailable(f"Label Studio at {url} is unavailable ({reason}) after {attempt + 1} "
                                         f"attempts{waited} to {what}") from exc
            print(f"Label Studio at {url} unreachable ({reason}), attempt {attempt + 1}/{len(delays) + 1}; "
                  f"next in {delays[attempt]:g} s", file=sys.stderr, flush=True)
            sleep(delays[attempt])
    raise AssertionError("unreachable")


def _reason(exc: BaseException) -> str:
    """``connection refused`` rather than a class name, when the exception says it."""
    text = str(exc).strip()
    if "refused" in text.lower():
        return "connection refused"
    return f"{type(exc).__name__}: {text[:80]}" if text else type(exc).__name__


class LabelStudioSource:
    """The calls the export needs, each retried and mapped to aipipe errors."""

    def __init__(self, url: str, api_key: str, retry: Retry | None = None, timeout: float = 60.0) -> None:
        if not url:
            raise UserError("no Label Studio URL", field="label_studio.url")
        if not api_key:
            raise UserError("no API key: set LABEL_STUDIO_API_KEY (legacy token or personal access token)",
                            field="label_studio.api_key")
        import httpx
        from label_studio_sdk.client import LabelStudio

        self.url = url.rstrip("/")
        self.retry = retry or Retry()
        http = httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_SECONDS)),
                            follow_redirects=True)
        self.client = self.call(lambda: LabelStudio(base_url=self.url, api_key=api_key, httpx_client=http,
                                                    max_retries=0), "read the API key")

    def call(self, fn: Callable[[], T], what: str) -> T:
        """Run one SDK request with this source's retry policy and error mapping."""
        return call_with_retries(fn, url=self.url, what=what, retry=self.retry)

    def auth_headers(self) -> dict[str, str]:
        """The Authorization header the SDK sends (a fresh access token for a personal access token)."""
        headers = self.call(self.client._client_wrapper.get_headers, "authenticate")
        return {k: v for k, v in headers.items() if k.lower() in ("authorization", "x-api-key")}

    def project(self, ref: str) -> Project:
        """A project by id (digits) or by exact title."""
        ref = str(ref).strip()
        if not ref:
            raise UserError("empty project reference", field="project")
        if ref.isdigit():
            try:
                found = self.call(lambda: self.client.projects.get(int(ref)), f"read project {ref}")
            except NotFoundError as exc:
                raise NotFoundError(f"no project with id {ref} in Label Studio at {self.url}", field="project") from exc
            return Project(int(ref), found.title or "", found.label_config or "")

        def titled() -> list[Any]:
            pager: Any = self.client.projects.list(title=ref)
            return [p for p in pager if p.title == ref]

        matches = self.call(titled, "list projects")
        if not matches:
            raise NotFoundError(f"no project titled {ref!r} in Label Studio at {self.url}", field="project")
        if len(matches) > 1:
            ids = ", ".join(str(p.id) for p in matches)
            raise UserError(f"{len(matches)} projects are titled {ref!r} (ids {ids}): pass the id", field="project")
        return self.project(str(matches[0].id))

    def snapshot(self, project_id: int, view: int | None = None) -> tuple[int, list[dict[str, Any]]]:
        """Create a snapshot export of the annotated tasks (optionally of one view), wait, download JSON."""
        from label_studio_sdk.types import LseTaskFilterOptionsRequest

        filters = (LseTaskFilterOptionsRequest(only_with_annotations=True) if view is None
                   else LseTaskFilterOptionsRequest(only_with_annotations=True, view=view))
        exports = self.client.projects.exports
        created = self.call(lambda: exports.create(project_id, task_filter_options=filters),
                            f"create a snapshot export of project {project_id}")
        if created.id is None:
            raise ServiceUnavailable(f"Label Studio at {self.url} created an export without an id")
        export_id = int(created.id)
        self._wait(project_id, export_id, None)
        data = self._download(project_id, export_id, "JSON")
        try:
            tasks = json.loads(data)
        except ValueError as exc:
            raise ServiceUnavailable(f"Label Studio at {self.url} sent an unreadable export: {exc}") from exc
        return export_id, tasks

    def converted(self, project_id: int, export_id: int, export_type: str) -> bytes:
        """The snapshot converted by Label Studio (e.g. ``COCO``, ``YOLO``): the downloaded file's bytes."""
        exports = self.client.projects.exports
        self.call(lambda: exports.convert(project_id, export_id, export_type=export_type),
                   f"convert export {export_id} to {export_type}")
        self._wait(project_id, export_id, export_type)
        return self._download(project_id, export_id, export_type)

    def _download(self, project_id: int, export_id: int, export_type: str) -> bytes:
        exports = self.client.projects.exports
        return self.call(lambda: b"".join(exports.download(project_id, export_id, export_type=export_type)),
                          f"download export {export_id} ({export_type})")

    def _wait(self, project_id: int, export_id: int, export_type: str | None) -> None:
        deadline = time.monotonic() + EXPORT_TIMEOUT_SECONDS
        while True:
            snap = self.call(lambda: self.client.projects.exports.get(project_id, export_id),
                              f"read export {export_id}")
            status = snap.status
            if export_type is not None:
                status = next((c.status for c in snap.converted_formats or [] if c.export_type == export_type), None)
            if status == "completed":
                return
            if status == "failed":
                raise ServiceUnavailable(f"Label Studio at {self.url} failed export {export_id} "
                                         f"({export_type or 'JSON'})")
            if time.monotonic() > deadline:
                raise ServiceUnavailable(f"Label Studio at {self.url}: export {export_id} not done after "
                                         f"{EXPORT_TIMEOUT_SECONDS:.0f} s (status {status})")
            time.sleep(EXPORT_POLL_SECONDS)
