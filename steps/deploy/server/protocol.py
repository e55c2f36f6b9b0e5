"""Control messages between the proxy, the CPU workers and the GPU processes.

Tensors never travel here: they sit in the shared-memory slot pool (:mod:`.slots`); these
messages only name a slot. Two encodings, both without pickle:

- **records**: fixed 32-byte structs written with one ``os.write`` to a pipe that several
  processes write to (a GPU process's inbox, a CPU worker's result pipe). Writes of at most
  ``PIPE_BUF`` bytes are atomic on a pipe, so records from different writers never interleave.
- **frames**: a 4-byte big-endian length then the payload (the framing of
  :class:`multiprocessing.connection.Connection`), for one-writer pipes that carry variable-size
  data: the image bytes proxy → worker, the JSON answer worker → proxy, GPU process → proxy status.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

RECORD_SIZE = 32
PIPE_BUF = 4096  # POSIX minimum; Linux's value
RECORDS_PER_WRITE = PIPE_BUF // RECORD_SIZE
DEFAULT_PIPE_CAPACITY = 1 << 16  # Linux
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

# --- records to a GPU process's inbox -------------------------------------------------------
INBOX_REQUEST = 0  # a preprocessed tensor is in `slot`
INBOX_FENCE = 1  # sent by the proxy: answer once every record before this one is finished
INBOX_ENCODED = 2  # the encoded JPEG (`aux` bytes) is in `slot`'s byte area: the replica decodes it

_INBOX = struct.Struct("<iiqiiii")  # kind, gpu_gen, req_id, slot, worker, worker_gen, aux


class InboxRecord(NamedTuple):
    kind: int
    gpu_gen: int
    req_id: int
    slot: int
    worker: int
    worker_gen: int
    aux: int  # INBOX_FENCE: the fence id; INBOX_ENCODED: the encoded image's length in bytes


def pack_request(gpu_gen: int, req_id: int, slot: int, worker: int, worker_gen: int, encoded_len: int = 0) -> bytes:
    """A request record: the tensor is in ``slot`` (``encoded_len`` 0), or that many JPEG bytes are."""
    kind = INBOX_ENCODED if encoded_len else INBOX_REQUEST
    return _INBOX.pack(kind, gpu_gen, req_id, slot, worker, worker_gen, encoded_len)


def pack_fence(fence_id: int) -> bytes:
    return _INBOX.pack(INBOX_FENCE, 0, 0, -1, -1, 0, fence_id)


# --- records to a CPU worker's result pipe ---------------------------------------------------
RESULT_OK = 0
RESULT_FAILED = 1  # inference raised (e.g. the replica hit its memory cap)
RESULT_BAD_OUTPUT = 2  # the engine returned other than one output row per request; ``rows`` says how many
RESULT_UNDECODED = 3  # the replica's decoder refused the encoded image: the worker decodes it instead

_RESULT = struct.Struct("<qiiiiii")  # req_id, slot, status, batch_size (0 unless first of batch), gpu, worker_gen, rows


class ResultRecord(NamedTuple):
    req_id: int
    slot: int
    status: int
    batch_size: int
    gpu: int
    worker_gen: int
    rows: int  # RESULT_BAD_OUTPUT: the output rows the engine returned for the batch


def pack_result(req_id: int, slot: int, status: int, batch_size: int, gpu: int, worker_gen: int,
                rows: int = 0) -> bytes:
    return _RESULT.pack(req_id, slot, status, batch_size, gpu, worker_gen, rows)


assert _INBOX.size == RECORD_SIZE and _RESULT.size == RECORD_SIZE


class RecordReader:
    """Reads whole fixed-size records from a (non-blocking or ready) pipe fd, keeping partial tails."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._tail = b""

    def read(self, max_records: int = 1024) -> tuple[bytes, bool]:
        """One ``os.read``; returns (whole records, eof)."""
        try:
            data = os.read(self.fd, max_records * RECORD_SIZE)
        except BlockingIOError:
            return b"", False
        if not data:
            return b"", True
        data = self._tail + data
        cut = len(data) - len(data) % RECORD_SIZE
        self._tail = data[cut:]
        return data[:cut], False


def iter_inbox(data: bytes) -> Iterator[InboxRecord]:
    for fields in _INBOX.iter_unpack(data):
        yield InboxRecord(*fields)


def iter_results(data: bytes) -> Iterator[ResultRecord]:
    for fields in _RESULT.iter_unpack(data):
        yield ResultRecord(*fields)


