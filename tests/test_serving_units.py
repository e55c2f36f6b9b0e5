"""Serving runtime parts without HTTP: shared-memory slot pool, control records, batching, imaging."""

from __future__ import annotations

import io
import json
import multiprocessing as mp
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aipipe.errors import UserError
from mlkit.engine.runtime import PendingLogits
from steps.deploy.server import protocol as p
from steps.deploy.server.config import ServerConfig, load_serving_spec, parse_config, within_share
from steps.deploy.server.cpu_worker import CpuWorker, WorkerArgs
from steps.deploy.server.gpu_worker import Batcher, GpuArgs
from steps.deploy.server.imaging import BadRequest, Preprocessor, parse_json_request, top_k
from steps.deploy.server.slots import PoolLayout, SlotPool, new_prefix, remove_stale_segments, segments

pytestmark = pytest.mark.timeout(120)

PRE = {"input_size": 16, "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "layout": "NCHW",
       "color": "RGB"}


def _png(size: tuple[int, int] = (40, 30), color: tuple[int, int, int] = (200, 30, 90)) -> bytes:
    buf = io.BytesIO()
    rng = np.random.default_rng(0)
    pixels = (rng.random((size[1], size[0], 3)) * 255).astype(np.uint8)
    pixels[..., 0] = color[0]
    Image.fromarray(pixels).save(buf, "PNG")
    return buf.getvalue()


def _fill_slot(layout: PoolLayout, slot: int, value: float) -> None:
    pool = SlotPool.attach(layout)
    pool.inputs[slot] = value
    pool.outputs[slot] = value * 2
    pool.close()


@pytest.fixture
def pool():
    layout = PoolLayout(new_prefix(), slots=4, input_shape=(3, 16, 16), num_classes=5)
    created = SlotPool.create(layout)
    yield created
    created.close()
    assert segments(layout.prefix) == []


def test_slot_pool_round_trip_across_processes(pool: SlotPool) -> None:
    names = [s.name for s in segments(pool.layout.prefix)]
    assert names == [pool.layout.input_name, pool.layout.output_name]
    child = mp.get_context("spawn").Process(target=_fill_slot, args=(pool.layout, 2, 1.5))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert np.all(pool.inputs[2] == 1.5) and np.all(pool.outputs[2] == 3.0)
    assert np.all(pool.inputs[1] == 0.0)  # other slots untouched


def test_stale_segments_of_a_dead_supervisor_are_removed() -> None:
    dead = mp.get_context("spawn").Process(target=os.getpid)
    dead.start()
    dead.join(30)
    layout = PoolLayout(f"aipipe-srv-{dead.pid}-deadbeef", 1, (3, 2, 2), 2)
    orphan = SlotPool.create(layout)
    orphan._owner = False  # simulate a supervisor killed with -9: nothing unlinks on close
    orphan.close()
    assert len(segments(layout.prefix)) == 2
    removed = remove_stale_segments()
    assert set(removed) >= {layout.input_name, layout.output_name}
    assert segments(layout.prefix) == []


def test_control_records_are_tiny_and_carry_no_tensor() -> None:
    assert len(p.pack_request(3, 123456789, 7, 1, 2)) == p.RECORD_SIZE == 32
    assert len(p.pack_result(123456789, 7, p.RESULT_OK, 16, 0, 2)) == 32
    rec = next(p.iter_inbox(p.pack_request(3, 123456789, 7, 1, 2)))
    assert (rec.kind, rec.gpu_gen, rec.req_id, rec.slot, rec.worker, rec.worker_gen) == (p.INBOX_REQUEST, 3,
                                                                                          123456789, 7, 1, 2)
    head, payload = p.unpack_job(p.pack_job(p.JobHeader(5, p.JOB_RAW, 1, 0, 1, 3), b"img"))
    assert head == p.JobHeader(5, p.JOB_RAW, 1, 0, 1, 3) and bytes(payload) == b"img"
    decoder = p.FrameDecoder()
    stream = p.frame(b"a" * 10) + p.frame(b"") + p.frame(b"xyz")
    assert decoder.feed(stream[:7]) == [] and decoder.feed(stream[7:]) == [b"a" * 10, b"", b"xyz"]


