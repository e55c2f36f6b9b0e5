"""The supervisor of one service: its processes, their pipes and the shared memory, in the proxy's event loop.

It allocates the shared-memory slot pool, spawns the CPU workers and the GPU processes (model
replicas), restarts any that dies (with back-off), restarts the replicas one at a time on request,
and says whether the service is ready. What concerns requests (answers, deaths, fences) it reports to
the router through :class:`RequestEvents`.

Slot safety: a slot returns to the free list only when no process can still touch it. Normally that
is the worker's answer. When a GPU process dies, its requests are answered 503 at once, and each
worker (told through its job pipe, in order after every job it was sent) fails what it had handed to
that replica, which frees the slots; a restarted replica ignores records addressed to its dead
predecessor's generation. When a worker dies, its requests are answered 503 at once and a fence is
written to each replica holding any: once the replica answers the fence, every earlier record is done.

With ``--acceptors workers`` each CPU worker also accepts HTTP on the service's port (:mod:`.front`): the
supervisor tells the workers the replicas' states, adds their reports to the metrics, and gives a dead
worker's slots to its successor only once every live replica answered a fence.

GPU processes are forked from a ``forkserver`` that imported what the engine's replica needs once
(torch, and dynamo and inductor for a compiled engine; :mod:`.preload`), without initialising CUDA; CPU
workers are spawned. Where the fork server cannot start, GPU processes are spawned too, said once.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import math
import multiprocessing as mp
import multiprocessing.forkserver
import os
import signal
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from . import protocol as p
from .config import ServerConfig, ServingSpec
from .cpu_worker import WorkerArgs, worker_main
from .fleet import Child, Fleet
from .front import STATS_EVERY_S, FrontArgs, front_main
from .gpu_worker import GpuArgs, gpu_main
from .metrics import ServiceMetrics
from .preload import modules_for
from .slots import PoolLayout, SlotPool, new_prefix, remove_segments, remove_stale_segments

CTX = mp.get_context("spawn")  # CPU workers; also GPU processes where no fork server can start
GPU_CTX = mp.get_context("forkserver")  # forks from a server that imported torch without touching CUDA
STABLE_AFTER_S = 10.0  # a process up this long resets its restart back-off
MAX_BACKOFF_S = 10.0
MAX_LOAD_FAILURES = 3  # a replica that never loaded its engine this often in a row stops the service


class RequestEvents(Protocol):
    """What the supervisor tells the router."""

    def answer(self, reply: p.Reply) -> None: ...

    def replica_died(self, gpu: int, dead_gen: int) -> None: ...

    def worker_died(self, worker: int, gen: int, fence_for: Callable[[int, int], int | None]) -> None: ...

    def fence_done(self, gpu: int, fence: int) -> None: ...

    def fail_all(self, message: str) -> None: ...


def _noop() -> None:
    """A process that does nothing: forking it waits for the fork server's imports."""


def _warm_fork_server() -> None:
    """Start the fork server and wait until it has imported its preload list (a fork answers only then)."""
    multiprocessing.forkserver.ensure_running()
    proc = GPU_CTX.Process(target=_noop, name="aipipe-fork-server-check", daemon=True)
    proc.start()
    proc.join()


class _FrameProtocol(asyncio.Protocol):
    """Reads length-prefixed frames from a child's pipe and hands each to a callback."""

    def __init__(self, on_frame: Callable[[bytes], None]) -> None:
        self._decoder = p.FrameDecoder()
        self._on_frame = on_frame

    def data_received(self, data: bytes) -> None:
        for payload in self._decoder.feed(data):
            self._on_frame(payload)


