"""Attacks on the inference server (``steps/deploy/server``), each against real server processes.

Deep or huge JSON and bodies, pixel bombs, near-limit images, crafted JPEGs and killed workers:
every attack is refused with the right status and message (or served within its budget), no worker
is lost to it, memory stays bounded, and good requests keep at least half their throughput with
none failing while 8 clients attack (:mod:`bench.serve_attack_bench` holds the load generator).
"""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from PIL import Image

from bench.serve_attack_bench import attack_payloads, good_payload, jpeg_bytes, png_bytes, run_schedule
from steps.deploy.server import RunningServer, ServerConfig, launch
from steps.deploy.server.imaging import MAX_JPEG_SCANS, MAX_PIXELS

pytestmark = pytest.mark.timeout(300)
MAX_BODY_MB = 1.0


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    return write_tiny_engine_bundle(tmp_path_factory.mktemp("engine") / "bundle", num_classes=3, image_size=32)


def start(engine_dir: Path) -> RunningServer:
    return launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=2, device="cpu",
                               max_body_mb=MAX_BODY_MB))


@pytest.fixture(scope="module")
def server(engine_dir: Path) -> Iterator[RunningServer]:
    srv = start(engine_dir)
    yield srv
    assert srv.stop() == 0


def post(srv: RunningServer, data: bytes, ctype: str, timeout: float = 30.0) -> requests.Response:
    return requests.post(srv.url + "/v1/predict", data=data, headers={"Content-Type": ctype}, timeout=timeout)


def workers(srv: RunningServer) -> list[dict[str, Any]]:
    return list(srv.get_json("/v1/info")[1]["cpu_workers"])


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for {pid}")


def assert_good_request(srv: RunningServer) -> None:
    resp = post(srv, good_payload(7).data, "image/png")
    assert resp.status_code == 200, resp.text
    assert len(resp.json()["predictions"]) == 3


@pytest.mark.parametrize("body,fragment", [
    (b"[" * 100_000, "nested deeper than 1024 levels"),
    (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested deeper than 1024 levels"),
    (b'{"image": ' + b"[" * 2000 + b"]" * 2000 + b"}", "nested deeper than 1024 levels"),
    (b'{"image": "YWJj", "top_k": 1e999}', "invalid JSON"),
    (b'{"image": "YWJj", "top_k": ' + b"9" * 5000 + b"}", "invalid JSON"),
    (b'{"image": "YWJj", "top_k": 1e300}', "top_k"),
    (b'{"image": "\xff\xfe"}', "invalid JSON"),
])
def test_deep_or_odd_json_is_400_and_no_worker_is_lost(server: RunningServer, body: bytes, fragment: str) -> None:
    before = workers(server)
    started = time.monotonic()
    resp = post(server, body, "application/json")
    assert resp.status_code == 400, resp.text
    assert fragment in resp.json()["error"]
    assert time.monotonic() - started < 2.0
    after = workers(server)
    assert [(w["pid"], w["restarts"]) for w in after] == [(w["pid"], w["restarts"]) for w in before]
    assert_good_request(server)


def test_deep_json_flood_costs_no_worker_and_no_memory(server: RunningServer) -> None:
    pids = [w["pid"] for w in workers(server)]
    peak_before = [peak_rss_mb(pid) for pid in pids]
    body = b"[" * 100_000
    for _ in range(40):  # the attack: one every 0.25 s made ~98 % of good requests fail
        assert post(server, body, "application/json").status_code == 400
    assert [w["pid"] for w in workers(server)] == pids
    growth = [peak_rss_mb(pid) - before for pid, before in zip(pids, peak_before, strict=True)]
    assert max(growth) < 20, f"peak RSS grew by {growth} MB"
    assert_good_request(server)


def test_huge_bodies_are_413_without_reading_them(server: RunningServer) -> None:
    limit = int(MAX_BODY_MB * 1024 * 1024)
    resp = post(server, b"x" * (limit + 1), "image/png")
    assert resp.status_code == 413 and "limit" in resp.json()["error"]
    big_json = json.dumps({"image": base64.b64encode(b"\0" * limit).decode()}).encode()
    resp = post(server, big_json, "application/json")
    assert resp.status_code == 413 and "limit" in resp.json()["error"]
    started = time.monotonic()
    resp = post(server, b"x" * (100 * limit), "image/png")  # 100 MB: refused from its Content-Length
    assert resp.status_code == 413 and time.monotonic() - started < 5.0

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        for _ in range(3):
            yield b"x" * limit

    resp = requests.post(server.url + "/v1/predict", data=chunks(), headers={"Content-Type": "image/png"}, timeout=30)
    assert resp.status_code == 413
    assert_good_request(server)


def test_oversized_uploads_wait_for_their_413_a_bounded_number_at_a_time(server: RunningServer) -> None:
    import selectors
    import socket
    from urllib.parse import urlsplit

    from steps.deploy.server.handlers import MAX_HELD, OVERSIZE_HOLD_S

    host, port = urlsplit(server.url).hostname, urlsplit(server.url).port
    count = MAX_HELD + 6
    head = (f"POST /v1/predict HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: image/png\r\n"
            f"Content-Length: {100 * 1024 * 1024}\r\n\r\n").encode()
    socks = [socket.create_connection((host, port), timeout=30) for _ in range(count)]
    try:
        started = time.monotonic()
        for sock in socks:
            sock.sendall(head + b"x" * 1024)  # the headers promise 100 MB; the rest never comes
        latencies: list[float] = []
        statuses: list[bytes] = []
        with selectors.DefaultSelector() as waiting:  # each answer timed when it arrives
            for sock in socks:
                waiting.register(sock, selectors.EVENT_READ, sock)
            while len(latencies) < count and time.monotonic() - started < 30:
                for key, _ in waiting.select(timeout=1.0):
                    latencies.append(time.monotonic() - started)
                    statuses.append(key.data.recv(4096).split(b" ", 2)[1])
                    waiting.unregister(key.fileobj)
    finally:
        for sock in socks:
            sock.close()
    assert statuses == [b"413"] * count
    ordered = sorted(latencies)
    at_once, held = ordered[:count - MAX_HELD], ordered[count - MAX_HELD:]
    assert max(at_once) < OVERSIZE_HOLD_S <= min(held), ordered  # the ones over the cap are answered at once
    assert_good_request(server)


def _tiff_header(width: int, height: int) -> bytes:
    """A little-endian TIFF whose IFD declares ``width``x``height`` 8-bit grey, with 16 bytes of strip."""
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8 + 2 + 12 * 9 + 4), (277, 3, 1, 1), (278, 4, 1, height), (279, 4, 1, 16)]
    ifd = len(entries).to_bytes(2, "little") + b"".join(
        tag.to_bytes(2, "little") + kind.to_bytes(2, "little") + count.to_bytes(4, "little")
        + value.to_bytes(4, "little") for tag, kind, count, value in entries) + bytes(4)
    return b"II*\x00" + (8).to_bytes(4, "little") + ifd + bytes(16)


