"""A GPU process: one model replica (``load_engine``) behind a dynamic batcher.

It reads slot records from its inbox pipe, gathers up to ``max_batch`` slots (waiting at most
``max_delay_ms`` after the first one arrived), runs the engine once, writes each logits row into
the slot's output and sends a result record to the worker that owns the request. A batch whose
output is not one row per request fails as a whole (each request gets a 500, the shapes are logged)
and the replica goes on serving. Records of an
older generation (sent to a replica that died) are dropped: their requests were already failed.

A tiered start (CUDA, an engine compiled at conversion): the replica loads the engine uncompiled
(eager + CUDA graphs), warms it and says ready within seconds; a background thread then loads the
compiled engine from the bundle's cache and compiles its batch sizes, and the batcher, between two
batches, captures its CUDA graphs (a capture must not overlap other CUDA work, so only the serving
thread captures) and swaps it in ("upgraded" event). If the upgrade fails the replica keeps serving
uncompiled and says why.

On CUDA with the torch allocator the process caps its memory at its share with
``torch.cuda.set_per_process_memory_fraction``. The cap given (``gpu_memory_mb_per_proc``) is the
process's whole footprint as NVML sees it, so the CUDA context, measured through NVML after it is
created, is taken off first. A replica that exceeds its cap fails its batch (503) alone.
"""

from __future__ import annotations

import collections
import json
import os
import select
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from mlkit.engine.buckets import batch_buckets
from mlkit.engine.runtime import PendingLogits

from . import protocol as p
from .preload import server_state
from .procs import child_setup
from .replica_decode import decoder_for, put_rows, take_rows
from .slots import PoolLayout, SlotPool

MIB = 1024 * 1024
UPGRADE_POLL_S = 0.05  # while the compiled engine is prepared, an idle batcher wakes this often to take it
FALLBACK_CONTEXT_MB = 600  # when NVML cannot see this process (another pid namespace)


@dataclass(frozen=True)
class GpuArgs:
    index: int
    generation: int
    parent_pid: int
    layout: PoolLayout
    engine_dir: str
    device: str
    max_batch: int
    max_delay_ms: float
    memory_cap_mb: int
    forked: bool = False  # forked from the service's fork server (torch etc. already imported)
    tiered_start: bool = True  # CUDA + a compiled engine: ready uncompiled first, compiled swapped in later
    decode: str = "worker"  # ServerConfig.decode: whether this replica decodes JPEGs (:mod:`.replica_decode`)
    preprocess: dict[str, Any] = field(default_factory=dict)


def nvml_process_mb(pid: int | None = None) -> float | None:
    """This process's GPU memory as NVML reports it (context included), or None when not visible."""
    try:
        import pynvml
    except ImportError:
        return None
    pid = os.getpid() if pid is None else pid
    try:
        pynvml.nvmlInit()
        try:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
            handle = pynvml.nvmlDeviceGetHandleByIndex(int(visible) if visible.isdigit() else 0)
            for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                if proc.pid == pid and proc.usedGpuMemory:
                    return float(proc.usedGpuMemory) / MIB
        finally:
            pynvml.nvmlShutdown()
    except pynvml.NVMLError:
        return None
    return None


def apply_memory_cap(cap_mb: int, device: str) -> dict[str, Any]:
    """Create the CUDA context, measure it, and cap torch's allocator at ``cap_mb`` minus the context."""
    if cap_mb <= 0 or device == "cpu":
        return {"capped": False}
    try:
        import torch
    except ImportError:
        return {"capped": False, "reason": "torch missing"}
    if not torch.cuda.is_available():
        return {"capped": False, "reason": "no CUDA device"}
    torch.zeros(1, device="cuda")  # creates the context
    measured = nvml_process_mb()
    context_mb = measured if measured is not None else float(FALLBACK_CONTEXT_MB)
    _set_allocator_cap(cap_mb - context_mb, cap_mb, context_mb)
    return {"capped": True, "cap_mb": cap_mb, "context_mb": round(context_mb, 1),
            "context_measured_by": "nvml" if measured is not None else "fallback",
            "allocator_cap_mb": round(cap_mb - context_mb, 1)}


def _set_allocator_cap(allocator_mb: float, cap_mb: int, outside_mb: float) -> None:
    import torch

    if allocator_mb <= 0:
        raise MemoryError(f"gpu-memory-mb-per-proc {cap_mb} MiB leaves nothing for the engine after "
                          f"{outside_mb:.0f} MiB of CUDA context and libraries")
    total_mb = torch.cuda.get_device_properties(0).total_memory / MIB
    torch.cuda.set_per_process_memory_fraction(min(1.0, allocator_mb / total_mb))


