"""Start the serving runtime as a child process and wait until it listens (and, by default, is ready).

Standard library only, so the deployer and tests can use it without importing the runtime.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from aipipe.errors import ServiceUnavailable

from .config import ServerConfig

LISTENING = "aipipe-serve: listening on "


@dataclass
class RunningServer:
    """A service started by :func:`launch`."""

    process: subprocess.Popen[str]
    url: str

    @property
    def pid(self) -> int:
        return self.process.pid

    def get_json(self, path: str, timeout_s: float = 5.0) -> tuple[int, Any]:
        """GET a JSON endpoint; returns (status, document)."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout_s) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        """Poll ``/readyz`` until 200; raises ServiceUnavailable on timeout or if the process exits."""
        deadline = time.monotonic() + timeout_s
        last: Any = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServiceUnavailable(f"serving process exited with {self.process.returncode} before ready")
            try:
                status, last = self.get_json("/readyz", timeout_s=2.0)
                if status == 200:
                    return
            except (OSError, ValueError) as exc:
                last = str(exc)
            time.sleep(0.2)
        raise ServiceUnavailable(f"service at {self.url} not ready after {timeout_s:g} s: {last}")

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGTERM, wait, SIGKILL if needed; returns the exit code."""
        return _terminate(self.process, timeout_s)


def _terminate(process: subprocess.Popen[str], timeout_s: float = 15.0) -> int:
    """SIGTERM (the runtime then stops its workers and replicas), wait, SIGKILL if needed; the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    return int(process.returncode)


def _forward(stream: IO[str], sink: IO[str] | None, found: threading.Event, box: list[str]) -> None:
    for line in stream:
        if not found.is_set() and line.startswith(LISTENING):
            box.append(line[len(LISTENING):].strip())
            found.set()
        if sink is not None:
            sink.write(line)
            sink.flush()
    found.set()


def launch(config: ServerConfig, *, wait_ready: bool = True, timeout_s: float = 120.0,
           log: IO[str] | None = None, env: dict[str, str] | None = None,
           python: str = sys.executable) -> RunningServer:
    """Run ``python -m steps.deploy.server`` with ``config``; returns once it listens (and is ready).

    ``config.port`` 0 picks a free port. The child's stderr goes to ``log`` (default: inherited).
    """
    repo_root = Path(__file__).resolve().parents[3]
    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(repo_root), child_env.get("PYTHONPATH")]))
    cmd = [python, "-m", str(__package__), *config.to_argv()]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log if log is not None else None, text=True,
                               env=child_env, cwd=repo_root, start_new_session=True)
    found, box = threading.Event(), list[str]()
    assert process.stdout is not None
    threading.Thread(target=_forward, args=(process.stdout, log, found, box), daemon=True).start()
    try:
        if not found.wait(timeout_s) or not box:
            code = _terminate(process, timeout_s=5.0)
            raise ServiceUnavailable(f"serving process did not start listening (exit code {code})")
        server = RunningServer(process, box[0])
        if wait_ready:
            server.wait_ready(timeout_s)
    except BaseException:  # not ready, or the caller interrupted (Ctrl-C, SIGTERM): no service left behind
        _terminate(process)
        raise
    return server
