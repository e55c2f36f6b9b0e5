"""Whether a ``Host`` header or URL authority names this machine's loopback interface."""

from __future__ import annotations

import ipaddress


def loopback_host(host: str) -> bool:
    """True for ``localhost``, ``127.x.x.x`` and ``[::1]``, with or without a port."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:2746
        name = host[1:host.find("]")] if "]" in host else ""
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    name = name.rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
