"""The router of one service: dispatches each request to a worker and a model replica, with back-pressure.

A request takes a free shared-memory slot (none left: 503 at once) and goes to the least-loaded
ready worker and replica; it then waits for the worker's answer, a death, or the timeout. A slot
returns to the free list only when no process can still touch it (see :mod:`.supervisor` for how
deaths are fenced); the supervisor tells the router about answers, deaths and fences.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass

from . import protocol as p
from .config import ServerConfig
from .fleet import Fleet
from .metrics import ServiceMetrics


def error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


@dataclass
class _Request:
    future: asyncio.Future[tuple[int, bytes]]
    slot: int
    worker: int
    worker_gen: int
    gpu: int
    gpu_gen: int
    timer: asyncio.TimerHandle | None = None
    orphan_fence: int = 0  # the worker died: waits for this fence of its replica


class Router:
    """Requests in flight, the free slots, and the choice of worker and replica for each request."""

    def __init__(self, config: ServerConfig, fleet: Fleet, metrics: ServiceMetrics) -> None:
        self.config = config
        self.fleet = fleet
        self.metrics = metrics
        self.requests: dict[int, _Request] = {}
        slots, _ = config.slot_shares()
        self.slots = len(slots)
        self.free_slots: list[int] = list(reversed(slots))
        self._ids = itertools.count(1)

    def in_flight(self) -> int:
        return self.slots - len(self.free_slots)

    async def submit(self, kind: int, payload: bytes, top_k: int) -> tuple[int, bytes]:
        """Route one request; returns (HTTP status, JSON body)."""
        if not self.free_slots:
            return 503, error_body(f"queue full ({self.slots} requests in flight); retry later")
        jobs = self.fleet.jobs
        gpus = [g for g in self.fleet.gpus if g.ready and not g.rolling]
        workers = [w for w in self.fleet.workers if w.ready and w.index in jobs]
        if not gpus or not workers:
            return 503, error_body("no model replica is ready; retry later")
        gpu = min(gpus, key=lambda c: c.outstanding)
        worker = min(workers, key=lambda c: c.outstanding)
        loop = asyncio.get_running_loop()
        req = _Request(loop.create_future(), self.free_slots.pop(), worker.index, worker.generation,
                       gpu.index, gpu.generation)
        req_id = next(self._ids)
        req.timer = loop.call_later(self.config.request_timeout_s, self._on_timeout, req_id)
        self.requests[req_id] = req
        worker.outstanding += 1
        gpu.outstanding += 1
        header = p.JobHeader(req_id, kind, req.slot, gpu.index, gpu.generation, top_k,
                             int(bool(gpu.info.get("decodes_jpeg"))))
        jobs[worker.index].write(p.frame(p.pack_job(header, payload)))
        return await req.future

    # --- what the supervisor reports -----------------------------------------------------------------
    def answer(self, reply: p.Reply) -> None:
        """A worker answered a request."""
        req = self.requests.pop(reply.req_id, None)
        if req is None:
            return
        if reply.batch_size:
            self.metrics.batch_size.observe(reply.batch_size)
        if reply.decoded_by in p.DECODED_BY:
            self.metrics.decoded.labels(by=p.DECODED_BY[reply.decoded_by]).inc()
        self._resolve(req, reply.status, reply.body)
        self._release(req)

    def replica_died(self, gpu: int, dead_gen: int) -> None:
        """Fail what that replica generation held; free the slots no live process can touch any more."""
        for rid, req in list(self.requests.items()):
            if req.gpu != gpu:
                continue
            if req.orphan_fence:  # its worker is dead too: nobody can touch the slot any more
                self._release(self.requests.pop(rid))
            elif req.gpu_gen == dead_gen:
                self._resolve(req, 503, error_body(f"model replica {gpu} died while serving the request; retry"))

    def worker_died(self, worker: int, gen: int, fence_for: Callable[[int, int], int | None]) -> None:
        """Fail that worker's requests; a slot its live replica may still write waits for that replica's fence.

        ``fence_for(gpu, gpu_gen)`` sends a fence to the replica if that generation still runs and returns
        its id (one fence per replica per death), else None."""
        for rid, req in list(self.requests.items()):
            if req.worker != worker or req.worker_gen != gen:
                continue
            self._resolve(req, 503, error_body("CPU worker died while serving the request; retry"))
            fence = fence_for(req.gpu, req.gpu_gen)
            if fence is None:
                self._release(self.requests.pop(rid))
            else:
                req.orphan_fence = fence

    def fence_done(self, gpu: int, fence: int) -> None:
        """The replica answered ``fence``: every record sent to it before is done."""
        done = [rid for rid, r in self.requests.items() if r.gpu == gpu and 0 < r.orphan_fence <= fence]
        for rid in done:
            self._release(self.requests.pop(rid))

    def fail_all(self, message: str) -> None:
        for req in self.requests.values():
            self._resolve(req, 503, error_body(message))

    # --- internals -------------------------------------------------------------------------------------
    def _resolve(self, req: _Request, status: int, body: bytes) -> None:
        if req.timer is not None:
            req.timer.cancel()
            req.timer = None
        if not req.future.done():
            req.future.set_result((status, body))

    def _release(self, req: _Request) -> None:
        if req.timer is not None:
            req.timer.cancel()
        self.free_slots.append(req.slot)
        self.fleet.workers[req.worker].outstanding -= 1
        self.fleet.gpus[req.gpu].outstanding -= 1

    def _on_timeout(self, req_id: int) -> None:
        req = self.requests.get(req_id)
        if req is not None:
            req.timer = None
            self._resolve(req, 504, error_body(f"no answer within {self.config.request_timeout_s:g} s"))
