"""The serving runtime end to end: the real process on a free port, an ONNX Runtime engine on CPU."""

from __future__ import annotations

import base64
import io
import json
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
from PIL import Image

from steps.deploy.server import ServerConfig, launch
from steps.deploy.server.imaging import Preprocessor

pytestmark = pytest.mark.timeout(300)

CLASSES = ["cat", "dog", "bird"]
REPO_ROOT = Path(__file__).resolve().parents[1]


def encode(image: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt)
    return buf.getvalue()


def sample_image(seed: int, size: tuple[int, int] = (48, 40)) -> Image.Image:
    rng = np.random.default_rng(seed)
    return Image.fromarray((rng.random((size[1], size[0], 3)) * 255).astype(np.uint8))


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    bundle = write_tiny_engine_bundle(tmp_path_factory.mktemp("engine") / "bundle", num_classes=3, image_size=32)
    (bundle / "classes.json").write_text(json.dumps(CLASSES))  # names must come from the shipped label map
    return bundle


@pytest.fixture(scope="module")
def server(engine_dir: Path):
    srv = launch(ServerConfig(engine_dir=str(engine_dir), port=0, cpu_workers=1, gpu_procs=1, device="cpu",
                              max_delay_ms=30, max_body_mb=0.25), timeout_s=120)
    yield srv
    assert srv.stop() == 0


def expected_probabilities(engine_dir: Path, data: bytes) -> np.ndarray:
    from mlkit.engine.runtime import load_engine

    pre = Preprocessor(json.loads((engine_dir / "preprocess.json").read_text()))
    logits = load_engine(engine_dir, "cpu").infer(pre.tensor(data)[None])[0].astype(np.float64)
    probs = np.exp(logits - logits.max())
    return probs / probs.sum()


def test_health_ready_info_and_metrics(server) -> None:
    assert server.get_json("/healthz") == (200, {"status": "ok"})
    assert server.get_json("/readyz")[0] == 200
    status, info = server.get_json("/v1/info")
    assert status == 200
    assert info["backend"] == "onnxruntime" and info["replicas"] == 1 and info["model_version"] == "1"
    assert info["classes"] == CLASSES and info["gpu_processes"][0]["ready"]
    metrics = requests.get(server.url + "/metrics", timeout=5)
    assert metrics.status_code == 200 and "aipipe_serving_queue_depth" in metrics.text
    assert "aipipe_serving_gpu_process_restarts_total" in metrics.text


@pytest.mark.parametrize("fmt,ctype", [("PNG", "image/png"), ("JPEG", "image/jpeg")])
def test_predict_raw_image(server, engine_dir: Path, fmt: str, ctype: str) -> None:
    data = encode(sample_image(1), fmt)
    resp = requests.post(server.url + "/v1/predict", data=data, headers={"Content-Type": ctype}, timeout=10)
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert doc["model_version"] == "1"
    preds = doc["predictions"]
    assert [p["class"] for p in preds] == [CLASSES[p["index"]] for p in preds] and len(preds) == 3
    probs = expected_probabilities(engine_dir, data)
    assert preds[0]["index"] == int(np.argmax(probs))
    for p in preds:
        assert p["probability"] == pytest.approx(probs[p["index"]], abs=1e-4)


def test_predict_base64_json_with_top_k(server, engine_dir: Path) -> None:
    data = encode(sample_image(2), "PNG")
    body = {"image": base64.b64encode(data).decode(), "top_k": 2}
    resp = requests.post(server.url + "/v1/predict", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    preds = resp.json()["predictions"]
    probs = expected_probabilities(engine_dir, data)
    assert len(preds) == 2 and preds[0]["class"] == CLASSES[int(np.argmax(probs))]
    assert preds[0]["probability"] >= preds[1]["probability"]
    raw = requests.post(server.url + "/v1/predict?top_k=1", data=data, headers={"Content-Type": "image/png"},
                        timeout=10)
    assert [p["class"] for p in raw.json()["predictions"]] == [preds[0]["class"]]


@pytest.mark.parametrize("data,ctype,status,fragment", [
    (b"definitely not an image", "image/jpeg", 400, "cannot decode"),
    (b"\x89PNG\r\n\x1a\n truncated", "image/png", 400, "cannot decode"),
    (b"hello", "text/plain", 400, "content type 'text/plain' not supported"),
    (b"a=b", "application/x-www-form-urlencoded", 400,
     "content type 'application/x-www-form-urlencoded' not supported"),
    (b'{"image": "%%%"}', "application/json", 400, "base64"),
    (b'{"picture": "abc"}', "application/json", 400, "image"),
    (b"{not json", "application/json", 400, "invalid JSON"),
    (b"", "image/png", 400, "empty"),
    (b"x" * 300_000, "image/png", 413, "limit"),
])
def test_bad_requests_get_json_errors(server, data: bytes, ctype: str, status: int, fragment: str) -> None:
    resp = requests.post(server.url + "/v1/predict", data=data, headers={"Content-Type": ctype}, timeout=10)
    assert resp.status_code == status
    assert resp.headers["Content-Type"].startswith("application/json")
    assert fragment in resp.json()["error"]


def test_wrong_content_type_lists_the_accepted_ones(server) -> None:
    resp = requests.post(server.url + "/v1/predict", data=b"<svg/>", headers={"Content-Type": "image/svg+xml"},
                         timeout=10)
    assert resp.status_code == 400
    message = resp.json()["error"]
    assert "'image/svg+xml'" in message
    assert all(accepted in message for accepted in ("image/jpeg", "image/png", "application/json"))


def test_port_in_use_is_one_line_and_exit_2(engine_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = ServerConfig(engine_dir=str(engine_dir), port=port, cpu_workers=1, gpu_procs=1, device="cpu").to_argv()
        proc = subprocess.run([sys.executable, "-m", "steps.deploy.server", *argv], cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    [line] = [line for line in proc.stderr.splitlines() if "error" in line]
    assert f"--port: cannot listen on 127.0.0.1:{port}" in line and "already in use" in line, proc.stderr


def test_bad_top_k_and_unknown_route(server) -> None:
    data = encode(sample_image(3), "PNG")
    resp = requests.post(server.url + "/v1/predict?top_k=abc", data=data, headers={"Content-Type": "image/png"},
                         timeout=10)
    assert resp.status_code == 400 and "top_k" in resp.json()["error"]
    missing = requests.get(server.url + "/nope", timeout=5)
    assert missing.status_code == 404 and "error" in missing.json()


def batch_histogram(server) -> tuple[float, float]:
    text = requests.get(server.url + "/metrics", timeout=5).text
    values = {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
              if line.startswith("aipipe_serving_batch_size_")}
    return values["aipipe_serving_batch_size_sum"], values["aipipe_serving_batch_size_count"]


def test_concurrent_requests_are_batched(server) -> None:
    images = [encode(sample_image(10 + i), "PNG") for i in range(24)]
    before_sum, before_count = batch_histogram(server)

    def post(data: bytes) -> int:
        return requests.post(server.url + "/v1/predict", data=data, headers={"Content-Type": "image/png"},
                             timeout=20).status_code

    with ThreadPoolExecutor(24) as pool:
        codes = list(pool.map(post, images))
    assert codes == [200] * 24
    after_sum, after_count = batch_histogram(server)
    requests_done, batches = after_sum - before_sum, after_count - before_count
    assert requests_done == 24
    assert batches < 24, f"{batches} batches for 24 concurrent requests: no batching"