def recalibrate_cap(memory: dict[str, Any]) -> None:
    """After warm-up: memory outside torch's allocator (context + kernels loaded lazily) is known; tighten
    the allocator's cap so the whole NVML footprint stays within the cap, or fail if it cannot."""
    if not memory.get("capped"):
        return
    footprint = nvml_process_mb()
    if footprint is None:
        return
    import torch

    reserved_mb = torch.cuda.memory_reserved() / MIB
    outside_mb = max(0.0, footprint - reserved_mb)
    allocator_mb = memory["cap_mb"] - outside_mb
    if reserved_mb > allocator_mb:
        raise MemoryError(f"the engine needs {footprint:.0f} MiB on the GPU (context and libraries "
                          f"{outside_mb:.0f} MiB), more than its cap of {memory['cap_mb']} MiB")
    _set_allocator_cap(allocator_mb, memory["cap_mb"], outside_mb)
    memory.update(outside_allocator_mb=round(outside_mb, 1), allocator_cap_mb=round(allocator_mb, 1))


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _free_cuda_cache() -> None:
    try:
        import torch

        if torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    except ImportError:
        pass


IN_FLIGHT = 2  # batches launched and not yet finished: the next one is prepared while the GPU runs one
IN_FLIGHT_POLL_S = 0.0005  # with a batch in flight and the next one filling, look at both this often


@dataclass
class _Launched:
    """A batch handed to the engine: its records, the JPEGs the decoder refused, its logits to come."""

    records: list[p.InboxRecord]
    refused: list[p.InboxRecord]
    logits: PendingLogits | None  # None: nothing was run (every JPEG refused) or the launch failed
    error: str = ""
    keep: list[Any] = field(default_factory=list)  # device memory the batch's queued work reads (decoded JPEGs)


