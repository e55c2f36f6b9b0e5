"""The health gate: the new version must report ready, then answer a smoke prediction as itself.

Both targets use it: locally against the process's URL, on Kubernetes through the API server's proxy to
the Service. A transport is any ``(method, path, body, content_type) -> (status, body bytes)`` callable.
"""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

Transport = Callable[[str, str, bytes | None, str | None], tuple[int, bytes]]


@dataclass
class HealthResult:
    ok: bool = False
    ready: bool = False
    smoke: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def smoke_image(size: int = 64) -> bytes:
    """A small deterministic JPEG (a colour gradient) for the smoke prediction."""
    from PIL import Image

    img = Image.new("RGB", (size, size))
    img.putdata([(4 * x % 256, 4 * y % 256, 128) for y in range(size) for x in range(size)])
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def http_transport(base_url: str, timeout_s: float = 10.0) -> Transport:
    """Plain HTTP to ``base_url`` (a local deployment)."""

    def send(method: str, path: str, body: bytes | None, content_type: str | None) -> tuple[int, bytes]:
        req = urllib.request.Request(base_url.rstrip("/") + path, data=body, method=method)
        if content_type:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            return 0, str(exc).encode()

    return send


def check_smoke(transport: Transport, expected_version: str) -> dict[str, Any]:
    """POST one image to /v1/predict; the answer must come from ``expected_version`` with class names."""
    status, body = transport("POST", "/v1/predict", smoke_image(), "image/jpeg")
    result: dict[str, Any] = {"status": status}
    if status != 200:
        result["error"] = f"/v1/predict answered {status}: {body[:200].decode(errors='replace')}"
        return result
    try:
        answer = json.loads(body)
        top = answer["predictions"][0]
        result.update(model_version=str(answer.get("model_version", "")), top_class=top["class"],
                      top_probability=float(top["probability"]))
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        result["error"] = f"/v1/predict answer is not a prediction: {exc!r}"
        return result
    if result["model_version"] != str(expected_version):
        result["error"] = f"answered as version {result['model_version']!r}, expected {expected_version!r}"
    return result


def _reported_error(body: bytes) -> str:
    """The runtime's own reason for not being ready (``{"error": ...}`` in /readyz), if it gives one."""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    return str(data.get("error") or "") if isinstance(data, dict) else ""


def wait_ready(transport: Transport, timeout_s: float, poll_s: float = 0.25,
               alive: Callable[[], str | None] | None = None, error_grace_s: float = 15.0) -> str:
    """Poll /readyz until 200; returns "" when ready, else why not.

    ``alive`` returns a reason once the target died. A runtime that keeps reporting an error (a model
    that fails to load and fails again on restart) for ``error_grace_s`` fails the gate early.
    """
    start = time.monotonic()
    deadline = start + timeout_s
    erring_since: float | None = None
    while True:
        if alive is not None and (reason := alive()):
            return reason
        status, body = transport("GET", "/readyz", None, None)
        if status == 200:
            return ""
        now = time.monotonic()
        last = f"/readyz answered {status or 'nothing'}: {body[:300].decode(errors='replace')}"
        error = _reported_error(body) if status else ""
        erring_since = (erring_since or now) if error else None
        if erring_since is not None and now - erring_since >= error_grace_s:
            return f"the runtime kept failing for {now - erring_since:.0f}s: {error}"
        if now >= deadline:
            return f"not ready after {timeout_s:g}s ({last})"
        time.sleep(poll_s)


def gate(transport: Transport, expected_version: str, timeout_s: float,
         alive: Callable[[], str | None] | None = None, error_grace_s: float = 15.0) -> HealthResult:
    """Ready within ``timeout_s``, then a good smoke prediction from the expected version."""
    start = time.monotonic()
    result = HealthResult()
    result.error = wait_ready(transport, timeout_s, alive=alive, error_grace_s=error_grace_s)
    result.ready = not result.error
    if result.ready:
        result.smoke = check_smoke(transport, expected_version)
        result.error = result.smoke.get("error", "")
        result.ok = not result.error
    result.seconds = round(time.monotonic() - start, 3)
    return result
