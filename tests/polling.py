"""Waiting in tests for something another process or thread makes true."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(what: str, probe: Callable[[], Any], timeout: float = 60, interval: float = 0.2,
               retry_on: tuple[type[BaseException], ...] = (), detail: Callable[[], Any] | None = None) -> Any:
    """The first truthy value of ``probe``; exceptions in ``retry_on`` count as "not yet". On timeout the
    AssertionError says ``what`` and, when given, ``detail()``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except retry_on:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f": {detail()}" if detail else ""))
        time.sleep(interval)