def test_record_reader_keeps_partial_records() -> None:
    r, w = os.pipe()
    try:
        data = p.pack_request(1, 1, 0, 0, 1) + p.pack_request(1, 2, 1, 0, 1)
        os.write(w, data[:40])
        reader = p.RecordReader(r)
        first, _ = reader.read()
        os.write(w, data[40:])
        second, _ = reader.read()
        assert [x.req_id for x in p.iter_inbox(first + second)] == [1, 2]
    finally:
        os.close(r)
        os.close(w)


class _RecordingRunner:
    def __init__(self, num_classes: int) -> None:
        self.batches: list[int] = []
        self.num_classes = num_classes

    def infer(self, batch: np.ndarray) -> np.ndarray:
        self.batches.append(batch.shape[0])
        # logits = per-item mean of the input, so each output traces its own slot's tensor
        return np.repeat(batch.reshape(batch.shape[0], -1).mean(axis=1, keepdims=True), self.num_classes, axis=1)

    def infer_async(self, batch: np.ndarray) -> PendingLogits:
        return PendingLogits(self.infer(batch))


class _Control:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send_bytes(self, data: bytes) -> None:
        self.sent.append(json.loads(data))


def _worker_and_batcher(pool: SlotPool, tmp_path: Path, max_delay_ms: float = 5.0, max_batch: int = 64):
    """A CpuWorker and a Batcher wired through real pipes, driven in this process."""
    inbox_r, inbox_w = os.pipe()
    result_r, result_w = os.pipe()
    replies_r, replies_w = mp.Pipe(duplex=False)
    args = WorkerArgs(0, 1, os.getpid(), pool.layout, PRE, ["a", "b", "c", "d", "e"], "7", 5)
    worker = CpuWorker(args, replies_w, [inbox_w])
    runner = _RecordingRunner(pool.layout.num_classes)
    gpu_args = GpuArgs(0, 1, os.getpid(), pool.layout, str(tmp_path), "cpu", max_batch, max_delay_ms, 0)
    batcher = Batcher(gpu_args, runner, pool, [result_w], _Control(), max_batch)  # type: ignore[arg-type]
    return worker, batcher, runner, (inbox_r, result_r, replies_r), (inbox_w, result_w)


def test_transport_sends_slot_ids_not_tensors(pool: SlotPool, tmp_path: Path) -> None:
    worker, batcher, runner, (inbox_r, result_r, replies_r), fds = _worker_and_batcher(pool, tmp_path)
    try:
        images = [_png(color=(c, 0, 0)) for c in (0, 120, 250)]
        for i, image in enumerate(images):
            worker.on_job(p.pack_job(p.JobHeader(100 + i, p.JOB_RAW, i, 0, 1, 2), image))
        inbox = os.read(inbox_r, 65536)
        tensor_bytes = int(np.prod(pool.layout.input_shape)) * 4
        assert len(inbox) == 3 * p.RECORD_SIZE < tensor_bytes  # 96 bytes of control for 3 tensors of 3 KiB
        batcher.accept(inbox, now=0.0)
        assert batcher.due(now=1.0)
        batcher.flush()
        assert runner.batches == [3]
        results = os.read(result_r, 65536)
        assert len(results) == 3 * p.RECORD_SIZE
        worker.on_results(results)
        replies = [p.unpack_reply(replies_r.recv_bytes()) for _ in range(3)]
        expected = [Preprocessor(PRE).tensor(image).mean() for image in images]
        for i, reply in enumerate(replies):
            assert reply.req_id == 100 + i and reply.status == 200
            doc = json.loads(reply.body)
            assert doc["model_version"] == "7" and len(doc["predictions"]) == 2
            assert pool.outputs[i][0] == pytest.approx(expected[i], rel=1e-5)  # slot i holds its own result
        assert replies[0].batch_size == 3 and replies[1].batch_size == 0  # batch size reported once per batch
    finally:
        for fd in (inbox_r, result_r, *fds):
            os.close(fd)


