"""The processes of one service as the supervisor keeps them and the router reads them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .config import ServerConfig


@dataclass
class Child:
    """One CPU worker or GPU process (model replica), across its restarts (``generation``)."""

    index: int
    generation: int = 0
    process: Any = None
    ready: bool = False
    ever_ready: bool = False
    started_at: float = 0.0
    failures: int = 0  # consecutive deaths without becoming stable
    restarts: int = 0
    outstanding: int = 0  # requests routed to it and not yet released (kept by the router)
    last_error: str = ""
    rolling: bool = False  # being restarted by a rolling restart: no new requests, the service stays ready
    info: dict[str, Any] = field(default_factory=dict)
    transports: list[asyncio.BaseTransport] = field(default_factory=list)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.exitcode is None

    def describe(self, kind: str) -> dict[str, Any]:
        return {"index": self.index, "kind": kind, "pid": self.process.pid if self.process else None,
                "running": self.running, "ready": self.ready, "generation": self.generation,
                "restarts": self.restarts, "outstanding": self.outstanding, "last_error": self.last_error,
                "rolling": self.rolling, **({"info": self.info} if self.info else {})}


@dataclass
class Fleet:
    """The children of one service and the job pipes of the connected workers (by worker index)."""

    gpus: list[Child]
    workers: list[Child]
    jobs: dict[int, asyncio.WriteTransport] = field(default_factory=dict)

    @classmethod
    def sized(cls, config: ServerConfig) -> Fleet:
        return cls([Child(i) for i in range(config.gpu_procs)], [Child(i) for i in range(config.cpu_workers)])

    def replicas_ready(self) -> int:
        return sum(1 for g in self.gpus if g.ready)