@pytest.mark.parametrize("name", ["png-100k", "png-40mp", "tiff-bomb", "jpeg-header-bomb"])
def test_pixel_bombs_are_refused_from_the_header(server: RunningServer, name: str) -> None:
    import zlib

    if name == "png-100k":
        data, ctype, fragment = png_bytes(100_000, 100_000, idat=zlib.compress(bytes(1000))), "image/png", "larger"
    elif name == "png-40mp":  # the 127 KB PNG just under the pixel limit: over the decode budget now
        data, ctype, fragment = attack_payloads(0, ("png-40mp",))["png-40mp"].data, "image/png", "budget"
    elif name == "tiff-bomb":
        data, ctype, fragment = _tiff_header(60_000, 60_000), "image/tiff", "larger"
    else:  # a JPEG's SOF says 65000x65000 (Pillow reads the size from the header)
        jpeg = jpeg_bytes(16, 16)
        sof = jpeg.index(b"\xff\xc0")
        data = jpeg[:sof + 5] + (65000).to_bytes(2, "big") * 2 + jpeg[sof + 9:]
        ctype, fragment = "image/jpeg", "larger"
    pids = [w["pid"] for w in workers(server)]
    peak_before = [peak_rss_mb(pid) for pid in pids]
    started = time.monotonic()
    resp = post(server, data, ctype)
    elapsed = time.monotonic() - started
    assert resp.status_code == 400, resp.text
    assert fragment in resp.json()["error"], resp.json()
    assert elapsed < 1.0, f"refusing took {elapsed:.2f} s"
    growth = [peak_rss_mb(pid) - before for pid, before in zip(pids, peak_before, strict=True)]
    assert max(growth) < 20, f"peak RSS grew by {growth} MB"
    assert [w["pid"] for w in workers(server)] == pids


