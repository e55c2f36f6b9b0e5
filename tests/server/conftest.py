"""A real ``aipipe server`` process on a free loopback port, with its own AIPIPE_HOME.

Its stdout (the terminal: the sign-in link) goes to ``home/server.out``, its stderr (the log) to
``home/server.log``. Its token is the one given, else the one it wrote to ``AIPIPE_HOME/server.token`` on first start;
``ServerProcess.http`` is a requests session that sends it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from aipipe.services.process import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ServerProcess:
    """One running ``aipipe server``."""

    url: str
    home: Path
    proc: subprocess.Popen[bytes]
    token: str | None = None
    http: requests.Session = field(default_factory=requests.Session)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def use_token(self, token: str | None) -> None:
        self.token = token
        self.http.headers.pop("Authorization", None)
        self.http.headers.update(self.headers())

    def stop(self, sig: int = signal.SIGINT) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(60)


def start_server(home: Path, token: str | None = None, port: int | None = None,
                 extra: tuple[str, ...] = ()) -> ServerProcess:
    """Start ``aipipe server`` (``extra``: more flags) and wait until it answers with its token."""
    port = port or free_port()
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": os.pathsep.join(
            filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH"))))}
    env.pop("AIPIPE_SERVER_TOKEN", None)
    env.pop("ARGO_TOKEN", None)
    cmd = [sys.executable, "-m", "aipipe.cli.main", "server", "--port", str(port)]
    if token:
        cmd += ["--auth-token", token]
    cmd += list(extra)
    home.mkdir(parents=True, exist_ok=True)
    with (home / "server.out").open("ab") as out, (home / "server.log").open("ab") as log:
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=out, stderr=log)
    server = ServerProcess(f"http://127.0.0.1:{port}", home, proc)
    server.use_token(token)
    file_token = "--auth-mode=server" not in extra and token is None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"aipipe server exited {proc.returncode}: {(home / 'server.out').read_text()}"
                               f"{(home / 'server.log').read_text()}")
        if file_token and server.token is None and (home / "server.token").is_file():
            server.use_token((home / "server.token").read_text().strip() or None)
        try:
            if server.http.get(f"{server.url}/api/v1/version", timeout=2).ok:
                return server
        except requests.ConnectionError:
            time.sleep(0.2)
    server.stop(signal.SIGKILL)
    raise RuntimeError("aipipe server did not start within 120 s")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = start_server(tmp_path / "home")
    yield srv
    srv.stop()
