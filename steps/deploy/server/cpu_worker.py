"""A CPU worker process: decode + preprocess into a shared-memory slot, hand the slot to a GPU
process, and turn the logits it writes back into the JSON answer (softmax, top-k, label map).

When the chosen replica decodes JPEGs itself (``JobHeader.device_decode``), a baseline JPEG that fits
the slot's byte area only has its header read and checked here (the same bounds) and its bytes copied
into the slot: the replica batch-decodes on its device. An image its decoder refuses comes back
(``RESULT_UNDECODED``) and is decoded here instead.

Inputs: job frames from the proxy (its own pipe) and result records from the GPU processes (its
result pipe). Requests wait in ``pending`` only between the hand-off and the result, so a worker
keeps many requests in flight and the GPU processes can batch across all workers.

Two lanes: the loop decodes what its header says is cheap (:data:`~.imaging.CHEAP_WORK_NS`) at
once; costlier images and large bodies go to the slow lane, one thread at a low CPU priority
(nice 10) with a short queue, so a client sending large or crafted images slows down only its own
requests. Whatever a request raises is answered (400, or 500 with the error) and the worker goes on.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from . import protocol as p
from .imaging import CHEAP_WORK_NS, BadRequest, Opened, Preprocessor, parse_json_request, top_k
from .procs import child_setup
from .slots import SHM_DIR, PoolLayout, SlotPool

CHEAP_BODY_BYTES = 256 * 1024  # larger bodies are parsed in the slow lane too
SLOW_LANE_DEPTH = 8  # requests queued or decoding in one worker's slow lane (at most 1/8 of the slots); more: 503
SLOW_LANE_WAIT_S = 2.0  # a request that waited longer for the slow lane is answered 503 without decoding
SLOW_LANE_NICE = 10  # under contention about a tenth of a normal process's share; all of any idle CPU


@dataclass(frozen=True)
class WorkerArgs:
    index: int
    generation: int
    parent_pid: int
    layout: PoolLayout
    preprocess: dict[str, Any]
    classes: list[str]
    model_version: str
    default_top_k: int
    max_body_bytes: int = 8 * 1024 * 1024


@dataclass
class _Pending:
    slot: int
    gpu: int
    gpu_gen: int
    top_k: int
    encoded_len: int = 0  # the replica was sent this many JPEG bytes to decode (0: a tensor)


@dataclass
class _SlowJob:
    """A request for the slow lane: the body still to parse, or an image opened by the loop."""

    head: p.JobHeader
    body: bytes | memoryview
    opened: Opened | None
    top_k: int
    queued_at: float
    status: int = 0  # set by the lane when the request fails
    error: str = ""


def _error(message: str) -> bytes:
    return orjson.dumps({"error": message})


class SlowLane:
    """One low-priority thread running ``work`` on queued jobs; the loop collects them after a wake-up byte.

    The lanes of all the service's workers take turns (an advisory lock on ``lock_path``, the slot
    pool's segment): large images share at most one core, at low priority.
    """

    def __init__(self, work: Callable[[_SlowJob], None], lock_path: Path, depth: int) -> None:
        self._work = work
        self.depth = depth
        self._lock_path = lock_path
        self._queue: collections.deque[_SlowJob] = collections.deque()
        self._done: collections.deque[_SlowJob] = collections.deque()
        self._ready = threading.Condition()
        self.wake_fd, self._wake_w = os.pipe()
        os.set_blocking(self.wake_fd, False)
        self.busy = 0  # queued + running + done but not collected (changed by the loop's thread only)
        self._thread: threading.Thread | None = None

    def submit(self, job: _SlowJob) -> bool:
        """Queue a job; False when the lane is full."""
        if self.busy >= self.depth:
            return False
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="aipipe-slow-lane", daemon=True)
            self._thread.start()
        self.busy += 1
        with self._ready:
            self._queue.append(job)
            self._ready.notify()
        return True

    def collect(self) -> list[_SlowJob]:
        """The finished jobs (call when ``wake_fd`` is readable)."""
        with contextlib.suppress(BlockingIOError):
            os.read(self.wake_fd, 4096)
        done: list[_SlowJob] = []
        while self._done:
            done.append(self._done.popleft())
        self.busy -= len(done)
        return done

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # Linux: niceness is per thread; raising it needs no privilege
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SLOW_LANE_NICE)
        lock = os.open(self._lock_path, os.O_RDONLY)
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                job = self._queue.popleft()
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._work(job)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
            self._done.append(job)
            os.write(self._wake_w, b"\0")


class CpuWorker:
    """The worker's state and handlers (kept apart from the loop so tests can drive it)."""

    def __init__(self, args: WorkerArgs, replies: Connection, inboxes: list[int]) -> None:
        self.args = args
        self.pool = SlotPool.attach(args.layout)
        self.pre = Preprocessor(args.preprocess)
        self.replies = replies
        self.inboxes = inboxes
        self.pending: dict[int, _Pending] = {}
        depth = min(SLOW_LANE_DEPTH, max(1, args.layout.slots // 8))  # the cheap requests keep most slots
        self.slow = SlowLane(self._slow_work, SHM_DIR / args.layout.input_name, depth)
        self.dead_gpu_gen: dict[int, int] = {}  # replica → the newest generation known dead

    def answer(self, req_id: int, status: int, body: bytes, batch_size: int = 0,
               decoded_by: int = p.DECODED_NONE) -> None:
        self.replies.send_bytes(p.pack_reply(p.REPLY_ANSWER, req_id, status, batch_size, body, decoded_by))

    def _unforeseen(self, req_id: int, exc: Exception) -> str:
        """An error no check foresaw: log it; returns the message for the 500 answer."""
        print(f"aipipe-serve: CPU worker {self.args.index}: request {req_id} failed: {exc!r}",
              file=sys.stderr, flush=True)
        return f"internal error while decoding the request: {type(exc).__name__}"

    def _parse(self, head: p.JobHeader, body: bytes | memoryview) -> tuple[bytes, int]:
        if head.kind == p.JOB_JSON:
            return parse_json_request(body, self.args.default_top_k)
        return bytes(body), head.top_k

    def on_job(self, frame: bytes) -> None:
        """Handle one frame from the proxy."""
        head, body = p.unpack_job(frame)
        if head.kind == p.JOB_GPU_DOWN:
            self.fail_gpu(head.gpu, head.gpu_gen)
        elif head.kind == p.JOB_GPU_STATE:
            self.gpu_state(head)
        else:
            self.handle(head, body)

    def gpu_state(self, head: p.JobHeader) -> None:
        """A replica's state, for a worker that routes requests itself (:class:`~.front.FrontWorker`); a worker
        that only serves the proxy's requests has no use for it."""

    def handle(self, head: p.JobHeader, body: bytes | memoryview) -> None:
        """Decode one request into its slot and hand it to its replica, or answer it."""
        if len(body) > self.args.max_body_bytes:  # the proxy checks first; this is the worker's own bound
            self.answer(head.req_id, 413, _error(f"body larger than the {self.args.max_body_bytes} byte limit"))
            return
        try:
            if len(body) > CHEAP_BODY_BYTES:
                self._defer(_SlowJob(head, body, None, head.top_k, time.monotonic()))
                return
            image, k = self._parse(head, body)
            opened = self.pre.open(image)
            if head.device_decode and opened.replica_decodable(len(image), self.pool.layout.encoded_bytes):
                self.pool.encoded[head.slot, :len(image)] = np.frombuffer(image, dtype=np.uint8)
                self._hand_off(head, k, len(image))
                return
            if opened.work_ns > CHEAP_WORK_NS:
                self._defer(_SlowJob(head, b"", opened, k, time.monotonic()))
                return
            self.pre.write(opened, self.pool.inputs[head.slot])
        except BadRequest as exc:
            self.answer(head.req_id, 400, _error(str(exc)))
            return
        except Exception as exc:  # one request's surprise must not end the worker
            self.answer(head.req_id, 500, _error(self._unforeseen(head.req_id, exc)))
            return
        self._hand_off(head, k)

    def _hand_off(self, head: p.JobHeader, k: int, encoded_len: int = 0) -> None:
        self.pending[head.req_id] = _Pending(head.slot, head.gpu, head.gpu_gen, k, encoded_len)
        record = p.pack_request(head.gpu_gen, head.req_id, head.slot, self.args.index, self.args.generation,
                                encoded_len)
        p.write_records(self.inboxes[head.gpu], [record])

    def _decode_refused(self, rec: p.ResultRecord, item: _Pending) -> None:
        """The replica's decoder refused the JPEG in the slot: decode it here (the slow lane when costly)
        and hand the tensor to the same replica."""
        head = p.JobHeader(rec.req_id, p.JOB_RAW, item.slot, item.gpu, item.gpu_gen, item.top_k)
        image = self.pool.encoded[item.slot, :item.encoded_len].tobytes()
        try:
            opened = self.pre.open(image)
            if opened.work_ns > CHEAP_WORK_NS:
                self._defer(_SlowJob(head, b"", opened, item.top_k, time.monotonic()))
                return
            self.pre.write(opened, self.pool.inputs[item.slot])
        except BadRequest as exc:
            self.answer(rec.req_id, 400, _error(str(exc)))
            return
        except Exception as exc:
            self.answer(rec.req_id, 500, _error(self._unforeseen(rec.req_id, exc)))
            return
        self._hand_off(head, item.top_k)

    def _defer(self, job: _SlowJob) -> None:
        if not self.slow.submit(job):
            self.answer(job.head.req_id, 503, _error(
                f"busy decoding large images ({self.slow.depth} waiting in this worker); retry later"))

    def _slow_work(self, job: _SlowJob) -> None:
        """In the slow lane's thread: parse and decode into the request's slot, or set an error."""
        waited = time.monotonic() - job.queued_at
        if waited > SLOW_LANE_WAIT_S:
            job.status, job.error = 503, (f"no CPU to decode a large image within {SLOW_LANE_WAIT_S:g} s "
                                          f"(the server is busy); retry later")
            return
        try:
            opened = job.opened
            if opened is None:
                image, job.top_k = self._parse(job.head, job.body)
                opened = self.pre.open(image)
            self.pre.write(opened, self.pool.inputs[job.head.slot])
        except BadRequest as exc:
            job.status, job.error = 400, str(exc)
        except Exception as exc:  # reported to the loop, which answers 500
            job.status, job.error = 500, self._unforeseen(job.head.req_id, exc)
        finally:
            job.body, job.opened = b"", None

    def on_slow_done(self) -> None:
        """Answer or hand off what the slow lane finished."""
        for job in self.slow.collect():
            head = job.head
            if job.status:
                self.answer(head.req_id, job.status, _error(job.error))
            elif head.gpu_gen <= self.dead_gpu_gen.get(head.gpu, 0):  # its replica died meanwhile
                self.answer(head.req_id, 503, _error(f"model replica {head.gpu} died while serving the request; retry"))
            else:
                self._hand_off(head, job.top_k)

    def fail_gpu(self, gpu: int, gpu_gen: int) -> None:
        """A GPU process died: every request handed to it (that generation or older) fails with 503."""
        self.dead_gpu_gen[gpu] = max(gpu_gen, self.dead_gpu_gen.get(gpu, 0))
        lost = [rid for rid, item in self.pending.items() if item.gpu == gpu and item.gpu_gen <= gpu_gen]
        for rid in lost:
            del self.pending[rid]
            self.answer(rid, 503, _error(f"model replica {gpu} died while serving the request; retry"))

    def on_results(self, data: bytes) -> None:
        for rec in p.iter_results(data):
            if rec.worker_gen != self.args.generation:
                continue  # addressed to this worker's previous incarnation
            item = self.pending.pop(rec.req_id, None)
            if item is None:
                continue
            if rec.status == p.RESULT_UNDECODED:
                self._decode_refused(rec, item)
                continue
            if rec.status == p.RESULT_BAD_OUTPUT:
                self.answer(rec.req_id, 500, _error(
                    f"model replica {rec.gpu} returned {rec.rows} output row(s) for a batch, not one per request: "
                    "the engine is faulty (the server log has the shapes)"))
                continue
            if rec.status != p.RESULT_OK:
                self.answer(rec.req_id, 503, _error(f"model replica {rec.gpu} failed to run the batch; retry"))
                continue
            try:
                predictions = top_k(self.pool.outputs[item.slot], self.args.classes, item.top_k)
            except ArithmeticError as exc:
                self.answer(rec.req_id, 500, _error(str(exc)))
                continue
            body = orjson.dumps({"model_version": self.args.model_version, "predictions": predictions})
            by = p.DECODED_BY_REPLICA if item.encoded_len else p.DECODED_BY_WORKER
            self.answer(rec.req_id, 200, body, rec.batch_size, by)


def worker_main(args: WorkerArgs, jobs: Connection, replies: Connection, results: Connection,
                inboxes: list[Connection]) -> None:
    """Process entry point (spawned by the supervisor)."""
    child_setup(args.parent_pid)
    worker = CpuWorker(args, replies, [c.fileno() for c in inboxes])
    reader = p.RecordReader(results.fileno())
    os.set_blocking(results.fileno(), False)
    replies.send_bytes(p.pack_reply(p.REPLY_READY, 0, 0, 0, b""))
    job_fd, result_fd, slow_fd = jobs.fileno(), results.fileno(), worker.slow.wake_fd
    while True:
        ready, _, _ = select.select([result_fd, slow_fd, job_fd], [], [])
        if result_fd in ready:  # finish requests first: it frees slots and cuts latency
            data, _ = reader.read()
            if data:
                worker.on_results(data)
        if slow_fd in ready:
            worker.on_slow_done()
        if job_fd in ready:
            try:
                frame = jobs.recv_bytes()
            except EOFError:  # the supervisor is gone
                sys.exit(0)
            worker.on_job(frame)