def test_near_limit_jpeg_is_draft_decoded_cheaply(server: RunningServer) -> None:
    data = jpeg_bytes(6300, 6300)  # 39.7 MP, just under MAX_PIXELS
    assert MAX_PIXELS >= 6300 * 6300
    pids = [w["pid"] for w in workers(server)]
    peak_before = [peak_rss_mb(pid) for pid in pids]
    timings = []
    for _ in range(3):
        started = time.monotonic()
        resp = post(server, data, "image/jpeg")
        timings.append(time.monotonic() - started)
        assert resp.status_code == 200, resp.text
    growth = [peak_rss_mb(pid) - before for pid, before in zip(pids, peak_before, strict=True)]
    # a full decode needs 6300*6300*3 bytes = 114 MiB for the pixels alone; draft mode decodes at 1/8
    assert max(growth) < 40, f"peak RSS grew by {growth} MB"
    assert min(timings) < 0.5, f"a 40 MP JPEG took {timings} s"


def test_costliest_accepted_png_is_served(server: RunningServer) -> None:
    resp = post(server, attack_payloads(0, ("png-budget",))["png-budget"].data, "image/png")
    assert resp.status_code == 200, resp.text


def test_crafted_jpeg_scans_and_foreign_formats_are_refused(server: RunningServer) -> None:
    jpeg = jpeg_bytes(64, 64)
    stuffing = b"\xff\xda" * (MAX_JPEG_SCANS + 1)
    comment = b"\xff\xfe" + (len(stuffing) + 2).to_bytes(2, "big") + stuffing  # counted like real SOS markers
    resp = post(server, jpeg[:2] + comment + jpeg[2:], "image/jpeg")
    assert resp.status_code == 400 and "scans" in resp.json()["error"], resp.text
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100000 100000\nshowpage\n"
    resp = post(server, eps, "application/octet-stream")  # EPS would run Ghostscript: not a format we open
    assert resp.status_code == 400 and "cannot decode" in resp.json()["error"]
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, "ICO")
    resp = post(server, buf.getvalue(), "application/octet-stream")
    assert resp.status_code == 400 and "cannot decode" in resp.json()["error"]


def test_an_image_that_breaks_the_decoder_is_500_and_the_worker_goes_on(server: RunningServer) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (20, 20), (1, 2, 3)).save(buf, "TIFF")
    strip_offsets = b"\x11\x01\x04\x00\x01\x00\x00\x00"  # tag 273, LONG, one value
    assert buf.getvalue().count(strip_offsets) == 1
    data = buf.getvalue().replace(strip_offsets, b"\x11\x01\x0a\x00\x01\x00\x00\x00")  # as a rational
    before = workers(server)
    resp = post(server, data, "image/tiff")  # Pillow raises TypeError: no check foresees it
    assert resp.status_code == 500
    assert resp.json()["error"] == "internal error while decoding the request: TypeError"
    assert [w["pid"] for w in workers(server)] == [w["pid"] for w in before]
    assert_good_request(server)


