"""HTTP artifacts, as Argo's http artifact driver moves them (``workflow/artifacts/http/http.go``): an input is fetched
with a GET of its ``url``, an output sent with a PUT, each with the artifact's ``headers`` and, from Secrets, its
``auth.basicAuth``. A 404 is "not found" (an optional input is then skipped); any other status outside 2xx fails.

Bounds Argo leaves open: only ``http`` and ``https`` URLs, 30 s to connect and 120 s without a byte, and at most
:data:`MAX_ARTIFACT_BYTES` fetched. ``auth.oauth2`` and ``auth.clientCert`` are refused with a message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import requests

from aipipe.engine.httpnode import joined_headers, request_failure, scheme_problem
from aipipe.engine.secrets import SecretStore

MAX_ARTIFACT_BYTES = 8 << 30
TIMEOUT_S = (30, 120)  # (connect, between bytes)
CHUNK = 1 << 20


class HttpArtifactError(Exception):
    """The transfer failed; the message names the URL and the reason."""


def http_location(artifact: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The artifact's ``http`` location when it has one with a URL."""
    location = artifact.get("http")
    return location if isinstance(location, Mapping) and location.get("url") else None


def fetch(location: Mapping[str, Any], dest: Path, secrets: SecretStore) -> bool:
    """GET the location's URL into the file ``dest``; False when the server answers 404."""
    url, headers, auth = _request(location, "GET", secrets)
    try:
        with requests.get(url, headers=headers, auth=auth, timeout=TIMEOUT_S, stream=True) as response:
            if response.status_code == 404:
                return False
            if not 200 <= response.status_code < 300:
                raise HttpArtifactError(f"loading content from {url} failed with reason: {_status(response)}")
            size = 0
            with dest.open("wb") as out:
                for chunk in response.iter_content(CHUNK):
                    size += len(chunk)
                    if size > MAX_ARTIFACT_BYTES:
                        raise HttpArtifactError(f"loading content from {url}: over {MAX_ARTIFACT_BYTES} bytes, the "
                                                "embedded engine's bound for one artifact")
                    out.write(chunk)
    except requests.RequestException as exc:
        raise HttpArtifactError(request_failure("GET", url, exc)) from exc
    return True


def send(location: Mapping[str, Any], src: Path, secrets: SecretStore) -> None:
    """PUT the file ``src`` to the location's URL."""
    url, headers, auth = _request(location, "PUT", secrets)
    try:
        with src.open("rb") as body, requests.put(url, data=body, headers=headers, auth=auth,
                                                  timeout=TIMEOUT_S) as response:
            if not 200 <= response.status_code < 300:
                raise HttpArtifactError(f"saving file {src.name} to {url} failed with reason: {_status(response)}")
    except requests.RequestException as exc:
        raise HttpArtifactError(request_failure("PUT", url, exc)) from exc


def _request(location: Mapping[str, Any], method: str,
             secrets: SecretStore) -> tuple[str, dict[str, str], tuple[str, str] | None]:
    """(url, headers, basic auth) of a transfer, its URL's scheme checked."""
    url = str(location.get("url") or "")
    refused = scheme_problem(method, url)
    if refused:
        raise HttpArtifactError(refused)
    headers = joined_headers([(str(h.get("name") or ""), str(h.get("value") or ""))
                              for h in location.get("headers") or []])
    auth = location.get("auth") or {}
    for refused in ("oauth2", "clientCert"):
        if auth.get(refused):
            raise HttpArtifactError(f"http.auth.{refused} is not supported by the embedded engine (it sends headers "
                                    "and auth.basicAuth); submit this workflow to Argo instead")
    basic = auth.get("basicAuth") or {}
    if not basic:
        return url, headers, None
    user, password = (_secret(basic.get(f"{part}Secret"), secrets, f"http.auth.basicAuth.{part}Secret")
                      for part in ("username", "password"))
    return url, headers, (user, password) if user and password else None  # as Argo: only with both


def _secret(ref: Any, secrets: SecretStore, where: str) -> str:
    if not isinstance(ref, Mapping) or not ref.get("name") or not ref.get("key"):
        raise HttpArtifactError(f"{where}: needs a Secret's name and key")
    return secrets.get(str(ref["name"]), str(ref["key"])) or ""


def _status(response: requests.Response) -> str:
    """Go's Response.Status: ``404 Not Found``."""
    return f"{response.status_code} {response.reason}".strip()
