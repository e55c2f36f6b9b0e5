"""A CPU worker that accepts HTTP itself (``--acceptors workers``): a front that scales with cores.

One aiohttp event loop (the supervisor's proxy) tops out at one core's worth of HTTP. With this mode each
CPU worker also listens on the service's port (``SO_REUSEPORT``: the kernel spreads new connections over
the sockets) and serves the predictions it accepts from start to end in its own process: the same checks
and bounds as the proxy (:func:`.handlers.handle_predict`), decode or byte copy into one of **its own** slots
(a share of the pool no other process hands out), the hand-off to the least-loaded ready replica, the
answer. It keeps serving the proxy's requests through its job pipe as before.

- The supervisor tells each worker the replicas' states (``JOB_GPU_STATE``: ready, draining for a rolling
  restart; ``JOB_GPU_DOWN`` on a death, which fails what was pending on it).
- Its counts (status codes, latencies, batch sizes, who decoded) reach the supervisor's metrics every
  :data:`STATS_EVERY_S` (``REPLY_STATS``); ``/readyz``, ``/metrics`` and ``/v1/info`` are forwarded to the
  supervisor's private control address, ``/healthz`` is answered here.
- A worker that dies takes its open connections with it (as a gunicorn worker does), and Linux resets the
  connections still queued on its socket unless ``net.ipv4.tcp_migrate_req`` is 1 (then they move to a
  live acceptor); its slots are given to its successor only after every live replica answered a fence (no
  record naming them is left anywhere).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import sys
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

import aiohttp
import orjson
from aiohttp import web

from . import protocol as p
from .config import ServerConfig
from .cpu_worker import CpuWorker, WorkerArgs, _error
from .handlers import handle_predict, json_response, new_app
from .procs import child_setup

STATS_EVERY_S = 0.5
FORWARDED = ("/readyz", "/metrics", "/v1/info")


@dataclass(frozen=True)
class FrontArgs:
    """Where to listen, which slots are this worker's, where the supervisor answers control routes."""

    config: ServerConfig
    port: int
    slots: range
    control_url: str


@dataclass
class _Local:
    future: asyncio.Future[tuple[int, bytes]]
    slot: int
    gpu: int


@dataclass
class _Replica:
    generation: int
    state: int
    decodes: bool


@dataclass
class FrontStats:
    """What this acceptor served since its last report."""

    codes: collections.Counter[int] = field(default_factory=collections.Counter)
    latencies: list[float] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)
    decoded: collections.Counter[int] = field(default_factory=collections.Counter)

    reported_busy: bool = False  # the last report had requests in flight

    def take(self, outstanding: collections.Counter[int]) -> bytes | None:
        """The report (JSON: counts, and the requests in flight per replica), or None when nothing changed;
        resets the counts."""
        busy = any(outstanding.values())
        if not self.codes and not self.batches and not busy and not self.reported_busy:
            return None
        self.reported_busy = busy
        doc = {"codes": {str(k): v for k, v in self.codes.items()}, "latencies": self.latencies,
               "batches": self.batches, "decoded": {str(k): v for k, v in self.decoded.items()},
               "outstanding": {str(k): v for k, v in outstanding.items() if v}}
        self.codes, self.latencies, self.batches = collections.Counter(), [], []
        self.decoded = collections.Counter()
        return orjson.dumps(doc)


