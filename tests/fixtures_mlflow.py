"""A real MLflow tracking server for the tests: sqlite backend, proxied local artifact store.

Started once per test session on 127.0.0.1 and a free port; ``mlflow_server`` yields its URL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from aipipe.services.process import free_port

START_TIMEOUT_S = 120


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a running ``mlflow server`` (sqlite backend, artifacts served under its own folder)."""
    root = tmp_path_factory.mktemp("mlflow-server")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (root / "server.log").open("wb")
    mlflow_bin = Path(sys.executable).with_name("mlflow")
    proc = subprocess.Popen(
        [str(mlflow_bin), "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
         "--backend-store-uri", f"sqlite:///{root / 'mlflow.db'}",
         "--serve-artifacts", "--artifacts-destination", (root / "artifacts").as_uri()],
        stdout=log, stderr=subprocess.STDOUT, cwd=root,
        env={**os.environ, "MLFLOW_TRACKING_URI": ""},
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"mlflow server exited with {proc.returncode}: {(root / 'server.log').read_text()[-2000:]}")
            try:
                if requests.get(f"{url}/health", timeout=5).ok:
                    break
            except requests.RequestException:  # not up yet, or slow to answer on a loaded machine
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"mlflow server not healthy after {START_TIMEOUT_S}s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
