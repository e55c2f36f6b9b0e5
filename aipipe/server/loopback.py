"""Whether a ``Host`` header or URL authority names this machine's loopback interface."""

from __future__ import annotations

import ipaddress


def loopback_host(host: str) -> bool:
    """True for ``localhost``, ``127.x.x.x`` and ``[::1]``, with or without a port."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:2746
        name, closed, rest = host[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            return False
        port = rest[1:]
    elif host.count(":") == 1:
        name, _, port = host.partition(":")
    else:
        name, port = host, ""
    if port and not port.isdigit():
        return False
    name = name.rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