def test_dead_replica_fails_pending_and_its_successor_drops_stale_records(pool: SlotPool, tmp_path: Path) -> None:
    worker, _, runner, (inbox_r, result_r, replies_r), fds = _worker_and_batcher(pool, tmp_path)
    try:
        worker.on_job(p.pack_job(p.JobHeader(1, p.JOB_RAW, 0, 0, 1, 1), _png()))
        stale = os.read(inbox_r, 65536)
        worker.on_job(p.pack_job(p.JobHeader(0, p.JOB_GPU_DOWN, -1, 0, 1, 0)))
        reply = p.unpack_reply(replies_r.recv_bytes())
        assert (reply.req_id, reply.status) == (1, 503) and "died" in json.loads(reply.body)["error"]
        successor = Batcher(GpuArgs(0, 2, os.getpid(), pool.layout, str(tmp_path), "cpu", 64, 5.0, 0), runner,
                            pool, [fds[1]], _Control(), 64)  # type: ignore[arg-type]
        successor.accept(stale, now=0.0)
        assert successor.pending == []
    finally:
        for fd in (inbox_r, result_r, *fds):
            os.close(fd)


def test_batcher_waits_at_most_max_delay_and_caps_batch(pool: SlotPool, tmp_path: Path) -> None:
    _, batcher, runner, (inbox_r, result_r, _), fds = _worker_and_batcher(pool, tmp_path, max_delay_ms=20,
                                                                          max_batch=3)
    try:
        batcher.accept(p.pack_request(1, 1, 0, 0, 1), now=10.0)
        assert not batcher.due(now=10.0)
        assert batcher.wait_s(now=10.005) == pytest.approx(0.015)
        assert batcher.due(now=10.020)  # a lone request runs once max_delay has passed
        batcher.accept(b"".join(p.pack_request(1, i, i % 4, 0, 1) for i in range(2, 6)), now=10.001)
        assert batcher.due(now=10.001)  # full batch: no waiting
        while batcher.due(now=10.001):
            batcher.run_batch()
        assert runner.batches == [3] and len(batcher.pending) == 2
        fence = p.pack_fence(9)
        batcher.accept(fence, now=10.002)  # a fence finishes everything before it, then answers
        assert runner.batches == [3, 2] and batcher.control.sent == [{"event": "fence", "id": 9}]
    finally:
        for fd in (inbox_r, result_r, *fds):
            os.close(fd)


def test_preprocess_matches_reference_and_decodes_jpeg_in_draft_mode() -> None:
    pre = Preprocessor(PRE)
    image = _png((64, 48))
    ref = np.asarray(Image.open(io.BytesIO(image)).convert("RGB").resize((16, 16), Image.Resampling.BILINEAR),
                     dtype=np.float32) / 255.0
    ref = ((ref - np.array(PRE["mean"])) / np.array(PRE["std"])).transpose(2, 0, 1)
    np.testing.assert_allclose(pre.tensor(image), ref, rtol=1e-5, atol=1e-5)
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), (10, 200, 30)).save(buf, "JPEG")
    tensor = pre.tensor(buf.getvalue())
    assert tensor.shape == (3, 16, 16) and tensor.dtype == np.float32
    with pytest.raises(BadRequest, match="cannot decode"):
        pre.tensor(b"\xff\xd8 not really a jpeg")
    with pytest.raises(BadRequest, match="empty"):
        pre.tensor(b"")


def test_json_request_and_top_k_validation() -> None:
    import base64

    data, k = parse_json_request(json.dumps({"image": base64.b64encode(b"abc").decode(), "top_k": 2}).encode(), 5)
    assert (data, k) == (b"abc", 2)
    for body, match in [(b"{", "invalid JSON"), (b"[]", "JSON object"), (b'{"image": 3}', "base64 string"),
                        (b'{"image": "@@@"}', "not valid base64"), (b'{"image": "YWJj", "top_k": 0}', "top_k"),
                        (b'{"image": "YWJj", "top_k": "x"}', "top_k")]:
        with pytest.raises(BadRequest, match=match):
            parse_json_request(body, 5)
    preds = top_k(np.array([0.0, 2.0, 1.0], dtype=np.float32), ["x", "y", "z"], 5)
    assert [d["class"] for d in preds] == ["y", "z", "x"]
    assert sum(d["probability"] for d in preds) == pytest.approx(1.0)
    with pytest.raises(ArithmeticError):
        top_k(np.array([np.nan, 1.0]), ["x", "y"], 1)