@dataclass
class Batcher:
    """Dynamic batching over the inbox; the engine runs only in :meth:`launch`.

    Up to :data:`IN_FLIGHT` batches are in flight: on CUDA a launch returns once the batch is queued on the GPU,
    so the next batch is taken, decoded and queued while the GPU runs the previous one; results are sent in
    launch order. A staging buffer per batch in flight keeps a queued host-to-device copy from being
    overwritten."""

    args: GpuArgs
    runner: Any
    pool: SlotPool
    result_fds: list[int]
    control: Connection
    batch_limit: int
    pinned: bool = False  # stage batches in page-locked memory (CUDA): faster, asynchronous host-to-device copies
    pending: list[tuple[float, p.InboxRecord]] = field(default_factory=list)
    upgrading: bool = False  # a background thread is preparing the compiled engine (see upgrade_replica)
    decoder: Any = None  # a JpegDecoder when this replica decodes the JPEGs it is sent
    _next: tuple[Any, dict[str, Any]] | None = None  # (runner, event) handed over by that thread
    in_flight: collections.deque[_Launched] = field(default_factory=collections.deque)
    staging: list[np.ndarray] = field(init=False)

    def __post_init__(self) -> None:
        shape = (self.batch_limit, *self.args.layout.input_shape)
        self._launches = 0
        if self.pinned:
            import torch

            self._pinned = [torch.empty(shape, dtype=torch.float32, pin_memory=True) for _ in range(IN_FLIGHT)]
            self.staging = [t.numpy() for t in self._pinned]
        else:
            self.staging = [np.empty(shape, dtype=np.float32) for _ in range(IN_FLIGHT)]

    def accept(self, data: bytes, now: float) -> None:
        for rec in p.iter_inbox(data):
            if rec.kind == p.INBOX_FENCE:
                self.flush()
                self.control.send_bytes(json.dumps({"event": "fence", "id": rec.aux}).encode())
            elif rec.gpu_gen == self.args.generation:
                self.pending.append((now, rec))
            # else: meant for a dead predecessor; the worker already failed that request

    def flush(self) -> None:
        """Run everything pending and finish every batch in flight."""
        while self.pending:
            self.run_batch()
        self.drain()

    def drain(self) -> None:
        while self.in_flight:
            self.finish(self.in_flight.popleft())

    def hand_over(self, runner: Any, event: dict[str, Any]) -> None:
        """Called by the upgrade thread: swap ``runner`` in before the next batch (None: only report)."""
        self._next = (runner, event)

    def _swap_if_handed_over(self) -> None:
        handed, self._next = self._next, None
        if handed is None:
            return
        runner, event = handed
        if runner is not None:
            self.drain()  # a capture must not overlap other work on the GPU
            captured = time.monotonic()
            # The serving engine's graphs go first: the two engines' graphs never share the replica's cap.
            release = getattr(self.runner, "release_graphs", None)
            if release is not None:
                release()
            try:
                warm(runner, self.batch_limit)  # CUDA graph captures: here, where nothing else runs on the GPU
            except Exception as exc:  # e.g. out of memory under the replica's cap: it keeps serving uncompiled
                print(f"gpu-proc {self.args.index}: capturing the compiled engine failed ({type(exc).__name__}: "
                      f"{exc}); serving uncompiled", file=sys.stderr, flush=True)
                runner.close()
                _free_cuda_cache()
                if release is not None:
                    warm(self.runner, self.batch_limit)  # its graphs again, before the next batch
                event.update(compiled=False, note=f"{type(exc).__name__}: {exc}"[:300])
            else:
                event["capture_s"] = round(time.monotonic() - captured, 2)
                old, self.runner = self.runner, runner
                old.close()
                measured = nvml_process_mb()
                if measured is not None:
                    event["footprint_mb"] = round(measured, 1)  # the compiled engine's, CUDA graphs included
        self.upgrading = False
        self.control.send_bytes(json.dumps(event).encode())

    def due(self, now: float) -> bool:
        if len(self.pending) >= self.batch_limit:
            return True
        return bool(self.pending) and now >= self.pending[0][0] + self.args.max_delay_ms / 1000.0

    def wait_s(self, now: float) -> float | None:
        if self.in_flight and not self.pending:
            return 0.0  # look at the inbox, then finish the oldest batch
        poll = UPGRADE_POLL_S if self.upgrading else None  # wake to take a handed-over engine when idle
        if self.in_flight:
            poll = IN_FLIGHT_POLL_S
        if not self.pending:
            return poll
        due_in = max(0.0, self.pending[0][0] + self.args.max_delay_ms / 1000.0 - now)
        return due_in if poll is None else min(due_in, poll)

    def run_batch(self) -> None:
        """Launch the next batch (finishing the oldest first when the pipeline is full)."""
        if len(self.in_flight) >= IN_FLIGHT:
            self.finish(self.in_flight.popleft())
        self.in_flight.append(self.launch())

    def launch(self) -> _Launched:
        taken, self.pending = self.pending[:self.batch_limit], self.pending[self.batch_limit:]
        records = [rec for _, rec in taken]
        staging = self.staging[self._launches % IN_FLIGHT]
        self._launches += 1
        try:
            if any(rec.kind == p.INBOX_ENCODED for rec in records):
                return self._launch_decoding(records, staging)
            slots = np.fromiter((rec.slot for rec in records), dtype=np.int64, count=len(records))
            batch = staging[:len(records)]
            np.take(self.pool.inputs, slots, axis=0, out=batch)
            return _Launched(records, [], self.runner.infer_async(batch))
        except Exception as exc:  # e.g. torch.cuda.OutOfMemoryError at the cap: this replica fails alone
            return _Launched(records, [], None, f"{type(exc).__name__}: {exc}")

    def finish(self, launched: _Launched) -> None:
        """Wait for a launched batch, store its logits and send every result record."""
        records, status, rows = launched.records, p.RESULT_OK, 0
        try:
            if launched.error:
                raise RuntimeError(launched.error)
            if records and launched.logits is not None:
                status, rows = self._store(records, launched.logits.result())
        except Exception as exc:
            print(f"gpu-proc {self.args.index}: batch of {len(records)} failed: {exc}", file=sys.stderr, flush=True)
            status = p.RESULT_FAILED
            _free_cuda_cache()
        by_worker: dict[int, list[bytes]] = defaultdict(list)
        for n, rec in enumerate(records):
            by_worker[rec.worker].append(p.pack_result(rec.req_id, rec.slot, status, len(records) if n == 0 else 0,
                                                       self.args.index, rec.worker_gen, rows))
        for rec in launched.refused:
            by_worker[rec.worker].append(p.pack_result(rec.req_id, rec.slot, p.RESULT_UNDECODED, 0, self.args.index,
                                                       rec.worker_gen))
        for worker, recs in by_worker.items():
            p.write_records(self.result_fds[worker], recs)

    def _store(self, records: list[p.InboxRecord], logits: np.ndarray) -> tuple[int, int]:
        """Write each request's logits row into its slot; (status, rows) for the result records."""
        expected = (len(records), self.args.layout.num_classes)
        if tuple(np.shape(logits)) != expected:  # never broadcast one row into every request's slot
            print(f"gpu-proc {self.args.index}: batch of {len(records)} failed: the engine returned logits "
                  f"of shape {tuple(np.shape(logits))}, expected {expected} (one row per request)",
                  file=sys.stderr, flush=True)
            return p.RESULT_BAD_OUTPUT, int(np.shape(logits)[0]) if np.ndim(logits) else 0
        slots = np.fromiter((rec.slot for rec in records), dtype=np.int64, count=len(records))
        self.pool.outputs[slots] = logits
        return p.RESULT_OK, 0

    def _launch_decoding(self, records: list[p.InboxRecord], staging: np.ndarray) -> _Launched:
        """A batch holding encoded JPEGs: decode them on the device, add the tensors the workers wrote, and launch
        the engine on the device batch; the refused JPEGs go back to their workers."""
        import torch

        encoded = [i for i, rec in enumerate(records) if rec.kind == p.INBOX_ENCODED]
        decoded = self.decoder.decode([self.pool.encoded[records[i].slot, :records[i].aux] for i in encoded])
        tensors = [i for i, rec in enumerate(records) if rec.kind != p.INBOX_ENCODED]
        if not tensors and not decoded.refused:  # the usual batch: the decoded rows are the engine's input
            return _Launched(records, [], self.runner.infer_async(decoded.batch), keep=decoded.keep)
        batch = torch.empty((len(records), *self.args.layout.input_shape), dtype=torch.float32,
                            device=decoded.batch.device)
        if encoded:
            put_rows(batch, encoded, decoded.batch)
        if tensors:
            staged = staging[:len(tensors)]
            np.take(self.pool.inputs, [records[i].slot for i in tensors], axis=0, out=staged)
            put_rows(batch, tensors, torch.from_numpy(staged).to(batch.device, non_blocking=True))
        refused_rows = {encoded[j] for j in decoded.refused}
        if not refused_rows:
            return _Launched(records, [], self.runner.infer_async(batch), keep=decoded.keep)
        kept = [i for i in range(len(records)) if i not in refused_rows]
        refused = [records[i] for i in sorted(refused_rows)]
        return _Launched([records[i] for i in kept], refused,
                         self.runner.infer_async(take_rows(batch, kept)) if kept else None, keep=decoded.keep)

    def loop(self, inbox_fd: int) -> None:
        reader = p.RecordReader(inbox_fd)
        while True:
            if not self.in_flight:
                self._swap_if_handed_over()
            ready, _, _ = select.select([inbox_fd], [], [], self.wait_s(time.monotonic()))
            if ready:
                data, eof = reader.read()
                if eof:
                    return
                self.accept(data, time.monotonic())
            while self.due(time.monotonic()):
                self.run_batch()
            if self.in_flight and (not self.pending or self.in_flight[0].logits is None
                                   or self.in_flight[0].logits.ready()):
                self.finish(self.in_flight.popleft())


