"""``--acceptors workers``: every CPU worker also accepts HTTP on the service's port (SO_REUSEPORT) and serves
what it accepts itself. Real server processes, a real engine bundle, real HTTP clients (each request on a new
connection, so the kernel spreads them over the sockets)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from steps.deploy.server import RunningServer, ServerConfig, launch

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    return write_tiny_engine_bundle(tmp_path_factory.mktemp("acceptors") / "engine", num_classes=3, image_size=32,
                                    max_batch=8)


def jpeg(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray((rng.random((40, 40, 3)) * 255).astype(np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def predict(url: str, seed: int) -> int:
    try:  # a new connection each time (no session): the kernel picks an acceptor per connection
        return requests.post(url + "/v1/predict", data=jpeg(seed), headers={"Content-Type": "image/jpeg"},
                             timeout=30).status_code
    except (requests.RequestException, OSError):  # a connection the kill cut, at any point of the exchange
        return -1


@pytest.fixture
def server(engine_dir: Path) -> Iterator[RunningServer]:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=2, gpu_procs=2, device="cpu",
                              max_batch=8, max_delay_ms=2, queue_size=64, acceptors="workers"))
    try:
        yield srv
    finally:
        srv.stop()


@contextlib.contextmanager
def steady_load(url: str, clients: int = 4) -> Iterator[list[int]]:
    """``clients`` threads posting one request after another until the block ends; yields their codes."""
    codes: list[int] = []
    stop = threading.Event()

    def load() -> None:
        seed = 0
        while not stop.is_set():
            codes.append(predict(url, seed))
            seed += 1

    threads = [threading.Thread(target=load) for _ in range(clients)]
    for t in threads:
        t.start()
    try:
        yield codes
    finally:
        stop.set()
        for t in threads:
            t.join()


def metric(url: str, line_start: str) -> float:
    for line in requests.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_workers_accept_and_answer_and_the_supervisor_counts_every_request(server: RunningServer) -> None:
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda seed: predict(server.url, seed), range(240)))
    assert codes == [200] * 240
    time.sleep(1.2)  # the acceptors report every 0.5 s
    _, info = server.get_json("/v1/info")  # forwarded to the supervisor when a worker accepted it
    assert info["acceptors"] == "workers" and info["in_flight"] == 0
    by_workers = sum(w["answered_own_requests"] for w in info["cpu_workers"])
    assert 0 < by_workers < 240 + 10  # the workers served most; the supervisor's socket takes its share
    assert all(w["answered_own_requests"] > 0 for w in info["cpu_workers"])
    total = metric(server.url, 'aipipe_serving_requests_total{code="200"}')
    assert total >= 240  # the supervisor's own + every worker's report (+ nothing lost)
    assert requests.get(server.url + "/readyz", timeout=10).json() == {"status": "ready"}


def test_a_killed_worker_is_replaced_after_the_fences_and_its_slots_serve_again(server: RunningServer) -> None:
    _, info = server.get_json("/v1/info")
    victim = info["cpu_workers"][0]
    with steady_load(server.url) as codes:
        time.sleep(1.0)
        os.kill(victim["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                _, now = server.get_json("/v1/info")
            except OSError:  # queued on the victim's socket when it died: Linux resets those (SO_REUSEPORT)
                time.sleep(0.2)
                continue
            replaced = now["cpu_workers"][0]
            if replaced["generation"] > victim["generation"] and replaced["ready"]:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the killed worker was not replaced")
        killed_at = len(codes)
        time.sleep(2.0)
    after = codes[killed_at + 20:]  # past the connections the kill cut
    assert after and all(c == 200 for c in after), after[:20]
    assert set(codes) <= {200, 503, -1}  # cut connections (-1) or the dead worker's requests (503) only
    with ThreadPoolExecutor(8) as pool:  # every slot of every acceptor is usable again
        assert set(pool.map(lambda seed: predict(server.url, seed), range(128))) == {200}
    time.sleep(1.2)
    assert server.get_json("/v1/info")[1]["in_flight"] == 0


def test_rolling_restart_with_worker_acceptors_fails_no_request(server: RunningServer) -> None:
    with steady_load(server.url) as codes:
        time.sleep(0.5)
        _, before = server.get_json("/v1/info")
        os.kill(server.pid, signal.SIGHUP)  # restart the replicas one at a time
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            _, now = server.get_json("/v1/info")
            gens = [g["generation"] for g in now["gpu_processes"]]
            if all(g > b["generation"] for g, b in zip(gens, before["gpu_processes"], strict=True)) and all(
                    g["ready"] for g in now["gpu_processes"]):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the rolling restart did not finish")
        time.sleep(0.5)
    assert len(codes) > 50 and set(codes) == {200}, sorted(set(codes))