def test_config_validation_and_argv_round_trip(tmp_path: Path) -> None:
    cfg = ServerConfig(engine_dir=str(tmp_path), port=0, max_delay_ms=2.5, cpu_workers=3)
    assert parse_config(cfg.to_argv()) == cfg
    with pytest.raises(UserError, match="queue-size"):
        ServerConfig(engine_dir="x", queue_size=0)
    with pytest.raises(UserError, match=r"engine\.json"):
        load_serving_spec(tmp_path)


class _OutOfMemoryRunner(_RecordingRunner):
    def infer(self, batch: np.ndarray) -> np.ndarray:
        raise MemoryError("CUDA out of memory (cap reached)")


def test_the_replicas_split_the_node_s_gpu_share_and_must_fit_it() -> None:
    cfg = ServerConfig(engine_dir="/e", gpu_procs=2, device="cuda")
    assert within_share(cfg, {}) is cfg  # no share: no cap added
    assert within_share(cfg, {"AIPIPE_GPU_MEMORY_MB": "9000"}).gpu_memory_mb_per_proc == 4500
    fits = ServerConfig(engine_dir="/e", gpu_procs=2, device="cuda", gpu_memory_mb_per_proc=4000)
    assert within_share(fits, {"AIPIPE_GPU_MEMORY_MB": "9000"}) is fits
    with pytest.raises(UserError, match="more than the node's GPU share of 7000 MiB") as err:
        within_share(fits, {"AIPIPE_GPU_MEMORY_MB": "7000"})
    assert err.value.field == "gpu-memory-mb-per-proc"
    with pytest.raises(UserError) as bad:
        within_share(cfg, {"AIPIPE_GPU_MEMORY_MB": "lots"})
    assert bad.value.field == "AIPIPE_GPU_MEMORY_MB"
    cpu = ServerConfig(engine_dir="/e", device="cpu")
    assert within_share(cpu, {"AIPIPE_GPU_MEMORY_MB": "9000"}) is cpu


def test_a_failing_batch_answers_503_and_the_replica_keeps_serving(pool: SlotPool, tmp_path: Path) -> None:
    worker, batcher, _, (inbox_r, result_r, replies_r), fds = _worker_and_batcher(pool, tmp_path)
    try:
        good_runner = batcher.runner
        batcher.runner = _OutOfMemoryRunner(pool.layout.num_classes)
        worker.on_job(p.pack_job(p.JobHeader(1, p.JOB_RAW, 0, 0, 1, 1), _png()))
        batcher.accept(os.read(inbox_r, 65536), now=0.0)
        batcher.flush()
        worker.on_results(os.read(result_r, 65536))
        reply = p.unpack_reply(replies_r.recv_bytes())
        assert (reply.req_id, reply.status) == (1, 503) and "failed" in json.loads(reply.body)["error"]
        batcher.runner = good_runner
        worker.on_job(p.pack_job(p.JobHeader(2, p.JOB_RAW, 1, 0, 1, 1), _png()))
        batcher.accept(os.read(inbox_r, 65536), now=0.0)
        batcher.flush()
        worker.on_results(os.read(result_r, 65536))
        assert p.unpack_reply(replies_r.recv_bytes()).status == 200
    finally:
        for fd in (inbox_r, result_r, *fds):
            os.close(fd)


def test_a_pool_larger_than_dev_shm_fails_clearly_and_leaves_nothing() -> None:
    from aipipe.errors import UserError

    free = os.statvfs("/dev/shm")
    slots = int(free.f_bavail * free.f_frsize // (3 * 1024 * 1024 * 4)) + 8  # more than /dev/shm can hold
    layout = PoolLayout(new_prefix(), slots, (3, 1024, 1024), 2)
    with pytest.raises(UserError, match="lower --queue-size or enlarge /dev/shm"):
        SlotPool.create(layout)
    assert segments(layout.prefix) == []