def write_records(fd: int, records: list[bytes]) -> None:
    """Write records in atomic chunks of at most ``PIPE_BUF`` bytes (blocking fd)."""
    for start in range(0, len(records), RECORDS_PER_WRITE):
        chunk = b"".join(records[start:start + RECORDS_PER_WRITE])
        view = memoryview(chunk)
        written = os.write(fd, view)
        if written != len(chunk):  # cannot happen for <= PIPE_BUF on a blocking pipe
            raise OSError(f"short write on record pipe: {written} of {len(chunk)} bytes")


def fit_pipe(fd: int, records: int) -> None:
    """Make room in a pipe for ``records`` records (twice over), so writers never block on a restarting reader."""
    needed = 2 * records * RECORD_SIZE
    if needed > DEFAULT_PIPE_CAPACITY:
        with contextlib.suppress(OSError):  # capped by /proc/sys/fs/pipe-max-size (1 MiB by default)
            fcntl.fcntl(fd, F_SETPIPE_SZ, 1 << (needed - 1).bit_length())


# --- frames proxy -> CPU worker ----------------------------------------------------------------
JOB_RAW = 0  # payload: the encoded image
JOB_JSON = 1  # payload: {"image": base64, "top_k": k}
JOB_GPU_DOWN = 2  # a GPU process died: fail what is pending on (gpu, gpu_gen)
JOB_GPU_STATE = 3  # for a worker's own acceptor: replica `gpu` generation `gpu_gen` is in state `slot` (GPU_*)

GPU_READY = 1
GPU_DRAINING = 2  # a rolling restart drains it: no new requests

_JOB = struct.Struct("<qiiiiii")  # req_id, kind, slot, gpu, gpu_gen, top_k, device_decode


@dataclass(frozen=True)
class JobHeader:
    req_id: int
    kind: int
    slot: int
    gpu: int
    gpu_gen: int
    top_k: int
    device_decode: int = 0  # 1: the chosen replica decodes JPEGs itself (send the bytes, not a tensor)


def pack_job(header: JobHeader, payload: bytes = b"") -> bytes:
    return _JOB.pack(header.req_id, header.kind, header.slot, header.gpu, header.gpu_gen, header.top_k,
                     header.device_decode) + payload


def pack_gpu_state(gpu: int, gpu_gen: int, state: int, decodes: bool) -> bytes:
    """A JOB_GPU_STATE frame payload (the state rides in ``slot``, the decoder flag in ``device_decode``)."""
    return pack_job(JobHeader(0, JOB_GPU_STATE, state, gpu, gpu_gen, 0, int(decodes)))


def unpack_job(frame: bytes) -> tuple[JobHeader, memoryview]:
    view = memoryview(frame)
    return JobHeader(*_JOB.unpack_from(view)), view[_JOB.size:]


# --- frames CPU worker -> proxy ----------------------------------------------------------------
REPLY_ANSWER = 0  # an HTTP answer for req_id
REPLY_READY = 1  # the worker is up
REPLY_STATS = 2  # a worker's acceptor: JSON counts of the requests it served since its last report

DECODED_NONE = 0  # answered before any decode (an error), or a failed batch
DECODED_BY_WORKER = 1
DECODED_BY_REPLICA = 2
DECODED_BY = {DECODED_BY_WORKER: "worker", DECODED_BY_REPLICA: "replica"}

_REPLY = struct.Struct("<iqiii")  # kind, req_id, http status, batch size (0 = not the first of its batch), decoded by


class Reply(NamedTuple):
    kind: int
    req_id: int
    status: int
    batch_size: int
    body: bytes
    decoded_by: int = DECODED_NONE


def pack_reply(kind: int, req_id: int, status: int, batch_size: int, body: bytes,
               decoded_by: int = DECODED_NONE) -> bytes:
    return _REPLY.pack(kind, req_id, status, batch_size, decoded_by) + body


def unpack_reply(frame: bytes) -> Reply:
    kind, req_id, status, batch_size, decoded_by = _REPLY.unpack_from(frame)
    return Reply(kind, req_id, status, batch_size, bytes(frame[_REPLY.size:]), decoded_by)


def frame(payload: bytes) -> bytes:
    """Length-prefix a payload the way ``Connection.send_bytes`` does (for the asyncio side)."""
    return struct.pack("!i", len(payload)) + payload


class FrameDecoder:
    """Splits a byte stream of ``frame()``-encoded payloads (the asyncio side of a Connection)."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        while len(self._buf) >= 4:
            (size,) = struct.unpack_from("!i", self._buf)
            if len(self._buf) < 4 + size:
                break
            out.append(bytes(self._buf[4:4 + size]))
            del self._buf[:4 + size]
        return out
