"""The GPU memory each running node of an embedded-engine run uses, as the pool's watchdog reads it.

A :class:`NodeMeter` follows a run's status (the engine's ``on_change``), and every ``interval_s`` sums the
readings of :func:`aipipe.engine.gpuwatch.usage_source` (NVML, or the test seam ``AIPIPE_GPU_USAGE_FILE``) over
each running Pod node's process tree (its ``pid``, the node's supervisor): ``peaks`` is the most each node used at
one reading, by node name.
"""

from __future__ import annotations

import threading
from typing import Any

from aipipe.engine.gpuwatch import Usage, tree_pids, tree_use


class NodeMeter:
    """Peak GPU memory (MiB) of each node, keyed by the node's name (``<run>[0].<step>``)."""

    def __init__(self, usage: Usage, interval_s: float = 0.25) -> None:
        self.usage, self.interval_s = usage, interval_s
        self.peaks: dict[str, int] = {}
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="gpu-meter")

    def on_change(self, change: dict[str, Any]) -> None:
        """Give to the engine as (part of) its ``on_change``: learns which nodes run under which pid."""
        status = change.get("status") or {}
        with self._lock:
            for node in (status.get("nodes") or {}).values():
                key = str(node.get("name"))
                if node.get("type") == "Pod" and node.get("phase") == "Running" and isinstance(node.get("pid"), int):
                    self._running[key] = node["pid"]
                else:
                    self._running.pop(key, None)

    def __enter__(self) -> NodeMeter:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            with self._lock:
                running = dict(self._running)
            if not running:
                continue
            reading = self.usage()
            for key, pid in running.items():
                self.peaks[key] = max(self.peaks.get(key, 0), tree_use(reading, tree_pids(pid)))
