"""GPU assignment for nodes that request ``nvidia.com/gpu``: CUDA_VISIBLE_DEVICES, queueing, CPU fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Mapping
from typing import Any

from aipipe.errors import UserError


def detect_gpu_count() -> int:
    """GPUs on this machine: CUDA_VISIBLE_DEVICES if set, else ``nvidia-smi -L``, else 0."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"])
    if shutil.which("nvidia-smi") is None:
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def requested_gpus(template: Mapping[str, Any], resource: str) -> int:
    """GPUs a container/script template asks for (limits, else requests)."""
    body = template.get("container") or template.get("script") or {}
    resources = body.get("resources") or {}
    raw = (resources.get("limits") or {}).get(resource, (resources.get("requests") or {}).get(resource, 0))
    try:
        return int(str(raw))
    except ValueError as exc:
        raise UserError(f"{resource} must be a whole number, got {raw!r}", field="resources.limits") from exc


class GpuPool:
    """Hands out GPU indices; a request waits while not enough are free."""

    def __init__(self, count: int, fallback: str = "cpu") -> None:
        if fallback not in ("cpu", "fail"):
            raise UserError(f"must be cpu or fail, got {fallback!r}", field="engine.gpu_fallback")
        self.count = count
        self.fallback = fallback
        self.free = list(range(count))
        self.cond = threading.Condition()

    def acquire(self, n: int, cancelled: threading.Event) -> tuple[list[int] | None, str]:
        """(indices, warning). No GPU on the machine: (None, warning) for cpu fallback, UserError for fail."""
        if self.count == 0:
            if self.fallback == "fail":
                raise UserError(f"the step requests {n} GPU(s) but this machine has none "
                                "(set engine.gpu_fallback=cpu to run it on CPU)", field="resources")
            return None, f"warning: {n} GPU(s) requested but none found; running on CPU (engine.gpu_fallback=cpu)"
        if n > self.count:
            raise UserError(f"the step requests {n} GPU(s) but this machine has {self.count}", field="resources")
        with self.cond:
            while len(self.free) < n and not cancelled.is_set():
                self.cond.wait(0.5)
            if cancelled.is_set():
                return [], ""
            taken, self.free = self.free[:n], self.free[n:]
            return taken, ""

    def release(self, indices: list[int] | None) -> None:
        if not indices:
            return
        with self.cond:
            self.free.extend(indices)
            self.free.sort()
            self.cond.notify_all()
