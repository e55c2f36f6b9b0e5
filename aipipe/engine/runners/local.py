"""Runs a node's process on this machine inside its own mount namespace.

The child process (before ``exec``) unshares its mount namespace, makes every mount private,
bind-mounts the host's top-level folders into the node's private root, leaves the node's private
folders (``/tmp``, output and artifact paths, the working directory) as plain folders of that root,
binds the shared paths (storage root, repo, run area) back in, and ``chroot``s into the root.
Only system calls run in the child, so starting a node costs about as much as a plain fork/exec.
Nothing is mounted in the host namespace; the namespace (and its mounts) vanish with the process.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from aipipe.engine.runners.base import ProcessResult, ProcessSpec
from aipipe.errors import UserError

CLONE_NEWNS = 0x00020000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
STDOUT_KEEP = 256 * 1024  # bytes of stdout kept for outputs.result
NEVER_PRIVATE = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "sys",
                           "run", "boot"})
_SKIP_TOPS = frozenset({"lost+found"})

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p)
_libc.unshare.argtypes = (ctypes.c_int,)


class NamespaceUnavailable(UserError):
    """Mount namespaces cannot be used here (not root, or a seccomp/AppArmor profile forbids them)."""


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount_plan(spec: ProcessSpec) -> list[tuple[bytes, bytes]]:
    """(source, target) bind mounts to make inside the namespace; creates the mount points on the host side."""
    root = spec.root
    root.mkdir(parents=True, exist_ok=True)
    plan: list[tuple[bytes, bytes]] = []
    for entry in os.scandir("/"):
        name = entry.name
        if name in spec.private_tops or name in _SKIP_TOPS:
            continue
        target = root / name
        if entry.is_symlink():
            if not target.is_symlink():
                target.symlink_to(os.readlink(entry.path))
            continue
        if not entry.is_dir():
            continue
        target.mkdir(exist_ok=True)
        plan.append((entry.path.encode(), str(target).encode()))
    for top in spec.private_tops:
        (root / top).mkdir(parents=True, exist_ok=True)
    for shared in spec.shared:
        parts = Path(shared).parts
        if len(parts) > 1 and parts[1] in spec.private_tops and os.path.isdir(shared):
            target = root.joinpath(*parts[1:])
            target.mkdir(parents=True, exist_ok=True)
            plan.append((shared.encode(), str(target).encode()))
    for source, container_path in spec.binds:
        target = spec.host_path(container_path)
        target.mkdir(parents=True, exist_ok=True)
        plan.append((source.encode(), str(target).encode()))
    return plan


def _enter_namespace(plan: list[tuple[bytes, bytes]], root: bytes, cwd: bytes) -> None:
    """Runs in the forked child before exec: only system calls."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the driver dies -> the node dies
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    for source, target in plan:
        _check(_libc.mount(source, target, None, MS_BIND | MS_REC, None), f"bind {source.decode()}")
    os.chroot(root)
    os.chdir(cwd)


class LocalHandle:
    """A started node process; ``wait`` collects stdout and the exit code."""

    def __init__(self, proc: subprocess.Popen[bytes], spec: ProcessSpec) -> None:
        self.proc = proc
        self.spec = spec
        self.started = time.monotonic()
        self.killed = False
        self._stdout: list[bytes] = []
        self._readers = [
            threading.Thread(target=self._pump, args=(proc.stdout, spec.on_stdout, self._stdout), daemon=True),
            threading.Thread(target=self._pump, args=(proc.stderr, spec.on_stderr, None), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @staticmethod
    def _pump(stream: IO[bytes], callback: Callable[[bytes], None] | None, sink: list[bytes] | None) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            if sink is not None and sum(map(len, sink)) < STDOUT_KEEP:
                sink.append(chunk)  # outputs.result needs the start of stdout only; the rest is in the logs
            if callback is not None:
                callback(chunk)
        stream.close()

    def running_after(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True while the process still runs."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return True
        return False

    def wait(self) -> ProcessResult:
        code = self.proc.wait()
        self._kill_group()  # like a pod: when the main process ends, everything it left behind goes too
        for reader in self._readers:
            reader.join()
        return ProcessResult(exit_code=code if code >= 0 else 128 - code, stdout=b"".join(self._stdout),
                             killed=self.killed, duration=time.monotonic() - self.started)

    def kill(self) -> None:
        self.killed = True
        self._kill_group()

    def _kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)


class FailedStart:
    """The process could not start (e.g. the command is not an executable)."""

    def __init__(self, message: str, code: int) -> None:
        self.message = message
        self.code = code

    def running_after(self, timeout: float) -> bool:
        return False

    def wait(self) -> ProcessResult:
        return ProcessResult(exit_code=self.code, start_error=self.message)

    def kill(self) -> None:
        return None


class LocalRunner:
    """Starts node processes in private mount namespaces (needs root or CAP_SYS_ADMIN)."""

    _checked: bool | None = None
    _check_error = ""

    @classmethod
    def check_available(cls) -> None:
        """Fail with a clear message where mount namespaces are unavailable (checked once per process)."""
        if cls._checked is None:
            try:
                out = subprocess.run(["/bin/sh", "-c", "exit 0"], preexec_fn=_probe, capture_output=True,
                                     check=False)
                cls._checked = out.returncode == 0
                cls._check_error = out.stderr.decode(errors="replace").strip()
            except subprocess.SubprocessError as exc:
                cls._checked, cls._check_error = False, str(exc)
        if not cls._checked:
            raise NamespaceUnavailable(
                "the embedded engine isolates each step in a Linux mount namespace, which this machine does not "
                f"allow ({cls._check_error or 'unshare(CLONE_NEWNS) failed'}); run as root or with CAP_SYS_ADMIN "
                "(e.g. a privileged container), or submit to Argo on Kubernetes instead", field="engine")

    def start(self, spec: ProcessSpec) -> LocalHandle | FailedStart:
        self.check_available()
        plan = _mount_plan(spec)
        root = str(spec.root).encode()
        cwd = spec.cwd.encode()
        host_cwd = spec.host_path(spec.cwd)
        if not host_cwd.exists():
            host_cwd.mkdir(parents=True, exist_ok=True)
        try:
            proc = subprocess.Popen(
                spec.argv, env=spec.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, close_fds=True,
                preexec_fn=lambda: _enter_namespace(plan, root, cwd),
            )
        except FileNotFoundError:
            return FailedStart(f"failed to start: executable {spec.argv[0]!r} not found in $PATH", 127)
        except PermissionError:
            return FailedStart(f"failed to start: {spec.argv[0]!r} is not executable", 126)
        except OSError as exc:
            code = 127 if exc.errno == errno.ENOENT else 126
            return FailedStart(f"failed to start {spec.argv[0]!r}: {exc.strerror}", code)
        except subprocess.SubprocessError as exc:
            raise NamespaceUnavailable(f"could not set up the node's mount namespace: {exc}", field="engine") from exc
        return LocalHandle(proc, spec)


def _probe() -> None:
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
