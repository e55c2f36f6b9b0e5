"""An S3 endpoint (moto's ``moto_server``) on 127.0.0.1, started once per test session.

The ``s3_server`` fixture gives the endpoint, fake credentials, ``env()`` for aipipe's config and
``fresh_root()`` for a unique ``s3://bucket/prefix`` per test; ``storage()`` builds an
:class:`aipipe.storage.Storage` that talks to it through the minio SDK.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from aipipe.config import Config, load_config
from aipipe.services.process import free_port
from aipipe.storage import Storage

S3_ACCESS_KEY = "aipipe-test-access"
S3_SECRET_KEY = "aipipe-test-secret"  # fake: moto accepts any credentials
BUCKET = "aipipe-test"


@dataclass
class S3Server:
    endpoint: str
    access_key: str = S3_ACCESS_KEY
    secret_key: str = S3_SECRET_KEY
    bucket: str = BUCKET

    def env(self, root: str | None = None) -> dict[str, str]:
        """Environment for aipipe (steps, engine) to use this endpoint, with ``root`` as storage root."""
        env = {"AIPIPE_S3_ENDPOINT": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
               "AWS_SECRET_ACCESS_KEY": self.secret_key, "AIPIPE_S3_REGION": "us-east-1"}
        if root:
            env["AIPIPE_STORAGE_ROOT"] = root
        return env

    def config(self, root: str | None = None) -> Config:
        return load_config(env=self.env(root))

    def storage(self) -> Storage:
        return Storage.from_config(self.config())

    def fresh_root(self) -> str:
        """A storage root no other test uses."""
        return f"s3://{self.bucket}/{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    executable = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or shutil.which("moto_server")
    if executable is None:
        pytest.fail("moto_server is not installed (pip install 'moto[server]')")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([executable, "-H", "127.0.0.1", "-p", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, "MOTO_ALLOW_NONEXISTENT_REGION": "true"})
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"moto_server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
            try:
                requests.get(f"{endpoint}/moto-api/", timeout=2)
                break
            except requests.RequestException:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"moto_server not up after 120 s:\n{log.read_text()[-2000:]}") from None
                time.sleep(0.3)
        yield S3Server(endpoint=endpoint)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
