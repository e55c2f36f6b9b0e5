"""Start a server as a child process in its own session, wait until it answers, stop it cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import requests

from aipipe.errors import ServiceUnavailable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


@dataclass
class ServerProcess:
    """A server child process, its URL and its log file."""

    name: str
    url: str
    proc: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def wait_healthy(self, health_path: str, timeout_s: float) -> None:
        """Poll ``url + health_path`` until it answers 200; raise with the log tail otherwise."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServiceUnavailable(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if requests.get(self.url + health_path, timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise ServiceUnavailable(f"{self.name} not healthy at {self.url} after {timeout_s:.0f} s:\n{self.log_tail()}")

    def stop(self, grace_s: float = 15.0) -> None:
        """SIGTERM the whole process group, then SIGKILL after ``grace_s``."""
        if self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass


def start_server(name: str, argv: Sequence[str], *, url: str, log: Path, cwd: Path,
                 env: Mapping[str, str] | None = None) -> ServerProcess:
    """Start ``argv`` detached from the terminal's signals (own session), logging to ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, cwd=cwd,
                                env={**os.environ, **(env or {})}, start_new_session=True)
    return ServerProcess(name=name, url=url, proc=proc, log=log)
