"""Facts about the machine that results and engine metadata record."""

from __future__ import annotations

import platform
from pathlib import Path


def cpu_model() -> str:
    """The host CPU's model name (``/proc/cpuinfo``), else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