def test_killed_worker_is_replaced_and_only_its_requests_fail(engine_dir: Path) -> None:
    srv = start(engine_dir)
    try:
        results: list[tuple[float, int, str]] = []
        stop = threading.Event()

        def load() -> None:
            data = good_payload(3).data
            with requests.Session() as session:
                while not stop.is_set():
                    resp = session.post(srv.url + "/v1/predict", data=data, headers={"Content-Type": "image/png"},
                                        timeout=30)
                    results.append((time.monotonic(), resp.status_code, resp.text))

        threads = [threading.Thread(target=load) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        victim = workers(srv)[0]
        other = workers(srv)[1]
        os.kill(victim["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            first = workers(srv)[0]
            if first["pid"] != victim["pid"] and first["ready"]:
                break
            time.sleep(0.1)
        replaced_at = time.monotonic()
        time.sleep(1.5)
        stop.set()
        for t in threads:
            t.join(30)
        after = workers(srv)
        assert after[0]["pid"] != victim["pid"] and after[0]["restarts"] == 1 and after[0]["ready"]
        assert after[1]["pid"] == other["pid"] and after[1]["restarts"] == 0
        failed = [(code, text) for _, code, text in results if code != 200]
        assert all(code == 503 and "CPU worker died" in text for code, text in failed), failed
        assert len(failed) <= 4, f"{len(failed)} requests failed: only the dead worker's in-flight ones may"
        assert [code for at, code, _ in results if at > replaced_at + 0.5].count(200) > 10
        assert all(code == 200 for at, code, _ in results if at > replaced_at + 0.5)
    finally:
        assert srv.stop() == 0


def test_good_requests_keep_half_their_throughput_under_attack(server: RunningServer) -> None:
    names = ("deep-json", "huge-body", "pixel-bomb", "png-budget", "jpeg-40mp")
    attacks = list(attack_payloads(int(MAX_BODY_MB * 1024 * 1024), names).values())
    rows = run_schedule(server.url, attacks, clients=8, attackers=8, rounds=2, window_s=1.0)
    print(*map(json.dumps, rows), sep="\n")
    *per_attack, total = rows
    assert total["good_failed"] == {}, total
    low = [row for row in per_attack if row["kept"] < 0.5]
    if low:  # this machine is shared: measure the attacks below target once more before judging
        again = run_schedule(server.url, [a for a in attacks if a.label in {r["attack"] for r in low}], rounds=3)
        print(*map(json.dumps, again), sep="\n")
        *per_attack, total = again
        assert total["good_failed"] == {}, total
        low = [row for row in per_attack if row["kept"] < 0.5]
    assert not low, f"good throughput fell below half under attack: {low}"
    for row, name in zip(rows, names, strict=False):
        assert row["attack"] == name and sum(row["attack_codes"].values()) > 0


def test_slow_lane_hands_off_sheds_load_and_fails_on_a_dead_replica() -> None:
    """The CPU worker's slow lane driven directly (real pipes, shared memory and thread)."""
    import multiprocessing as mp
    import select

    import numpy as np

    from steps.deploy.server import protocol as p
    from steps.deploy.server.cpu_worker import CpuWorker, WorkerArgs
    from steps.deploy.server.slots import PoolLayout, SlotPool, new_prefix

    pre = {"input_size": 16, "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25]}
    pool = SlotPool.create(PoolLayout(new_prefix(), 16, (3, 16, 16), 3))
    inbox_r, inbox_w = os.pipe()
    os.set_blocking(inbox_r, False)
    replies_r, replies_w = mp.Pipe(duplex=False)
    worker = CpuWorker(WorkerArgs(0, 1, os.getpid(), pool.layout, pre, ["a", "b", "c"], "1", 2), replies_w, [inbox_w])
    buf = io.BytesIO()
    Image.fromarray((np.random.default_rng(0).random((600, 600, 3)) * 255).astype(np.uint8)).save(buf, "PNG")
    big = buf.getvalue()  # 0.36 MP: more than the loop decodes itself

    def job(req_id: int, slot: int, kind: int = p.JOB_RAW, gpu_gen: int = 1, body: bytes = big) -> bytes:
        return p.pack_job(p.JobHeader(req_id, kind, slot, 0, gpu_gen, 2), body)

    def collect() -> None:  # until the lane is idle (poll: the test process may hold descriptors past select's 1024)
        deadline = time.monotonic() + 20
        wake = select.poll()
        wake.register(worker.slow.wake_fd, select.POLLIN)
        while worker.slow.busy and time.monotonic() < deadline:
            wake.poll(1000)
            worker.on_slow_done()

    def replies() -> list[p.Reply]:
        out = []
        while replies_r.poll(0.2):
            out.append(p.unpack_reply(replies_r.recv_bytes()))
        return out

    try:
        worker.on_job(job(1, 0))
        assert replies() == [] and worker.pending == {}  # decoding in the lane, nothing handed off yet
        collect()
        record = next(p.iter_inbox(os.read(inbox_r, 4096)))
        assert (record.req_id, record.slot) == (1, 0) and 1 in worker.pending
        assert np.abs(pool.inputs[0]).sum() > 0  # the lane wrote the tensor into the request's slot

        worker.on_job(job(2, 1))
        worker.on_job(job(0, -1, p.JOB_GPU_DOWN))  # its replica died while the lane decoded
        collect()
        answers = replies()
        assert [(r.req_id, r.status) for r in answers] == [(1, 503), (2, 503)]  # the pending one, then the lane's
        assert all("died" in json.loads(r.body)["error"] for r in answers)
        with pytest.raises(BlockingIOError):
            os.read(inbox_r, 4096)  # nothing was handed to the dead replica

        depth = worker.slow.depth
        assert depth == 2  # 16 slots: an eighth of them
        for i in range(depth + 2):  # the lane is bounded: the rest is answered 503 at once
            worker.on_job(job(10 + i, 2 + i, gpu_gen=2))
        shed = replies()
        assert [r.req_id for r in shed] == [10 + depth, 11 + depth]
        assert all(r.status == 503 and "busy decoding large images" in json.loads(r.body)["error"] for r in shed)
        collect()
        assert len(list(p.iter_inbox(os.read(inbox_r, 4096)))) == depth
    finally:
        os.close(inbox_r)
        os.close(inbox_w)
        pool.close()
