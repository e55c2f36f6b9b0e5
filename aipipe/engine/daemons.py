"""Daemon nodes (``daemon: true``): a server that runs on while the steps or tasks after it go on.

A daemon node is ``Running`` with ``daemoned: true`` once its process runs and its ``readinessProbe`` (if any)
passes; its steps/tasks' dependants start then. When the steps or DAG node that encloses it (its boundary)
completes, or the run ends, the engine kills the daemon's process tree and the node ends ``Succeeded`` with
``daemoned`` cleared, as Argo's controller does. A daemon whose process ends by itself before that, or that a
stop kills, ends as any container node would (one with a retryStrategy then runs again:
:mod:`aipipe.engine.retrynode`).
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine.halt import Cancellation
from aipipe.engine.runners.base import ProcessSpec
from aipipe.engine.runners.local import LocalHandle, LocalRunner

# (phase, message, outputs) of a daemon's node once it is final
DaemonEnd = Callable[[str, "str | None", "Mapping[str, Any] | None"], None]

DAEMON_IP = "127.0.0.1"  # nodes share the host's network: a daemon's pod IP is loopback
PROBE_TIMEOUT_S = 1.0  # Kubernetes' default probe timeout


@dataclass
class Daemon:
    """One daemoned node: ``release`` ends it (kills its tree), ``done`` is set once its node is final."""

    nid: str
    boundary: str
    kill: Callable[[], None]
    released: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    followers: list[DaemonEnd] = field(default_factory=list)  # told when its node is final (its Retry node)


class DaemonRegistry:
    """The run's daemoned nodes, by the steps/DAG node (boundary) whose completion ends them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.daemons: dict[str, Daemon] = {}
        self.ended_boundaries: set[str] = set()  # steps/DAG nodes whose daemons were released

    def add(self, daemon: Daemon) -> bool:
        """Register a daemon; False (and the daemon marked released) when its boundary has already ended it
        (a retried daemon that became ready as its steps/DAG node completed): the caller kills it."""
        with self.lock:
            self.daemons[daemon.nid] = daemon
            if daemon.boundary in self.ended_boundaries:
                daemon.released.set()
                return False
            return True

    def boundary_ended(self, boundary: str) -> bool:
        with self.lock:
            return boundary in self.ended_boundaries

    def follow(self, nid: str, on_end: DaemonEnd, mark: Callable[[], object]) -> bool:
        """If the daemon ``nid`` still runs: ``mark`` its Retry node (under the registry's lock) and call
        ``on_end`` once the daemon's node is final; False when it already is."""
        with self.lock:
            daemon = self.daemons.get(nid)
            if daemon is None:
                return False
            mark()
            daemon.followers.append(on_end)
            return True

    def is_released(self, nid: str) -> bool:
        with self.lock:
            daemon = self.daemons.get(nid)
        return daemon is not None and daemon.released.is_set()

    def take(self, nid: str) -> Daemon | None:
        """Forget a daemon whose node is final; its followers are the caller's to end, then ``done.set()``."""
        with self.lock:
            return self.daemons.pop(nid, None)

    def release(self, boundary: str | None) -> None:
        """End the daemons of ``boundary`` (every daemon when None) and wait until their nodes are final."""
        with self.lock:
            if boundary is not None:
                self.ended_boundaries.add(boundary)
            chosen = [d for d in self.daemons.values() if boundary is None or d.boundary == boundary]
        for daemon in chosen:
            daemon.released.set()
            daemon.kill()
        for daemon in chosen:
            daemon.done.wait(30)


# ---------------------------------------------------------------------------------------------- readiness

def _port(value: Any, body: Mapping[str, Any]) -> int:
    """A probe's port: a number, or the name of one of the container's ``ports``."""
    if isinstance(value, int) or str(value).isdigit():
        return int(value)
    for port in body.get("ports") or []:
        if port.get("name") == value:
            return int(port.get("containerPort"))
    raise ValueError(f"readinessProbe: no container port named {value!r}")


def _http_ready(probe: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    scheme = str(probe.get("scheme") or "HTTP").lower()
    host = str(probe.get("host") or DAEMON_IP)
    path = str(probe.get("path") or "/")
    url = f"{scheme}://{host}:{_port(probe.get('port'), body)}{path if path.startswith('/') else '/' + path}"
    request = urllib.request.Request(url, headers={h["name"]: h["value"] for h in probe.get("httpHeaders") or []})
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S) as response:
            return 200 <= int(response.status) < 400
    except urllib.error.HTTPError as exc:
        return 200 <= exc.code < 400
    except (OSError, ValueError):
        return False


def _tcp_ready(probe: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    try:
        with socket.create_connection((str(probe.get("host") or DAEMON_IP), _port(probe.get("port"), body)),
                                      timeout=PROBE_TIMEOUT_S):
            return True
    except OSError:
        return False


def _exec_ready(probe: Mapping[str, Any], base: ProcessSpec, runner: LocalRunner) -> bool:
    """Run the probe's command in the node's own view (its files, its user); ready when it exits 0."""
    command = [str(c) for c in probe.get("command") or []]
    if not command:
        return False
    spec = dataclasses.replace(base, argv=command, on_stdout=None, on_stderr=None)
    handle = runner.start(spec)
    if handle.running_after(float(probe.get("timeoutSeconds") or PROBE_TIMEOUT_S)):
        handle.kill()
    return handle.wait().exit_code == 0


def wait_ready(probe: Mapping[str, Any] | None, body: Mapping[str, Any], base: ProcessSpec, runner: LocalRunner,
               handle: LocalHandle, cancelled: Cancellation) -> bool:
    """Poll the container's ``readinessProbe`` (httpGet, tcpSocket, exec) until it passes; False when the
    process ended (or the run was stopped) first. Without a probe the node is ready once it runs."""
    if not probe:
        return handle.proc.poll() is None
    if cancelled.wait(float(probe.get("initialDelaySeconds") or 0)):
        return False
    period = float(probe.get("periodSeconds") or 10)
    while handle.proc.poll() is None and not cancelled.is_set():
        started = time.monotonic()
        if probe.get("httpGet"):
            ready = _http_ready(probe["httpGet"], body)
        elif probe.get("tcpSocket"):
            ready = _tcp_ready(probe["tcpSocket"], body)
        else:
            ready = _exec_ready(probe.get("exec") or {}, base, runner)
        if ready:
            return handle.proc.poll() is None
        handle.running_after(max(period - (time.monotonic() - started), 0.05))
    return False
