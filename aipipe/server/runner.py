"""Worker threads of ``aipipe server`` that drive runs with the embedded engine."""

from __future__ import annotations

import logging
import threading
from typing import Any

from aipipe.engine.service import EngineService
from aipipe.errors import ConflictError

log = logging.getLogger(__name__)


class RunManager:
    """Starts one driver thread per run; on shutdown stops them all (their runs end Failed)."""

    def __init__(self, service: EngineService) -> None:
        self.service = service
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[threading.Thread, threading.Event]] = {}

    def start(self, workflow: dict[str, Any], driver_id: str | None = None) -> None:
        """Drive ``workflow`` (a stored run) in a new thread."""
        uid = workflow["metadata"]["uid"]
        stop = threading.Event()
        thread = threading.Thread(target=self._drive, args=(workflow, stop, driver_id), daemon=True,
                                  name=f"run-{workflow['metadata']['name']}")
        with self._lock:
            self._runs[uid] = (thread, stop)
        thread.start()

    def _drive(self, workflow: dict[str, Any], stop: threading.Event, driver_id: str | None) -> None:
        name = workflow["metadata"]["name"]
        try:
            final = self.service.drive(workflow, stop=stop, driver_id=driver_id)
            log.info("run %s finished: %s", name, final.get("status", {}).get("phase"))
        except ConflictError as exc:
            log.info("not driving %s: %s", name, exc)
        except Exception:
            log.exception("run %s: engine error", name)
        finally:
            with self._lock:
                self._runs.pop(workflow["metadata"]["uid"], None)

    def recover(self) -> list[str]:
        """Continue every unfinished run whose driver died; returns their names."""
        names = []
        for workflow in self.service.orphaned():
            self.start(workflow)
            names.append(workflow["metadata"]["name"])
        return names

    def active(self) -> int:
        with self._lock:
            return len(self._runs)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stop every run this process drives and wait for the drivers to record it."""
        with self._lock:
            runs = list(self._runs.values())
        for _, stop in runs:
            stop.set()
        for thread, _ in runs:
            thread.join(timeout)
