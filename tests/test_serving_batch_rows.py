"""A batch whose engine output is not one row per request fails loudly (500 to each request, logged);
the replica goes on serving. Real server process, ONNX Runtime engine exported from a tiny torch model."""

from __future__ import annotations

import io
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests
import torch
from PIL import Image
from torch import nn

from steps.deploy.server import ServerConfig, launch

pytestmark = pytest.mark.timeout(300)

BATCH = 4


class FirstRowOnly(nn.Module):
    """Right at batch 1 (so it loads and warms up), one row for any batch: the case a batcher must catch."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)[:1]


@pytest.fixture(scope="module")
def first_row_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mlkit.engine.runtime import load_engine
    from mlkit.export import export_onnx
    from mlkit.fixtures import write_tiny_model_bundle
    from mlkit.model import load_model_bundle
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    root = tmp_path_factory.mktemp("rows")
    bundle = write_tiny_engine_bundle(root / "engine", num_classes=3, image_size=32, max_batch=8)
    model, _, _ = load_model_bundle(write_tiny_model_bundle(root / "model", num_classes=3, image_size=32))
    export_onnx(FirstRowOnly(model), bundle / json.loads((bundle / "engine.json").read_text())["file"], 32)
    runner = load_engine(bundle, "cpu")  # the premise: one row back for a batch of BATCH
    assert runner.infer(np.zeros((BATCH, 3, 32, 32), np.float32)).shape == (1, 3)
    return bundle


def png(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray((rng.random((40, 40, 3)) * 255).astype(np.uint8)).save(buf, "PNG")
    return buf.getvalue()


def predict(url: str, seed: int) -> requests.Response:
    return requests.post(url + "/v1/predict", data=png(seed), headers={"Content-Type": "image/png"}, timeout=30)


def test_wrong_row_count_fails_the_batch_with_500_and_the_replica_keeps_serving(first_row_engine: Path,
                                                                              tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log:
        srv = launch(ServerConfig(engine_dir=str(first_row_engine), port=0, cpu_workers=1, gpu_procs=1,
                                  device="cpu", max_batch=8, max_delay_ms=1500), log=log)
        try:
            _, before = srv.get_json("/v1/info")
            with ThreadPoolExecutor(BATCH) as pool:  # within max_delay_ms of each other: one batch
                answers = list(pool.map(lambda seed: predict(srv.url, seed), range(BATCH)))
            assert [a.status_code for a in answers] == [500] * BATCH, [a.text for a in answers]
            for answer in answers:
                error = answer.json()["error"]
                assert "returned 1 output row(s) for a batch, not one per request" in error
                assert "engine is faulty" in error
            alone = predict(srv.url, 99)  # a batch of one: the engine's one row is right, so it is served
            assert alone.status_code == 200, alone.text
            assert len(alone.json()["predictions"]) == 3
            assert srv.get_json("/readyz")[0] == 200
            _, after = srv.get_json("/v1/info")
            replica = after["gpu_processes"][0]
            assert replica["pid"] == before["gpu_processes"][0]["pid"] and replica["restarts"] == 0
        finally:
            assert srv.stop() == 0
    text = log_path.read_text()
    assert f"batch of {BATCH} failed: the engine returned logits of shape (1, 3), expected ({BATCH}, 3)" in text
    assert "Traceback" not in text
