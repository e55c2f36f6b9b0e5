"""JPEGs decoded by the model replica (``--decode replica``) instead of the CPU workers: the encoded bytes go
through shared memory, the replica batch-decodes them (PIL on a CPU replica without torchvision, nvJPEG on a
GPU), and the answers match the workers' decode. Real server processes, a real engine bundle."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from steps.deploy.server import ServerConfig, launch
from steps.deploy.server.imaging import REPLICA_DECODE_MAX_PIXELS, Preprocessor

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    return write_tiny_engine_bundle(tmp_path_factory.mktemp("decode") / "engine", num_classes=3, image_size=32,
                                    max_batch=8)


def encode(seed: int, fmt: str = "JPEG", size: int = 48, **options: object) -> bytes:
    rng = np.random.default_rng(seed)
    pixels = (rng.random((size // 4, size // 4, 3)) * 255).astype(np.uint8)  # smooth: JPEG keeps it close
    image = Image.fromarray(pixels).resize((size, size), Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def predict(url: str, body: bytes, ctype: str = "image/jpeg") -> requests.Response:
    return requests.post(url + "/v1/predict?top_k=3", data=body, headers={"Content-Type": ctype}, timeout=60)


def probabilities(answer: requests.Response) -> dict[str, float]:
    assert answer.status_code == 200, answer.text
    return {p["class"]: p["probability"] for p in answer.json()["predictions"]}


def served(engine_dir: Path, decode: str, bodies: list[tuple[bytes, str]]) -> tuple[list[requests.Response], dict]:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, gpu_procs=1, device="cpu",
                              max_batch=8, max_delay_ms=20, decode=decode, encoded_slot_kb=64))
    try:
        _, info = srv.get_json("/v1/info")
        with ThreadPoolExecutor(8) as pool:  # concurrent: the replica decodes batches, not single images
            answers = list(pool.map(lambda item: predict(srv.url, *item), bodies))
        metrics = requests.get(srv.url + "/metrics", timeout=10).text
    finally:
        srv.stop()
    return answers, {"info": info, "metrics": metrics}


def test_replica_decode_answers_like_the_workers_and_falls_back_for_what_it_does_not_take(engine_dir: Path) -> None:
    bodies = [(encode(seed), "image/jpeg") for seed in range(12)]
    bodies += [(encode(20, "PNG"), "image/png"),  # not a JPEG: the worker decodes it
               (encode(21, progressive=True), "image/jpeg"),  # progressive: the worker
               (encode(22, size=48, quality=95) + b"\0" * 70_000, "image/jpeg"),  # over the 64 KiB byte area
               (encode(23, size=40), "image/jpeg")]  # another size in the same batch
    by_replica, replica = served(engine_dir, "replica", bodies)
    by_worker, _ = served(engine_dir, "worker", bodies)
    gpu = replica["info"]["gpu_processes"][0]["info"]
    assert gpu["decodes_jpeg"] is True and gpu["decoder"] in ("pil", "libjpeg-turbo")
    assert 'aipipe_serving_images_decoded_total{by="replica"} 13.0' in replica["metrics"]  # 12 + the other size
    assert 'aipipe_serving_images_decoded_total{by="worker"} 3.0' in replica["metrics"]  # PNG, progressive, large
    for ours, theirs in zip(by_replica, by_worker, strict=True):
        a, b = probabilities(ours), probabilities(theirs)
        assert max(a, key=a.__getitem__) == max(b, key=b.__getitem__)
        assert all(abs(a[k] - b.get(k, 0.0)) < 0.05 for k in a)  # resize filters differ slightly from PIL's draft


def test_a_jpeg_the_replica_cannot_decode_goes_back_to_the_worker_and_gets_its_400(engine_dir: Path) -> None:
    good = encode(1)
    broken = good[:200] + bytes(len(good) - 200)  # a valid header, then zeros: no decoder can read the scan
    answers, seen = served(engine_dir, "replica", [(broken, "image/jpeg"), (good, "image/jpeg"),
                                                   (broken, "image/jpeg")])
    assert answers[1].status_code == 200, answers[1].text
    assert 'aipipe_serving_images_decoded_total{by="replica"} 1.0' in seen["metrics"]
    for answer in (answers[0], answers[2]):
        assert answer.status_code in (200, 400), answer.text  # PIL may pad a truncated scan (200) or refuse (400)
        if answer.status_code == 400:
            assert "cannot decode" in answer.json()["error"]


def test_header_bounds_hold_before_the_bytes_reach_the_replica(engine_dir: Path) -> None:
    side = int(REPLICA_DECODE_MAX_PIXELS ** 0.5) + 8
    big = Image.new("RGB", (side, side), (10, 200, 30))
    buf = io.BytesIO()
    big.save(buf, "JPEG", quality=5)
    opened = Preprocessor({"input_size": 32, "mean": [0, 0, 0], "std": [1, 1, 1]}).open(buf.getvalue())
    assert not opened.replica_decodable(len(buf.getvalue()), 1 << 30)  # too many pixels for a replica batch
    bomb = bytearray(encode(2))
    height_at = bomb.index(b"\xff\xc0") + 5  # SOF0: precision, then height and width
    bomb[height_at:height_at + 4] = (60000).to_bytes(2, "big") + (60000).to_bytes(2, "big")
    answers, _ = served(engine_dir, "replica", [(bytes(bomb), "image/jpeg")])
    assert answers[0].status_code == 400 and "larger than" in answers[0].json()["error"]


def test_a_batch_of_mixed_sizes_lands_in_its_own_rows_in_order() -> None:
    """Two sizes interleave, so each size's rows are not consecutive (an index copy) while a one-size batch is a
    slice: every row must hold its own image, decoded alone for comparison."""
    import torch

    from steps.deploy.server.replica_decode import JpegDecoder

    pre = {"input_size": 32, "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25]}
    blobs = [encode(seed, size=48 if seed % 2 else 64) for seed in range(6)]
    decoder = JpegDecoder("cpu", pre, use_pil=True)
    arrays = [np.frombuffer(b, dtype=np.uint8) for b in blobs]
    mixed = decoder.decode(arrays)
    alone = torch.cat([decoder.decode([a]).batch for a in arrays])
    assert mixed.refused == [] and torch.allclose(mixed.batch, alone)
    same_size = decoder.decode(arrays[1::2]).batch
    assert torch.allclose(same_size, alone[1::2])


def test_rows_are_put_and_taken_by_slice_or_by_index() -> None:
    import torch

    from steps.deploy.server.replica_decode import put_rows, take_rows

    values = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    for rows in ([1, 2, 3], [4, 0, 2]):
        out = torch.zeros((5, 4))
        put_rows(out, rows, values)
        expected = torch.zeros((5, 4))
        expected[rows] = values
        assert torch.equal(out, expected) and torch.equal(take_rows(out, rows), values)
