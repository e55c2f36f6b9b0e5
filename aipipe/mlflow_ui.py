"""Where the MLflow UI is: shared by the Argo UI links (platform) and the steps' tracking code (mlkit)."""

from __future__ import annotations

from urllib.parse import urlparse


def ui_base(tracking_uri: str) -> str | None:
    """The MLflow UI's base URL: the tracking server itself, when it is an http(s) server."""
    return tracking_uri.rstrip("/") if urlparse(tracking_uri).scheme in ("http", "https") else None
