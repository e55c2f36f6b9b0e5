"""A CPU worker process: decode + preprocess into a shared-memory slot, hand the slot to a GPU
process, and turn the logits it writes back into the JSON answer (softmax, top-k, label map).

Inputs: job frames from the proxy (its own pipe) and result records from the GPU processes (its
result pipe). Requests wait in ``pending`` only between the hand-off and the result, so a worker
keeps many requests in flight and the GPU processes can batch across all workers.
"""

from __future__ import annotations

import json
import os
import select
import sys
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from steps.deploy.server import protocol as p
from steps.deploy.server.imaging import BadRequest, Preprocessor, parse_json_request, top_k
from steps.deploy.server.procs import child_setup
from steps.deploy.server.slots import PoolLayout, SlotPool


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


@dataclass
class _Pending:
    slot: int
    gpu: int
    gpu_gen: int
    top_k: int


def _error(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


class CpuWorker:
    """The worker's state and handlers (kept apart from the loop so tests can drive it)."""

    def __init__(self, args: WorkerArgs, replies: Connection, inboxes: list[int]) -> None:
        self.args = args
        self.pool = SlotPool.attach(args.layout)
        self.pre = Preprocessor(args.preprocess)
        self.replies = replies
        self.inboxes = inboxes
        self.pending: dict[int, _Pending] = {}

    def answer(self, req_id: int, status: int, body: bytes, batch_size: int = 0) -> None:
        self.replies.send_bytes(p.pack_reply(p.REPLY_ANSWER, req_id, status, batch_size, body))

    def on_job(self, frame: bytes) -> None:
        """Handle one frame from the proxy."""
        head, payload = p.unpack_job(frame)
        if head.kind == p.JOB_GPU_DOWN:
            self.fail_gpu(head.gpu, head.gpu_gen)
            return
        image: bytes | memoryview
        try:
            if head.kind == p.JOB_JSON:
                image, k = parse_json_request(payload, self.args.default_top_k)
            else:
                image, k = payload, head.top_k
            self.pre.into(image, self.pool.inputs[head.slot])
        except BadRequest as exc:
            self.answer(head.req_id, 400, _error(str(exc)))
            return
        self.pending[head.req_id] = _Pending(head.slot, head.gpu, head.gpu_gen, k)
        record = p.pack_request(head.gpu_gen, head.req_id, head.slot, self.args.index, self.args.generation)
        p.write_records(self.inboxes[head.gpu], [record])

    def fail_gpu(self, gpu: int, gpu_gen: int) -> None:
        """A GPU process died: every request handed to it (that generation or older) fails with 503."""
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
            if rec.status != p.RESULT_OK:
                self.answer(rec.req_id, 503, _error(f"model replica {rec.gpu} failed to run the batch; retry"))
                continue
            try:
                predictions = top_k(self.pool.outputs[item.slot], self.args.classes, item.top_k)
            except ArithmeticError as exc:
                self.answer(rec.req_id, 500, _error(str(exc)))
                continue
            body = json.dumps({"model_version": self.args.model_version, "predictions": predictions}).encode()
            self.answer(rec.req_id, 200, body, rec.batch_size)


def worker_main(args: WorkerArgs, jobs: Connection, replies: Connection, results: Connection,
                inboxes: list[Connection]) -> None:
    """Process entry point (spawned by the supervisor)."""
    child_setup(args.parent_pid)
    worker = CpuWorker(args, replies, [c.fileno() for c in inboxes])
    reader = p.RecordReader(results.fileno())
    os.set_blocking(results.fileno(), False)
    replies.send_bytes(p.pack_reply(p.REPLY_READY, 0, 0, 0, b""))
    job_fd, result_fd = jobs.fileno(), results.fileno()
    while True:
        ready, _, _ = select.select([result_fd, job_fd], [], [])
        if result_fd in ready:  # finish requests first: it frees slots and cuts latency
            data, _ = reader.read()
            if data:
                worker.on_results(data)
        if job_fd in ready:
            try:
                frame = jobs.recv_bytes()
            except EOFError:  # the supervisor is gone
                sys.exit(0)
            worker.on_job(frame)