def tiered(args: GpuArgs, device: str) -> bool:
    """Whether this replica starts uncompiled and upgrades (CUDA, and an engine compiled at conversion)."""
    from mlkit.engine.runtime import compiles

    return args.tiered_start and device == "cuda" and compiles(Path(args.engine_dir))


def load_replica(args: GpuArgs) -> tuple[Any, dict[str, Any]]:
    """Cap memory, load the engine (uncompiled first on a tiered start), check its shapes and warm it.

    ``info["phases"]`` says what each step took (seconds): load (imports not preloaded, the compile
    cache, the module), first call (compiles batch 1) and warm-up (the other graphs, CUDA graph captures), and how many
    modules the replica imported itself."""
    from mlkit.engine.runtime import TorchRunner, load_engine, resolve_device

    started, modules = time.monotonic(), len(sys.modules)
    device = resolve_device(args.device)
    info: dict[str, Any] = {"device": device, "memory": apply_memory_cap(args.memory_cap_mb, device)}
    info["tiered"] = tiered(args, device)
    runner = load_engine(Path(args.engine_dir), device, compiled=not info["tiered"])
    loaded = time.monotonic()
    shape = tuple(runner.input_shape)
    if shape != args.layout.input_shape:
        raise ValueError(f"engine input shape {shape} differs from preprocess.json {args.layout.input_shape}")
    batch_limit = max(1, min(args.max_batch, int(runner.max_batch)))
    out = runner.infer(np.zeros((1, *shape), dtype=np.float32))
    first = time.monotonic()
    if tuple(out.shape) != (1, args.layout.num_classes):
        raise ValueError(f"engine returns logits of shape {tuple(out.shape)[1:]} but classes.json lists "
                         f"{args.layout.num_classes} classes")
    if isinstance(runner, TorchRunner) and runner.compiled:  # in the order the conversion cached them, then captures
        runner.compile_buckets()
    warm(runner, batch_limit)
    info["phases"] = {"load_s": round(loaded - started, 2), "first_call_s": round(first - loaded, 2),
                      "warmup_s": round(time.monotonic() - first, 2), "modules_imported": len(sys.modules) - modules}
    recalibrate_cap(info["memory"])
    info["batch_limit"] = batch_limit
    info["compiled"] = bool(getattr(runner, "compiled", False))
    measured = nvml_process_mb() if device == "cuda" else None
    if measured is not None:
        info["memory"]["footprint_mb"] = round(measured, 1)
    return runner, info


