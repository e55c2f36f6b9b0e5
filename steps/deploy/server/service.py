"""One serving service: a :class:`~.supervisor.Supervisor` (processes) and a :class:`~.router.Router`
(requests) over one :class:`~.fleet.Fleet`, with its metrics; what the proxy and the app use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .config import ServerConfig, ServingSpec
from .fleet import Child, Fleet
from .metrics import ServiceMetrics
from .router import Router
from .supervisor import Supervisor


class Service:
    """Processes, shared memory and routing of one serving service."""

    def __init__(self, config: ServerConfig, spec: ServingSpec) -> None:
        self.config = config
        self.spec = spec
        self.metrics = ServiceMetrics()
        self.fleet = Fleet.sized(config)
        self.router = Router(config, self.fleet, self.metrics)
        self.supervisor = Supervisor(config, spec, self.fleet, self.metrics, self.router)

    @property
    def gpus(self) -> list[Child]:
        return self.fleet.gpus

    @property
    def stopping(self) -> bool:
        return self.supervisor.stopping

    @stopping.setter
    def stopping(self, value: bool) -> None:
        self.supervisor.stopping = value

    @property
    def on_fatal(self) -> Callable[[str], None] | None:
        return self.supervisor.on_fatal

    @on_fatal.setter
    def on_fatal(self, callback: Callable[[str], None] | None) -> None:
        self.supervisor.on_fatal = callback

    async def start(self, listen: tuple[int, str] | None = None) -> None:
        """Start the processes; ``listen`` = (port, control URL) for ``acceptors="workers"``."""
        self.metrics.bind(self, self.config.queue_size, len(self.fleet.gpus), len(self.fleet.workers))
        await self.supervisor.start(listen)

    async def stop(self, grace_s: float = 5.0) -> None:
        await self.supervisor.stop(grace_s)

    async def submit(self, kind: int, payload: bytes, top_k: int) -> tuple[int, bytes]:
        """Route one request; returns (HTTP status, JSON body)."""
        return await self.router.submit(kind, payload, top_k)

    def record(self, status: int, seconds: float) -> None:
        self.metrics.requests.labels(code=str(status)).inc()
        self.metrics.latency.observe(seconds)

    async def rolling_restart(self, timeout_s: float = 300.0) -> list[float]:
        return await self.supervisor.rolling_restart(timeout_s)

    def ready(self) -> bool:
        return self.supervisor.ready()

    def in_flight(self) -> int:
        return self.router.in_flight() + self.supervisor.front_in_flight()

    def replicas_ready(self) -> int:
        return self.fleet.replicas_ready()

    def describe(self) -> dict[str, Any]:
        return {**self.supervisor.describe(), "in_flight": self.in_flight(),
                "shm_prefix": self.supervisor.layout.prefix, "fork_server": self.supervisor.fork_server}