class Supervisor:
    """Starts, watches, restarts and stops the processes of one service."""

    def __init__(self, config: ServerConfig, spec: ServingSpec, fleet: Fleet, metrics: ServiceMetrics,
                 requests: RequestEvents) -> None:
        self.config = config
        self.spec = spec
        self.fleet = fleet
        self.metrics = metrics
        self.requests = requests
        self.layout = PoolLayout(new_prefix(), config.queue_size, spec.input_shape, len(spec.classes),
                                 config.encoded_slot_kb * 1024 if config.replica_decodes() else 0)
        self.pool: SlotPool | None = None
        self.stopping = False
        self.on_fatal: Callable[[str], None] | None = None  # called once the service cannot serve at all
        self._fences = itertools.count(1)
        self._fenced: dict[int, int] = {}  # replica → the newest fence it answered
        self.listen: tuple[int, str] | None = None  # (port, control URL) the workers' acceptors use
        self.front_outstanding: dict[int, dict[int, int]] = {}  # worker → replica → requests in flight there
        self.front_answered: collections.Counter[int] = collections.Counter()  # worker → requests it accepted
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gpu_ctx: Any = GPU_CTX
        self.fork_server: dict[str, Any] = {"preload": modules_for(spec.manifest)}
        # pipes shared by every generation: GPU inboxes (workers + proxy write) and worker result pipes
        self._inboxes = [CTX.Pipe(duplex=False) for _ in fleet.gpus]  # (read, write)
        self._results = [CTX.Pipe(duplex=False) for _ in fleet.workers]
        for read, _ in self._inboxes + self._results:
            p.fit_pipe(read.fileno(), config.queue_size)

    # --- lifecycle -------------------------------------------------------------------------------
    async def start(self, listen: tuple[int, str] | None = None) -> None:
        """Start the processes; ``listen`` = (the service's port, the supervisor's control URL) for workers that
        accept HTTP themselves."""
        if self.config.acceptors == "workers" and listen is None:
            raise ValueError("acceptors=workers needs the service's port and control URL")
        self.listen = listen
        self._loop = asyncio.get_running_loop()
        for name in remove_stale_segments():
            print(f"aipipe-serve: removed stale shared memory {name}", file=sys.stderr)
        self.pool = SlotPool.create(self.layout)
        for worker in self.fleet.workers:
            self._spawn_worker(worker)
        self._loop.create_task(self._start_gpus())

    async def _start_gpus(self) -> None:
        """Start the fork server (its imports off the event loop), then the GPU processes from it."""
        assert self._loop is not None
        GPU_CTX.set_forkserver_preload(self.fork_server["preload"])
        started = time.monotonic()
        try:
            await self._loop.run_in_executor(None, _warm_fork_server)
        except (OSError, EOFError, ValueError) as exc:
            self._no_fork_server(exc)
        self.fork_server["start_s"] = round(time.monotonic() - started, 2)
        for gpu in self.fleet.gpus:
            if not self.stopping:
                self._spawn_gpu(gpu)

    def _no_fork_server(self, exc: BaseException) -> None:
        print(f"aipipe-serve: no replica fork server ({type(exc).__name__}: {exc}); spawning model replicas "
              "instead (each imports torch itself)", file=sys.stderr, flush=True)
        self._gpu_ctx = CTX
        self.fork_server["error"] = f"{type(exc).__name__}: {exc}"[:300]

    async def stop(self, grace_s: float = 5.0) -> None:
        """Stop children (SIGTERM, then SIGKILL), fail what is in flight, remove shared memory."""
        self.stopping = True
        children = [c for c in self.fleet.workers + self.fleet.gpus if c.process is not None]
        for child in children:
            assert self._loop is not None
            self._loop.remove_reader(child.process.sentinel)
            if child.running:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for child in children:
            while child.process.exitcode is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if child.process.exitcode is None:
                child.process.kill()
            child.process.join(1)
            for transport in child.transports:
                transport.close()
        self.requests.fail_all("service is shutting down")
        if self.pool is not None:
            self.pool.close()
        remove_segments(self.layout.prefix)

    def ready(self) -> bool:
        gpus, workers = self.fleet.gpus, self.fleet.workers
        gpus_ok = all(g.ready or g.rolling for g in gpus) and any(g.ready and not g.rolling for g in gpus)
        return gpus_ok and all(w.ready for w in workers) and len(self.fleet.jobs) == len(workers)

    # --- spawning ---------------------------------------------------------------------------------
    def _watch(self, child: Child, on_exit: Callable[[Child], None]) -> None:
        assert self._loop is not None
        self._loop.add_reader(child.process.sentinel, on_exit, child)

    async def _read_pipe(self, conn: Connection, on_frame: Callable[[bytes], None]) -> asyncio.BaseTransport:
        assert self._loop is not None
        file = os.fdopen(os.dup(conn.fileno()), "rb", buffering=0)
        conn.close()
        transport, _ = await self._loop.connect_read_pipe(lambda: _FrameProtocol(on_frame), file)
        return transport

    def _spawn_worker(self, worker: Child) -> None:
        worker.generation += 1
        worker.ready = False
        jobs_r, jobs_w = CTX.Pipe(duplex=False)
        replies_r, replies_w = CTX.Pipe(duplex=False)
        args = WorkerArgs(worker.index, worker.generation, os.getpid(), self.layout, self.spec.preprocess,
                          self.spec.classes, self.spec.model_version, self.config.default_top_k,
                          self.config.max_body_bytes)
        pipes = (jobs_r, replies_w, self._results[worker.index][0], [w for _, w in self._inboxes])
        target: Callable[..., None]
        call: tuple[Any, ...]
        if self.listen is not None:
            port, control_url = self.listen
            front = FrontArgs(self.config, port, self.config.slot_shares()[1][worker.index], control_url)
            target, call = front_main, (args, front, *pipes)
        else:
            target, call = worker_main, (args, *pipes)
        self.front_outstanding.pop(worker.index, None)
        proc = CTX.Process(target=target, name=f"aipipe-cpu-worker-{worker.index}", daemon=True, args=call)
        proc.start()
        jobs_r.close()
        replies_w.close()
        worker.process, worker.started_at = proc, time.monotonic()
        gen = worker.generation
        self._watch(worker, self._on_worker_exit)
        assert self._loop is not None
        self._loop.create_task(self._connect_worker(worker, gen, jobs_w, replies_r))

    async def _connect_worker(self, worker: Child, gen: int, jobs_w: Connection, replies_r: Connection) -> None:
        assert self._loop is not None
        file = os.fdopen(os.dup(jobs_w.fileno()), "wb", buffering=0)
        jobs_w.close()
        transport, _ = await self._loop.connect_write_pipe(asyncio.Protocol, file)
        reader = await self._read_pipe(replies_r, lambda frame: self._on_reply(worker, gen, frame))
        if worker.generation != gen or not worker.running:  # died while connecting
            transport.close()
            return
        worker.transports = [transport, reader]
        self.fleet.jobs[worker.index] = transport
        if worker.ready:
            self._send_states(worker.index)

    def _spawn_gpu(self, gpu: Child) -> None:
        gpu.generation += 1
        gpu.ready = False
        control_r, control_w = CTX.Pipe(duplex=False)
        cfg = self.config

        def start(ctx: Any) -> Any:
            args = GpuArgs(gpu.index, gpu.generation, os.getpid(), self.layout, cfg.engine_dir, cfg.device,
                           cfg.max_batch, cfg.max_delay_ms, cfg.gpu_memory_mb_per_proc, forked=ctx is GPU_CTX,
                           decode=cfg.decode, preprocess=self.spec.preprocess)
            proc = ctx.Process(target=gpu_main, name=f"aipipe-gpu-proc-{gpu.index}", daemon=True,
                               args=(args, self._inboxes[gpu.index][0], [w for _, w in self._results], control_w))
            proc.start()
            return proc

        try:
            proc = start(self._gpu_ctx)
        except (OSError, EOFError, ValueError) as exc:  # the fork server died and cannot come back
            if self._gpu_ctx is CTX:
                raise
            self._no_fork_server(exc)
            proc = start(CTX)
        control_w.close()
        gpu.process, gpu.started_at = proc, time.monotonic()
        gen = gpu.generation
        self._watch(gpu, self._on_gpu_exit)
        assert self._loop is not None

        async def connect() -> None:
            gpu.transports = [await self._read_pipe(control_r, lambda frame: self._on_gpu_event(gpu, gen, frame))]

        self._loop.create_task(connect())

    def _restart_later(self, child: Child, spawn: Callable[[Child], None]) -> None:
        if self.stopping:
            return
        if child.ever_ready and time.monotonic() - child.started_at >= STABLE_AFTER_S:
            child.failures = 0
        delay = 0.0 if child.failures == 0 else min(MAX_BACKOFF_S, 0.5 * 2 ** (child.failures - 1))
        child.failures += 1
        child.restarts += 1
        assert self._loop is not None
        self._loop.call_later(delay, lambda: None if self.stopping else spawn(child))

    # --- events from children ---------------------------------------------------------------------
    def _on_reply(self, worker: Child, gen: int, frame: bytes) -> None:
        reply = p.unpack_reply(frame)
        if reply.kind == p.REPLY_READY:
            if worker.generation == gen:
                worker.ready = worker.ever_ready = True
                self._send_states(worker.index)
            return
        if reply.kind == p.REPLY_STATS:
            report = json.loads(reply.body)
            self.metrics.apply(report)
            self.front_answered[worker.index] += sum(report["codes"].values())
            if worker.generation == gen:
                self.front_outstanding[worker.index] = {int(k): v for k, v in report["outstanding"].items()}
            return
        self.requests.answer(reply)

    # --- replica states for the workers' acceptors ------------------------------------------------------
    def _state_frame(self, gpu: Child) -> bytes | None:
        if not gpu.ready:
            return None
        state = p.GPU_DRAINING if gpu.rolling else p.GPU_READY
        return p.frame(p.pack_gpu_state(gpu.index, gpu.generation, state, bool(gpu.info.get("decodes_jpeg"))))

    def _send_states(self, worker_index: int) -> None:
        """Every replica's state to one worker (it just started)."""
        jobs = self.fleet.jobs.get(worker_index)
        if self.listen is None or jobs is None:
            return
        for gpu in self.fleet.gpus:
            frame = self._state_frame(gpu)
            if frame is not None:
                jobs.write(frame)

    def _broadcast_state(self, gpu: Child) -> None:
        frame = self._state_frame(gpu)
        if self.listen is None or frame is None:
            return
        for index, jobs in self.fleet.jobs.items():
            if self.fleet.workers[index].running:
                jobs.write(frame)

    def front_in_flight(self, gpu: int | None = None) -> int:
        """Requests the workers' acceptors have in flight (on one replica, or on all), as last reported."""
        return sum(n for load in self.front_outstanding.values() for g, n in load.items() if gpu in (None, g))

    def _on_gpu_event(self, gpu: Child, gen: int, frame: bytes) -> None:
        event = json.loads(frame)
        if gen != gpu.generation:
            return
        if event["event"] == "ready":
            event["ready_s"] = round(time.monotonic() - gpu.started_at, 2)  # spawn to ready, a fresh process
            gpu.ready, gpu.ever_ready, gpu.info, gpu.last_error = True, True, event, ""
            self._broadcast_state(gpu)
            print(f"aipipe-serve: model replica {gpu.index} ready (pid {event.get('pid')}, "
                  f"{event.get('device')}, batch limit {event.get('batch_limit')})", file=sys.stderr, flush=True)
        elif event["event"] == "error":
            gpu.last_error = str(event["error"])
            print(f"aipipe-serve: model replica {gpu.index} failed to start: {gpu.last_error}",
                  file=sys.stderr, flush=True)
        elif event["event"] == "fence":
            self._fenced[gpu.index] = max(self._fenced.get(gpu.index, 0), int(event["id"]))
            self.requests.fence_done(gpu.index, int(event["id"]))
        elif event["event"] == "upgraded":  # a tiered start's compiled engine took over (or could not)
            gpu.info = {**gpu.info, "compiled": bool(event["compiled"]), "upgrade": event,
                        "compiled_s": round(time.monotonic() - gpu.started_at, 2) if event["compiled"] else None}
            print(f"aipipe-serve: model replica {gpu.index} "
                  + ("serves the compiled engine" if event["compiled"] else f"stays uncompiled: {event.get('note')}"),
                  file=sys.stderr, flush=True)

    def _on_gpu_exit(self, gpu: Child) -> None:
        assert self._loop is not None
        self._loop.remove_reader(gpu.process.sentinel)
        gpu.process.join(1.0)  # the sentinel fires at exit; reaping follows at once
        if self.stopping:
            return
        dead_gen, gpu.ready = gpu.generation, False
        print(f"aipipe-serve: model replica {gpu.index} (pid {gpu.process.pid}) exited with "
              f"{gpu.process.exitcode}; restarting", file=sys.stderr, flush=True)
        self.requests.replica_died(gpu.index, dead_gen)
        for index, jobs in self.fleet.jobs.items():
            if self.fleet.workers[index].running:
                jobs.write(p.frame(p.pack_job(p.JobHeader(0, p.JOB_GPU_DOWN, -1, gpu.index, dead_gen, 0))))
        # its status pipe is left to drain (a last error report may still be in it); EOF closes it
        self.metrics.gpu_restarts.labels(replica=str(gpu.index)).inc()
        if not gpu.ever_ready and gpu.failures + 1 >= MAX_LOAD_FAILURES and self.on_fatal is not None:
            on_fatal, code = self.on_fatal, gpu.process.exitcode
            # a moment for the replica's error report, which may arrive after its exit is seen
            self._loop.call_later(0.3, lambda: on_fatal(
                f"model replica {gpu.index} could not load the engine ({MAX_LOAD_FAILURES} attempts): "
                f"{gpu.last_error or f'exit code {code}'}"))
            return
        self._restart_later(gpu, self._spawn_gpu)

    def _on_worker_exit(self, worker: Child) -> None:
        assert self._loop is not None
        self._loop.remove_reader(worker.process.sentinel)
        worker.process.join(1.0)
        if self.stopping:
            return
        worker.ready = False
        self.fleet.jobs.pop(worker.index, None)
        print(f"aipipe-serve: CPU worker {worker.index} (pid {worker.process.pid}) exited with "
              f"{worker.process.exitcode}; restarting", file=sys.stderr, flush=True)
        self.requests.worker_died(worker.index, worker.generation, self._fencer())
        if worker.transports:
            worker.transports[0].close()  # its job pipe; the reply pipe drains its last answers, EOF closes it
        self.metrics.worker_restarts.labels(worker=str(worker.index)).inc()
        if self.listen is None:
            self._restart_later(worker, self._spawn_worker)
        else:  # its own slots may still be named in a replica's inbox: fence them all first
            self._loop.create_task(self._restart_after_fences(worker))

    async def _restart_after_fences(self, worker: Child) -> None:
        """Fence every live replica, wait until each answered (or died), then restart the worker."""
        waiting = {}
        for gpu in self.fleet.gpus:
            if gpu.running:
                waiting[gpu.index] = (gpu.generation, next(self._fences))
                p.write_records(self._inboxes[gpu.index][1].fileno(), [p.pack_fence(waiting[gpu.index][1])])

        def done(index: int, gen: int, fence: int) -> bool:
            gpu = self.fleet.gpus[index]
            return self._fenced.get(index, 0) >= fence or not gpu.running or gpu.generation != gen

        while not self.stopping and not all(done(i, g, f) for i, (g, f) in waiting.items()):
            await asyncio.sleep(0.01)
        self.front_outstanding.pop(worker.index, None)
        self._restart_later(worker, self._spawn_worker)

    def _fencer(self) -> Callable[[int, int], int | None]:
        """For one worker's death: a fence to each live replica generation asked about, written once."""
        fences: dict[int, int] = {}

        def fence_for(gpu_index: int, gpu_gen: int) -> int | None:
            gpu = self.fleet.gpus[gpu_index]
            if not (gpu.running and gpu.generation == gpu_gen):
                return None
            if gpu_index not in fences:
                fences[gpu_index] = next(self._fences)
                p.write_records(self._inboxes[gpu_index][1].fileno(), [p.pack_fence(fences[gpu_index])])
            return fences[gpu_index]

        return fence_for

    # --- rolling restart ----------------------------------------------------------------------------
    async def rolling_restart(self, timeout_s: float = 300.0) -> list[float]:
        """Restart the model replicas one at a time (e.g. to load a new engine): each is drained (no new
        requests, its in-flight ones finish), stopped and started again while the others serve, so the
        service stays ready and no request fails. Needs 2+ replicas. Returns each new replica's start time."""
        if len(self.fleet.gpus) < 2:
            raise RuntimeError("a rolling restart needs at least 2 model replicas (--gpu-procs)")
        ready_s: list[float] = []
        for gpu in self.fleet.gpus:
            if self.stopping:
                break
            gpu.rolling = True
            self._broadcast_state(gpu)
            try:
                deadline = time.monotonic() + timeout_s
                if self.listen is not None:  # the acceptors' reports lag; let the draining state reach them first
                    await asyncio.sleep(2 * STATS_EVERY_S)
                while (gpu.outstanding > 0 or self.front_in_flight(gpu.index) > 0) and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                generation = gpu.generation
                if gpu.running:
                    os.kill(gpu.process.pid, signal.SIGTERM)
                while not (gpu.ready and gpu.generation > generation) and time.monotonic() < deadline:
                    if self.stopping:
                        return ready_s
                    await asyncio.sleep(0.02)
                ready_s.append(float(gpu.info.get("ready_s", math.nan)) if gpu.ready else math.nan)
            finally:
                gpu.rolling = False
                self._broadcast_state(gpu)  # ready again (its new generation) for the workers' acceptors too
            print(f"aipipe-serve: rolling restart: replica {gpu.index} ready again in {ready_s[-1]:.1f} s",
                  file=sys.stderr, flush=True)
        return ready_s

    def describe(self) -> dict[str, Any]:
        workers = [w.describe("cpu") for w in self.fleet.workers]
        if self.listen is not None:
            for doc in workers:
                doc["answered_own_requests"] = self.front_answered[doc["index"]]
        return {"gpu_processes": [g.describe("gpu") for g in self.fleet.gpus], "cpu_workers": workers,
                "acceptors": self.config.acceptors}
