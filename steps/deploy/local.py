"""Local target (the embedded default): the serving runtime as a detached process that outlives the deploy node.

Layout under ``<AIPIPE_HOME>/deployments/<name>/``:

- ``current.json``: the instance now serving (pid, process start time, port, URL, model version, engine folder);
- ``<version>-<timestamp>/``: one folder per instance with its engine copy and ``server.log``;
- ``.lock``: held while a deploy or stop changes the deployment.

A deploy starts the new instance on a new free port in its own session (``start_new_session``: the engine's
node timeout or Ctrl-C never reaches it), gates it (``/readyz``, then a smoke prediction answered by the
new version), and only then points ``current.json`` at it and stops the previous instance. A failed gate
stops the new instance and leaves the previous one serving untouched.

The endpoint is the serving instance's own URL, so it changes when a new version takes over;
``aipipe deploy status`` (or the step's ``endpoint`` output) gives the current one. A fixed front port
would need a proxy hop on every request; the runtime's own front is already the proxy.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aipipe.errors import NotFoundError, UserError
from aipipe.services.process import free_port

from .health import HealthResult, gate, http_transport
from .sizing import Sizing

CURRENT = "current.json"
LOG_FILE = "server.log"
KEEP_INSTANCES = 3  # instance folders kept per deployment (the serving one and the latest failures)
STOP_GRACE_S = 15.0
REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Instance:
    """One running (or once running) serving process."""

    name: str
    model_version: str
    url: str
    port: int
    pid: int
    start_ticks: str  # process start time, so a recycled pid is never mistaken for ours
    engine_uri: str
    engine_dir: str
    log: str
    started_at: str
    sizing: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class LocalOutcome:
    endpoint: str
    previous_version: str = ""
    rolled_back: bool = False
    reused: bool = False
    health: HealthResult = field(default_factory=HealthResult)
    instance: dict[str, Any] = field(default_factory=dict)
    log_tail: str = ""


def _process_start(pid: int) -> str | None:
    """The process's start time (Linux ``/proc``); "" where unknown; None when it is gone or a zombie."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.is_dir() and Path("/proc/self/stat").exists():
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return None if fields[0] in ("Z", "X") else fields[19]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return ""
    return ""


