"""Back-pressure, timeouts, and process deaths under load: fail fast, recover, leave /dev/shm clean."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from steps.deploy.server import ServerConfig, launch
from steps.deploy.server.slots import segments

pytestmark = pytest.mark.timeout(300)


def png(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray((rng.random((40, 40, 3)) * 255).astype(np.uint8)).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    return write_tiny_engine_bundle(tmp_path_factory.mktemp("engine") / "bundle", num_classes=3, image_size=32)


def post(url: str, data: bytes, timeout: float = 30.0) -> tuple[int, float]:
    started = time.monotonic()
    try:
        code = requests.post(url + "/v1/predict", data=data, headers={"Content-Type": "image/png"},
                             timeout=timeout).status_code
    except requests.RequestException:
        code = -1
    return code, time.monotonic() - started


def metric(url: str, name: str) -> float:
    for line in requests.get(url + "/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    raise AssertionError(f"{name} not in /metrics")


def test_full_queue_answers_503_fast_then_recovers(engine_dir: Path) -> None:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, device="cpu", queue_size=4,
                              max_delay_ms=1500))
    try:
        with ThreadPoolExecutor(24) as pool:
            results = list(pool.map(lambda i: post(srv.url, png(i)), range(24)))
        ok = [t for code, t in results if code == 200]
        rejected = [t for code, t in results if code == 503]
        assert len(ok) + len(rejected) == 24 and 1 <= len(ok) <= 8 and len(rejected) >= 12
        assert min(ok) >= 1.0  # the admitted ones waited for their batch
        assert max(rejected) < min(ok), "a 503 must not wait for the queue to drain"
        assert float(np.median(rejected)) < 0.5, f"503s must be immediate: {sorted(rejected)}"
        body = requests.post(srv.url + "/v1/predict", data=png(99), headers={"Content-Type": "image/png"},
                             timeout=10)
        assert body.status_code == 200 and len(body.json()["predictions"]) == 3
        assert metric(srv.url, "aipipe_serving_queue_depth") == 0
    finally:
        assert srv.stop() == 0


def test_request_timeout_is_504_and_slot_comes_back(engine_dir: Path) -> None:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, device="cpu", queue_size=2,
                              max_delay_ms=1500, request_timeout_s=0.4))
    try:
        resp = requests.post(srv.url + "/v1/predict", data=png(1), headers={"Content-Type": "image/png"}, timeout=10)
        assert resp.status_code == 504 and "no answer within" in resp.json()["error"]
        deadline = time.monotonic() + 10
        while metric(srv.url, "aipipe_serving_queue_depth") != 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert metric(srv.url, "aipipe_serving_queue_depth") == 0  # freed once the batch finished
    finally:
        assert srv.stop() == 0


class Load:
    """Background load: ``threads`` clients posting good images until stopped; records (start, code, seconds)."""

    def __init__(self, url: str, threads: int) -> None:
        self.url, self.results, self.stop = url, [], threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]

    def _run(self, seed: int) -> None:
        data = png(seed)
        while not self.stop.is_set():
            started = time.monotonic()
            code, seconds = post(self.url, data)
            with self.lock:
                self.results.append((started, code, seconds))
            if code != 200:
                time.sleep(0.05)

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(30)


def wait_200_after(load: Load, since: float, limit_s: float) -> float:
    deadline = since + limit_s
    while time.monotonic() < deadline:
        with load.lock:
            done = [s + d for s, code, d in load.results if code == 200 and s > since]
        if done:
            return min(done) - since
        time.sleep(0.1)
    raise AssertionError(f"no successful request within {limit_s} s")


@pytest.mark.parametrize("kind", ["gpu", "cpu"])
def test_killed_process_under_load_fails_fast_and_recovers(engine_dir: Path, kind: str) -> None:
    shm_before = set(os.listdir("/dev/shm"))
    timeout_s = 5.0
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, gpu_procs=1, device="cpu",
                              request_timeout_s=timeout_s))
    try:
        info = srv.get_json("/v1/info")[1]
        prefix = info["shm_prefix"]
        victim = info[f"{kind}_processes" if kind == "gpu" else "cpu_workers"][0]["pid"]
        with Load(srv.url, threads=6) as load:
            wait_200_after(load, time.monotonic(), 20)
            killed_at = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            recovered = wait_200_after(load, killed_at + 0.2, 15)
            time.sleep(0.5)
        assert recovered < 15
        codes = {code for _, code, _ in load.results}
        assert codes <= {200, 503}, f"unexpected codes {codes}"
        slowest = max(seconds for _, _, seconds in load.results)
        assert slowest < timeout_s + 2, f"a request hung for {slowest:.1f} s"
        info = srv.get_json("/v1/info")[1]
        child = info[f"{kind}_processes" if kind == "gpu" else "cpu_workers"][0]
        assert child["pid"] != victim and child["restarts"] == 1 and child["ready"]
        assert [s.name for s in segments(prefix)] == [f"{prefix}-in", f"{prefix}-out"]  # nothing extra
        deadline = time.monotonic() + 10
        while metric(srv.url, "aipipe_serving_queue_depth") != 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert metric(srv.url, "aipipe_serving_queue_depth") == 0  # every slot came back
        assert post(srv.url, png(5))[0] == 200
    finally:
        assert srv.stop() == 0
    assert segments(prefix) == []
    leftovers = {n for n in set(os.listdir("/dev/shm")) - shm_before if n.startswith((prefix, "sem.mp"))}
    assert leftovers == set()
    assert json.dumps(info)  # info stays serialisable after restarts


@pytest.mark.parametrize("target", ["supervisor", "process-group"])
def test_sigterm_stops_children_and_removes_shared_memory(engine_dir: Path, target: str) -> None:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=2, gpu_procs=2, device="cpu"))
    info = srv.get_json("/v1/info")[1]
    pids = [c["pid"] for c in info["gpu_processes"] + info["cpu_workers"]]
    assert len(segments(info["shm_prefix"])) == 2
    if target == "process-group":  # how the local deployer stops an instance: every process gets SIGTERM
        os.killpg(srv.pid, signal.SIGTERM)
        assert srv.process.wait(30) == 0
    else:
        assert srv.stop() == 0
    assert segments(info["shm_prefix"]) == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_engine_that_cannot_load_stops_the_service_with_a_clear_error(engine_dir: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    broken = tmp_path / "broken"
    shutil.copytree(engine_dir, broken)
    (broken / json.loads((broken / "engine.json").read_text())["file"]).write_bytes(b"not an onnx model")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "steps.deploy.server", "--engine-dir", str(broken), "--port", "0",
                           "--device", "cpu", "--cpu-workers", "1"], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 2, proc.stderr
    assert "could not load the engine" in proc.stderr and "Traceback" not in proc.stderr
    assert time.monotonic() - started < 90


def test_supervisor_killed_with_sigkill_leaves_no_processes_or_shared_memory(engine_dir: Path) -> None:
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, device="cpu"))
    info = srv.get_json("/v1/info")[1]
    pids = [c["pid"] for c in info["gpu_processes"] + info["cpu_workers"]]
    assert len(segments(info["shm_prefix"])) == 2
    os.kill(srv.pid, signal.SIGKILL)
    srv.process.wait(10)

    def alive(pid: int) -> bool:  # a zombie waiting for a non-reaping init counts as gone
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    deadline = time.monotonic() + 15
    while (any(map(alive, pids)) or segments(info["shm_prefix"])) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(alive, pids)), "children outlived their supervisor"
    assert segments(info["shm_prefix"]) == []


def test_launch_interrupted_while_waiting_leaves_no_service(engine_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (or a benchmark's SIGTERM handler) while ``launch`` waits for readiness stops the child it started."""
    from steps.deploy.server.launcher import RunningServer

    started: list[RunningServer] = []

    def interrupted(self: RunningServer, timeout_s: float = 120.0) -> None:
        started.append(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(RunningServer, "wait_ready", interrupted)
    with pytest.raises(KeyboardInterrupt):
        launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, device="cpu"))
    assert len(started) == 1
    assert started[0].process.poll() is not None, "the interrupted launch left its service running"
