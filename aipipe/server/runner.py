"""Worker threads of ``aipipe server`` that drive runs with the embedded engine."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine.service import EngineService
from aipipe.errors import ConflictError

log = logging.getLogger(__name__)


@dataclass
class _Driver:
    """One driver thread and the events that end it: ``stop`` fails the run, ``detach`` lets go of it."""

    workflow: dict[str, Any]
    driver_id: str | None
    stop: threading.Event = field(default_factory=threading.Event)
    detach: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class RunManager:
    """Starts one driver thread per run; on shutdown lets go of them all, leaving the runs resumable."""

    def __init__(self, service: EngineService) -> None:
        self.service = service
        self._lock = threading.Lock()
        self._runs: dict[str, _Driver] = {}

    def start(self, workflow: dict[str, Any], driver_id: str | None = None) -> None:
        """Drive ``workflow`` (a stored run) in a new thread."""
        uid = workflow["metadata"]["uid"]
        driver = _Driver(workflow, driver_id)
        driver.thread = threading.Thread(target=self._drive, args=(driver,), daemon=True,
                                         name=f"run-{workflow['metadata']['name']}")
        with self._lock:
            self._runs[uid] = driver
        driver.thread.start()

    def _drive(self, driver: _Driver) -> None:
        workflow = driver.workflow
        name = workflow["metadata"]["name"]
        try:
            final = self.service.drive(workflow, stop=driver.stop, driver_id=driver.driver_id, detach=driver.detach)
            if driver.detach.is_set():
                log.info("run %s left Running for the next start to continue", name)
            else:
                log.info("run %s finished: %s", name, final.get("status", {}).get("phase"))
        except ConflictError as exc:
            log.info("not driving %s: %s", name, exc)
        except Exception:
            if driver.detach.is_set():
                log.info("run %s left Running for the next start to continue", name)
            else:
                log.exception("run %s: engine error", name)
        finally:
            with self._lock:
                self._runs.pop(workflow["metadata"]["uid"], None)

    def recover(self) -> list[str]:
        """Continue every unfinished run whose driver died or let go; returns their names."""
        names = []
        for workflow in self.service.orphaned():
            self.start(workflow)
            names.append(workflow["metadata"]["name"])
        return names

    def active(self) -> int:
        with self._lock:
            return len(self._runs)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Let go of every run this process drives, as a crash would but tidily: their processes end,
        nothing more is recorded, and the runs stay Running for :meth:`recover` on the next start."""
        with self._lock:
            drivers = list(self._runs.values())
        for driver in drivers:
            driver.detach.set()
            driver.stop.set()
        for driver in drivers:
            if driver.thread is not None:
                driver.thread.join(timeout)