def make_decoder(args: GpuArgs, device: str) -> tuple[Any, str]:
    """This replica's JPEG decoder (None where the workers decode) and a word on it for the ready event.

    ``decode="replica"`` without torchvision is a load error (said, not silently ignored); ``"auto"`` decodes
    on CUDA only, where it takes the work off the CPU workers."""
    if args.decode == "worker" or not args.layout.encoded_bytes or (args.decode == "auto" and device != "cuda"):
        return None, "the CPU workers decode (PIL)"
    decoder, what = decoder_for(device, args.preprocess)
    if decoder is None and args.decode == "replica":
        raise ValueError(f"--decode replica: {what}")
    if decoder is not None:
        decoder.decode([_sample_jpeg(args.layout.input_shape[1])])  # nvJPEG's first call sets it up
    return decoder, what


def _sample_jpeg(size: int) -> np.ndarray:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (size, size), (128, 64, 32)).save(buffer, format="JPEG")
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()  # writable, as torch.from_numpy wants


def warm(runner: Any, batch_limit: int) -> None:
    """Run every batch bucket once, largest first, so each bucket's CUDA graph is captured before it serves (a
    compiled engine has compiled its buckets already, smallest first: see ``TorchEngine.warm``)."""
    shape = tuple(runner.input_shape)
    for size in reversed(batch_buckets(batch_limit)):
        runner.infer(np.zeros((size, *shape), dtype=np.float32))


def upgrade_replica(args: GpuArgs, batcher: Batcher, started: float) -> None:
    """Thread body of a tiered start: load the compiled engine and compile its batch sizes (no CUDA graph
    capture here), then hand it to the batcher, which captures and swaps it in."""
    from mlkit.engine.runtime import TorchRunner, load_engine

    begun = time.monotonic()
    event: dict[str, Any] = {"event": "upgraded", "compiled": False}
    try:
        runner = load_engine(Path(args.engine_dir), "cuda")
        if isinstance(runner, TorchRunner) and runner.compiled:
            runner.compile_buckets()
        if not (isinstance(runner, TorchRunner) and runner.compiled):  # a target mismatch or a failed compile
            runner.close()  # (said on stderr)
            batcher.hand_over(None, {**event, "note": "the engine did not compile here; serving uncompiled"})
            return
    except Exception as exc:  # e.g. out of memory under the replica's cap: it keeps serving uncompiled
        print(f"gpu-proc {args.index}: the compiled engine failed to load ({type(exc).__name__}: {exc}); "
              "serving uncompiled", file=sys.stderr, flush=True)
        batcher.hand_over(None, {**event, "note": f"{type(exc).__name__}: {exc}"[:300]})
        return
    now = time.monotonic()
    batcher.hand_over(runner, {**event, "compiled": True, "upgrade_s": round(now - begun, 2),
                               "compiled_after_s": round(now - started, 2)})


def gpu_main(args: GpuArgs, inbox: Connection, results: list[Connection], control: Connection) -> None:
    """Process entry point (forked from the supervisor's fork server, or spawned)."""
    child_setup(args.parent_pid, forked=args.forked)
    pool = SlotPool.attach(args.layout)
    started = time.monotonic()
    try:
        runner, info = load_replica(args)
        decoder, info["decoder"] = make_decoder(args, info["device"])
        info["decodes_jpeg"] = decoder is not None
        info["fork_server"] = server_state()
    except Exception as exc:  # reported to the supervisor, which restarts with back-off
        control.send_bytes(json.dumps({"event": "error", "error": f"{type(exc).__name__}: {exc}"}).encode())
        sys.exit(1)
    control.send_bytes(json.dumps({"event": "ready", "pid": os.getpid(), **info}).encode())
    batcher = Batcher(args, runner, pool, [c.fileno() for c in results], control, info["batch_limit"],
                      pinned=info["device"] == "cuda" and _has_torch(), upgrading=info["tiered"], decoder=decoder)
    if info["tiered"]:
        threading.Thread(target=upgrade_replica, args=(args, batcher, started), name="aipipe-upgrade",
                         daemon=True).start()
    batcher.loop(inbox.fileno())