def is_alive(inst: Instance) -> bool:
    start = _process_start(inst.pid)
    return start is not None and (start == inst.start_ticks or "" in (start, inst.start_ticks))


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class LocalDeployments:
    """The deployments under one AIPIPE_HOME."""

    def __init__(self, home: Path) -> None:
        self.root = Path(home) / "deployments"

    def folder(self, name: str) -> Path:
        return self.root / name

    @contextlib.contextmanager
    def locked(self, name: str) -> Iterator[None]:
        folder = self.folder(name)
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def current(self, name: str) -> Instance | None:
        path = self.folder(name) / CURRENT
        try:
            return Instance.from_dict(json.loads(path.read_text()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            raise UserError(f"unreadable deployment record {path}: {exc}", field="deployment") from exc

    def names(self) -> list[str]:
        return sorted(p.parent.name for p in self.root.glob(f"*/{CURRENT}")) if self.root.is_dir() else []

    def _write_current(self, inst: Instance) -> None:
        path = self.folder(inst.name) / CURRENT
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(inst.to_dict(), indent=2))
        os.replace(tmp, path)

    def start(self, name: str, engine_dir: Path, model_version: str, engine_uri: str, sizing: Sizing,
              device: str = "auto") -> tuple[Instance, subprocess.Popen[bytes]]:
        """Start the runtime detached (own session), logging to the instance folder."""
        port = free_port()
        folder = engine_dir.parent
        log_path = folder / LOG_FILE
        argv = [sys.executable, "-m", f"{__package__}.server", "--engine-dir", str(engine_dir),
                "--host", "127.0.0.1", "--port", str(port), "--gpu-procs", str(sizing.replicas),
                "--cpu-workers", str(sizing.cpu_workers),
                "--gpu-memory-mb-per-proc", str(sizing.gpu_memory_mb_per_replica), "--device", device]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    cwd=folder, env=env, start_new_session=True, close_fds=True)
        inst = Instance(name=name, model_version=model_version, url=f"http://127.0.0.1:{port}", port=port,
                        pid=proc.pid, start_ticks=_process_start(proc.pid) or "", engine_uri=engine_uri,
                        engine_dir=str(engine_dir), log=str(log_path),
                        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), sizing=sizing.to_dict())
        return inst, proc

    def terminate(self, inst: Instance, proc: subprocess.Popen[bytes] | None = None) -> None:
        """SIGTERM the instance's process group, SIGKILL after a grace period; a dead instance is a no-op."""
        if not is_alive(inst):
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(inst.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                break
            if proc is None and _process_start(inst.pid) is None:
                break
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(inst.pid, signal.SIGKILL)
        if proc is not None:
            proc.wait()

    def _prune(self, name: str, keep: Instance | None) -> None:
        folders = sorted((p for p in self.folder(name).iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        serving = Path(keep.engine_dir).parent if keep else None
        for old in [p for p in folders if p != serving][: max(0, len(folders) - KEEP_INSTANCES)]:
            shutil.rmtree(old, ignore_errors=True)

    def deploy(self, name: str, model_version: str, engine_uri: str, fetch: Any, sizing: Sizing, *,
               device: str = "auto", health_timeout_s: float = 120.0, error_grace_s: float = 15.0) -> LocalOutcome:
        """Start, gate, then swap; ``fetch(dest)`` copies the engine bundle into ``dest``."""
        with self.locked(name):
            previous = self.current(name)
            serving = previous if previous is not None and is_alive(previous) else None
            outcome = LocalOutcome(endpoint=serving.url if serving else "",
                                   previous_version=serving.model_version if serving else "")
            if serving and serving.model_version == model_version and serving.engine_uri == engine_uri:
                outcome.health = gate(http_transport(serving.url), model_version, timeout_s=5.0)
                if outcome.health.ok:  # a retried node: this version already serves, healthy
                    outcome.reused, outcome.instance = True, serving.to_dict()
                    return outcome
            folder = self.folder(name) / f"{model_version}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            engine_dir = fetch(folder / "engine")
            inst, proc = self.start(name, Path(engine_dir), model_version, engine_uri, sizing, device)
            outcome.instance = inst.to_dict()

            def exited() -> str | None:
                code = proc.poll()
                return None if code is None else f"the server exited with code {code} before it was ready"

            outcome.health = gate(http_transport(inst.url), model_version, health_timeout_s, alive=exited,
                                  error_grace_s=error_grace_s)
            if not outcome.health.ok:
                self.terminate(inst, proc)
                outcome.rolled_back = True
                outcome.log_tail = _tail(Path(inst.log))
                self._prune(name, serving)
                return outcome
            self._write_current(inst)
            if previous is not None:
                self.terminate(previous)
            outcome.endpoint = inst.url
            self._prune(name, inst)
            return outcome

    def stop(self, name: str) -> Instance:
        """Stop the deployment and forget it (its folders stay for their logs until the next deploy prunes)."""
        with self.locked(name):
            inst = self.current(name)
            if inst is None:
                raise NotFoundError(f"no local deployment named {name!r} (see `aipipe deploy status`)",
                                    field="name")
            self.terminate(inst)
            (self.folder(name) / CURRENT).unlink(missing_ok=True)
            return inst

    def status(self, name: str, probe_timeout_s: float = 2.0) -> dict[str, Any]:
        """The record plus whether the process lives and answers /readyz."""
        inst = self.current(name)
        if inst is None:
            raise NotFoundError(f"no local deployment named {name!r}", field="name")
        alive = is_alive(inst)
        code = http_transport(inst.url, probe_timeout_s)("GET", "/readyz", None, None)[0] if alive else 0
        return {**inst.to_dict(), "alive": alive, "ready": code == 200}