class FrontWorker(CpuWorker):
    """A CPU worker with its own acceptor: routes the requests it accepts to a replica itself."""

    def __init__(self, args: WorkerArgs, front: FrontArgs, replies: Connection, inboxes: list[int]) -> None:
        super().__init__(args, replies, inboxes)
        self.front = front
        self.free = list(reversed(front.slots))
        self.local: dict[int, _Local] = {}
        self.replicas: dict[int, _Replica] = {}
        self.outstanding: collections.Counter[int] = collections.Counter()
        self.stats = FrontStats()
        self._ids = itertools.count(-1, -1)  # negative: never one of the proxy's request ids

    @property
    def config(self) -> ServerConfig:
        return self.front.config

    # --- what the supervisor says -----------------------------------------------------------------------
    def gpu_state(self, head: p.JobHeader) -> None:
        self.replicas[head.gpu] = _Replica(head.gpu_gen, head.slot, bool(head.device_decode))

    def fail_gpu(self, gpu: int, gpu_gen: int) -> None:
        known = self.replicas.get(gpu)
        if known is not None and known.generation <= gpu_gen:
            del self.replicas[gpu]
        super().fail_gpu(gpu, gpu_gen)

    # --- requests accepted here --------------------------------------------------------------------------
    async def submit(self, kind: int, payload: bytes, top_k: int) -> tuple[int, bytes]:
        if not self.free:
            return 503, _error(f"queue full ({len(self.front.slots)} requests in flight here); retry later")
        ready = [i for i, r in self.replicas.items() if r.state == p.GPU_READY]
        if not ready:
            return 503, _error("no model replica is ready; retry later")
        gpu = min(ready, key=self.outstanding.__getitem__)
        replica = self.replicas[gpu]
        req_id, slot = next(self._ids), self.free.pop()
        future: asyncio.Future[tuple[int, bytes]] = asyncio.get_running_loop().create_future()
        self.local[req_id] = _Local(future, slot, gpu)
        self.outstanding[gpu] += 1
        self.handle(p.JobHeader(req_id, kind, slot, gpu, replica.generation, top_k, int(replica.decodes)), payload)
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.config.request_timeout_s)
        except TimeoutError:  # the slot stays taken until the replica's late answer arrives
            return 504, _error(f"no answer within {self.config.request_timeout_s:g} s")

    def record(self, status: int, seconds: float) -> None:
        self.stats.codes[status] += 1
        self.stats.latencies.append(round(seconds, 6))

    def answer(self, req_id: int, status: int, body: bytes, batch_size: int = 0,
               decoded_by: int = p.DECODED_NONE) -> None:
        if req_id >= 0:  # the proxy's request
            super().answer(req_id, status, body, batch_size, decoded_by)
            return
        local = self.local.pop(req_id, None)
        if local is None:
            return
        self.free.append(local.slot)  # answered: no process touches the slot any more
        self.outstanding[local.gpu] -= 1
        if batch_size:
            self.stats.batches.append(batch_size)
        if decoded_by:
            self.stats.decoded[decoded_by] += 1
        if not local.future.done():
            local.future.set_result((status, body))

    def report(self) -> None:
        doc = self.stats.take(self.outstanding)
        if doc is not None:
            self.replies.send_bytes(p.pack_reply(p.REPLY_STATS, 0, 0, 0, doc))


def build_front_app(worker: FrontWorker) -> web.Application:
    """The worker's routes: predictions served here, control routes forwarded to the supervisor."""
    app = new_app(worker.config)
    session_box: list[aiohttp.ClientSession] = []

    async def predict(request: web.Request) -> web.Response:
        return await handle_predict(request, worker)

    async def healthz(request: web.Request) -> web.Response:
        return json_response(200, {"status": "ok"})

    async def forward(request: web.Request) -> web.Response:
        if not session_box:
            session_box.append(aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)))
        try:
            async with session_box[0].get(worker.front.control_url + request.path) as upstream:
                body = await upstream.read()
                return web.Response(status=upstream.status, body=body,
                                    headers={"Content-Type": upstream.headers.get("Content-Type", "")})
        except (aiohttp.ClientError, TimeoutError) as exc:
            return json_response(503, {"error": f"the service's supervisor did not answer: {exc}"})

    async def close_session(_: web.Application) -> None:
        for session in session_box:
            await session.close()

    app.add_routes([web.post("/v1/predict", predict), web.get("/healthz", healthz),
                    *[web.get(path, forward) for path in FORWARDED]])
    app.on_cleanup.append(close_session)
    return app


async def _serve(worker: FrontWorker, jobs: Connection, results: Connection) -> None:
    loop = asyncio.get_running_loop()
    reader = p.RecordReader(results.fileno())
    os.set_blocking(results.fileno(), False)

    def on_results() -> None:
        data, _ = reader.read()
        if data:
            worker.on_results(data)

    def on_job() -> None:
        try:
            frame = jobs.recv_bytes()
        except EOFError:  # the supervisor is gone
            os._exit(0)
        worker.on_job(frame)

    loop.add_reader(results.fileno(), on_results)
    loop.add_reader(worker.slow.wake_fd, worker.on_slow_done)
    loop.add_reader(jobs.fileno(), on_job)
    runner = web.AppRunner(build_front_app(worker), access_log=None, handle_signals=False, lingering_time=0)
    await runner.setup()
    cfg = worker.config
    await web.TCPSite(runner, cfg.host, worker.front.port, backlog=2048, reuse_port=True).start()
    worker.replies.send_bytes(p.pack_reply(p.REPLY_READY, 0, 0, 0, b""))
    while True:
        await asyncio.sleep(STATS_EVERY_S)
        worker.report()


def front_main(args: WorkerArgs, front: FrontArgs, jobs: Connection, replies: Connection, results: Connection,
               inboxes: list[Connection]) -> None:
    """Process entry point (spawned by the supervisor) of a worker with its own acceptor."""
    child_setup(args.parent_pid)
    worker = FrontWorker(args, front, replies, [c.fileno() for c in inboxes])
    try:
        asyncio.run(_serve(worker, jobs, results))
    except OSError as exc:  # e.g. the port could not be shared
        print(f"aipipe-serve: CPU worker {args.index} cannot accept on port {front.port}: {exc}",
              file=sys.stderr, flush=True)
        sys.exit(1)
