"""What a runner is given (one container's process) and what it hands back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from aipipe.engine.security import NodeSecurity


@dataclass
class ProcessSpec:
    """One node's main process.

    ``root`` is the node's private root folder: container paths whose top-level folder is in
    ``private_tops`` live under it (``/tmp/x`` -> ``root/tmp/x``); every other top-level folder
    of the host is visible read-only. ``hidden`` host folders are covered by an empty, writable
    folder of the node's own (in memory);
    ``shared`` host paths are visible and writable at the same path (even inside a private top
    or a hidden folder), ``readonly`` ones visible read-only; ``binds`` mount run-level folders
    (persistent volumes) at container paths, and ``read_only_mounts`` are container paths (ConfigMap and
    Secret volumes, ``readOnly`` volume mounts) made read-only. ``security`` says who the process runs as; with
    ``tty`` (the container's ``tty: true``) its stdin is a terminal, else it is empty (``/dev/null``).
    """

    argv: list[str]
    env: dict[str, str]
    cwd: str  # container path
    root: Path
    private_tops: frozenset[str]
    shared: tuple[str, ...] = ()
    binds: tuple[tuple[str, str], ...] = ()  # (host folder, container path): volumes shared between nodes
    readonly: tuple[str, ...] = ()
    read_only_mounts: tuple[str, ...] = ()  # container paths (volumes) the node sees read-only
    hidden: tuple[str, ...] = ()
    security: NodeSecurity = field(default_factory=NodeSecurity)
    tty: bool = False
    on_stdout: Callable[[bytes], None] | None = None
    on_stderr: Callable[[bytes], None] | None = None

    def host_path(self, container_path: str) -> Path:
        """Where a container path lives on the host."""
        return host_path(self.root, self.private_tops, container_path)


def host_path(root: Path, private_tops: frozenset[str], container_path: str) -> Path:
    norm = Path("/", container_path.lstrip("/")) if container_path.startswith("/") else Path("/", container_path)
    parts = norm.parts
    if len(parts) > 1 and parts[1] in private_tops:
        return root.joinpath(*parts[1:])
    if len(parts) == 2:  # a file directly under / (e.g. /result.txt) lives in the private root
        return root / parts[1]
    return norm


@dataclass
class ProcessResult:
    exit_code: int
    stdout: bytes = b""
    killed: bool = False
    start_error: str = ""
    duration: float = 0.0
    extra: dict[str, str] = field(default_factory=dict)


class Handle(Protocol):
    def wait(self) -> ProcessResult: ...
    def running_after(self, timeout: float) -> bool: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


class Runner(Protocol):
    def start(self, spec: ProcessSpec) -> Handle: ...
