"""Runs a node's process on this machine in its own mount namespace, as a process tree that ends with the driver.

**Mount view.** The forked child unshares its mount namespace, makes every mount private, binds the node's private
root (``<run>/nodes/<id>/root``) onto itself and fills it: the host's system folders (``/usr``, ``/etc``, ``/lib``…:
the image) are bound in *read-only* (recursively; one a volume mounts in is a read-only overlay of the node's own,
the volume's mount point made in it); every other top-level host folder the node does not own (``/opt``,
``/var``, ``/srv``, ``/mnt``…) is a copy-on-write overlay of its own, as an image's filesystem is the container's: the
node reads the host's files and what it writes stays in its layer, removed when it ends (a folder with mounts below
it, or one that holds the node's own folders, stays a read-only bind); ``/dev`` is a fresh tmpfs with only the
harmless devices and the GPUs, its own ``/dev/shm`` and ``/dev/pts``; ``/proc`` is writable with the kernel's settings
read-only and its state files masked, as a container runtime leaves it; the hidden folders (``AIPIPE_HOME``: run
store, secrets, server token; and the user's ``$HOME`` with its dotfiles) are covered by an empty, writable tmpfs of
the node's own; then the paths the node must write (storage root, deployments, dataset cache, MLflow's sqlite file)
are bound back read-write, the interpreter's prefixes and the repository read-only (wherever they live, even under
``/tmp``), and the volumes at their mount paths. The child then ``pivot_root``s into that root and detaches the host's
root, so no path leads back to it. Writable for the node: its own folders (``/tmp``, ``/argo``, outputs, the working
directory), its volumes, the shared paths and its overlays; the system folders are ``EROFS``.

**Who runs.** The node's process keeps only a container runtime's default capabilities (no
``CAP_SYS_ADMIN``: it cannot undo the mounts; no ``CAP_SYS_PTRACE``: it cannot reach the driver through
``/proc``), then takes its ``securityContext`` user and groups (setgroups, setgid, setuid).

**Process tree.** A PID namespace would end the tree with its init, but the local deploy target must leave
its serving process running after the deploy node ends and stop earlier instances by their host pid, so
nodes stay in the host's PID namespace. Instead the forked child stays behind as the node's *supervisor*:
a child subreaper (``PR_SET_CHILD_SUBREAPER``) that forks the node's main process, so every orphan of the
node's tree is re-parented to it, never to init. It waits for the main process and watches a pipe whose
write end only the driver holds: when the driver dies (``kill -9`` included) the pipe reads EOF and the
supervisor kills every descendant, however deep or detached (``setsid``), before it exits. Stop and
deadlines end the same tree from the driver: :meth:`LocalHandle.terminate` (SIGTERM to the main process group,
as a kubelet signals a container), then :meth:`LocalHandle.kill` once the caller's grace has passed. When the
main process ends on its own, its process group
goes with it (pod semantics); processes it detached into their own session survive (the deploy step's
serving instance). Each node process carries ``AIPIPE_NODE=<run uid>/<node id>`` in its environment, so
:func:`end_leftovers` can still find and end a tree whose supervisor was killed too.

**Why one module of ~800 lines.** Its parts are the two halves of one protocol and change together: the mount
plan is computed in the driver and applied in the forked child (``preexec_fn``, between fork and exec, where
only code already loaded and no locks may run), the supervisor and the driver talk through the same two pipes
(``report``: set-up errors; ``driver_gone``: the driver's death), and ``end_leftovers`` finds the processes the
child tagged. They share the raw ``libc`` bindings and constants, which no other module may use. A node's other
containers (init containers, sidecars: :mod:`aipipe.engine.sidecars`) and a daemon's readiness probes
(:mod:`aipipe.engine.daemons`) are further ``LocalRunner.start`` calls on the same root, not code here.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import platform
import select
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from aipipe.engine.nodes import iso_epoch
from aipipe.engine.proctree import descendants
from aipipe.engine.runners.base import ProcessResult, ProcessSpec
from aipipe.engine.security import NodeSecurity
from aipipe.errors import UserError

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 1
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine(), 155)
SYS_MOUNT_SETATTR = 442
# bytes of stdout kept for outputs.result: its last 256 KiB (as Argo keeps them), and room to move the start past a
# secret value or a UTF-8 character it would split
STDOUT_KEEP = 256 * 1024 + 64 * 1024
NODE_ENV = "AIPIPE_NODE"  # tags every process of a node: "<run uid>/<node id>"
NEVER_PRIVATE = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "sys",
                           "run", "boot"})
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
DEVICE_PREFIXES = ("nvidia",)  # GPUs (files and the nvidia-caps folder)
DEVICE_FOLDERS = ("dri", "infiniband")
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")  # runc's read-only paths
PROC_MASKED = ("kcore", "keys", "timer_list", "latency_stats", "sched_debug", "acpi", "scsi")  # and its masked ones
_SKIP_TOPS = frozenset({"lost+found"})
_HIDDEN_TMPFS = b"mode=755,size=1g"  # writable and private to the node: tool caches under $HOME fit
# the node's overlay layers: in memory, in the child's namespace only, gone with it; what a node writes outside its own
# folders and volumes is bounded as its $HOME cover is
_LAYERS_TMPFS = b"mode=700,size=1g"
_OVERLAY_UNSAFE = frozenset(",:\\")  # characters overlayfs' mount options cannot carry in a folder's name

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p)
_libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
_libc.unshare.argtypes = (ctypes.c_int,)
_libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
_libc.syscall.restype = ctypes.c_long


class NamespaceUnavailable(UserError):
    """Mount namespaces cannot be used here (not root, or a seccomp/AppArmor profile forbids them)."""


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


# ---------------------------------------------------------------------------------------------- the mount plan

@dataclass(frozen=True)
class Step:
    """One operation of the mount plan, run in the child in order."""

    op: str  # bind | ro | overlay (falls back to bind + ro) | tmpfs | devpts | dir | file | symlink
    target: bytes
    source: bytes = b""
    data: bytes = b""


def _inside(path: str, folders: Iterable[str]) -> str | None:
    """The folder of ``folders`` that holds ``path`` (or is it), if any."""
    for folder in folders:
        if path == folder or path.startswith(folder.rstrip("/") + "/"):
            return folder
    return None


def _mount_plan(spec: ProcessSpec) -> tuple[list[Step], list[Path]]:
    """The child's mount operations, and the mount points it created on the host side inside the node's
    private folders."""
    root = spec.root
    root.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    layer_point = root.parent / "layers"  # where the child mounts its in-memory layers, outside the node's view
    layer_point.mkdir(exist_ok=True)
    below = _folders_with_mounts_below()
    plan = [Step("bind", str(root).encode(), str(root).encode()),
            Step("tmpfs", str(layer_point).encode(), data=_LAYERS_TMPFS)]
    in_shared = _volumes_in_shared_folders(spec)
    for entry in sorted(os.scandir("/"), key=lambda e: e.name):
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
        if name == "dev":
            plan += _dev_plan(target)
            continue
        if name == "proc":
            plan += _proc_plan(target)
            continue
        if name in in_shared:  # a system folder a volume mounts in: a read-only overlay of the node's own
            plan += _system_overlay_plan(entry.path, target, layer_point / name, in_shared[name])
            continue
        if not _overlaid(name, below, root):
            plan += [Step("bind", str(target).encode(), entry.path.encode()), Step("ro", str(target).encode())]
            continue
        upper, work = str(layer_point / name / "upper").encode(), str(layer_point / name / "work").encode()
        plan += [Step("dir", upper), Step("dir", work),
                 Step("overlay", str(target).encode(), entry.path.encode(),
                      b"lowerdir=%s,upperdir=%s,workdir=%s" % (entry.path.encode(), upper, work))]
    for top in spec.private_tops:
        (root / top).mkdir(parents=True, exist_ok=True)
    hidden = [h for h in spec.hidden if Path(h).parts[1:2] and Path(h).parts[1] not in spec.private_tops
              and os.path.isdir(h)]
    layers = [(p, "hidden") for p in hidden] + [(p, "rw") for p in spec.shared] + [(p, "ro") for p in spec.readonly]
    for path, kind in sorted(layers, key=lambda item: (len(Path(item[0]).parts), item[0])):  # parents first
        if not os.path.exists(path) or path == "/":
            continue
        if kind == "hidden":
            if _inside(path, [h for h in hidden if h != path]):  # e.g. AIPIPE_HOME inside the hidden $HOME
                plan.append(Step("dir", _in_root(root, path)))
            plan.append(Step("tmpfs", _in_root(root, path), data=_HIDDEN_TMPFS))
            continue
        target = spec.host_path(path)
        is_dir = os.path.isdir(path)
        if target.is_relative_to(root):  # a private top: the mount point lives in the node's root on the host
            _mount_point(target, is_dir, made)
        else:
            target = root / path.lstrip("/")
            if _inside(path, hidden):  # inside a hidden tmpfs: the mount point is made in the child
                plan.append(Step("dir" if is_dir else "file", str(target).encode()))
        plan.append(Step("bind", str(target).encode(), path.encode()))
        if kind == "ro":
            plan.append(Step("ro", str(target).encode()))
    shared_sources = {str(Path("/", path)): source for mounts in in_shared.values() for path, source in mounts}
    for source, container_path in spec.binds:
        target = spec.host_path(container_path)
        if str(Path("/", container_path)) in shared_sources:  # its mount point is in the folder's overlay (above)
            target = root / container_path.lstrip("/")
        else:
            _mount_point(target, True, made)
        plan.append(Step("bind", str(target).encode(), source.encode()))
    for container_path in spec.read_only_mounts:  # a mount of its own, then read-only (root cannot write it)
        filled = shared_sources.get(str(Path("/", container_path)))
        own = root / container_path.lstrip("/") if filled is not None else spec.host_path(container_path)
        if os.path.exists(filled if filled is not None else own):  # an absent optional volume: nothing to protect
            plan += [Step("bind", str(own).encode(), str(own).encode()), Step("ro", str(own).encode())]
    return plan, made


def can_host_volumes(top: str) -> bool:
    """Whether volumes may mount below the host's system folder ``/top`` (``/etc``, ``/run``…): the node then sees it
    as a read-only copy-on-write overlay of its own, in which the mount points are made, so nothing is made on the
    host. Not ``/dev``, ``/proc`` or ``/sys`` (the node's own), a link (``/bin`` to ``usr/bin``), nor a folder with
    another filesystem mounted below it (the overlay would hide it)."""
    return (top not in ("dev", "proc", "sys") and top not in _folders_with_mounts_below()
            and not _OVERLAY_UNSAFE & set(top) and os.path.isdir(f"/{top}") and not os.path.islink(f"/{top}"))


def _volumes_in_shared_folders(spec: ProcessSpec) -> dict[str, list[tuple[str, str]]]:
    """Top-level folder -> (container path, what is mounted there) of each volume the node mounts in a host folder
    it shares (not one of its private tops)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for source, container_path in spec.binds:
        if not spec.host_path(container_path).is_relative_to(spec.root):
            found.setdefault(Path("/", container_path).parts[1], []).append((container_path, source))
    return found


def _system_overlay_plan(host: str, target: Path, layer: Path, mounts: list[tuple[str, str]]) -> list[Step]:
    """A system folder as an overlay of the node's own (its upper layer in the node's in-memory layers), the mount
    points of its volumes made in it, then read-only before anything is mounted there: the node reads the host's
    files, the engine never writes the host's folder. Without overlayfs the folder is the usual read-only bind and
    the node fails to start at its first mount point."""
    upper, work = str(layer / "upper").encode(), str(layer / "work").encode()
    plan = [Step("dir", upper), Step("dir", work),
            Step("overlay", str(target).encode(), host.encode(),
                 b"lowerdir=%s,upperdir=%s,workdir=%s" % (host.encode(), upper, work))]
    for container_path, source in mounts:
        point = str(target.parent / container_path.lstrip("/")).encode()
        plan.append(Step("file" if os.path.isfile(source) else "dir", point))
    return [*plan, Step("ro", str(target).encode())]


def _overlaid(top: str, below: frozenset[str], root: Path) -> bool:
    """Whether the top-level host folder ``top`` becomes an overlay: not a system folder, no other filesystem mounted
    below it (an overlay would hide it), a name overlayfs' options can carry, and not the folder that holds the
    node's own."""
    if top in NEVER_PRIVATE or top in below or _OVERLAY_UNSAFE & set(top):
        return False
    return not Path(os.path.realpath(root)).is_relative_to(f"/{top}")


def _folders_with_mounts_below() -> frozenset[str]:
    """The top-level host folders with another filesystem mounted below them: an overlay would hide it."""
    found = set()
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", "rb") as info:
        for line in info:
            point = line.split()[4].decode("unicode_escape")  # mountinfo escapes a space as \040
            parts = Path(point).parts
            if len(parts) > 2:
                found.add(parts[1])
    return frozenset(found)


# Mount points are made and removed under one lock, and counted: the containers of a containerSet (and a node's
# sidecars) share their node's root, and removing a folder that is a mount point in another container's namespace
# detaches that container's mount (Linux >= 3.18). A mount point goes when the last container that uses it ends.
MOUNT_POINTS_LOCK = threading.Lock()
_MOUNT_POINT_USERS: dict[Path, int] = {}


def _mount_point(target: Path, is_dir: bool, made: list[Path]) -> None:
    """Create a mount point in the node's root (with the folders above it), adding to ``made`` each path the
    engine made for it, new or already used by another container of the node; the caller holds
    MOUNT_POINTS_LOCK. They go after the last of those containers ends, so an output artifact of the node's
    folder never holds the engine's empty mount points."""
    for path, path_is_dir in [*((parent, True) for parent in reversed(target.parents)), (target, is_dir)]:
        if not path.exists():
            if not _made_now(path, path_is_dir):
                continue
            _MOUNT_POINT_USERS[path] = 1
        elif path in _MOUNT_POINT_USERS:
            _MOUNT_POINT_USERS[path] += 1
        else:  # the node's own folder, not a mount point the engine made
            continue
        made.append(path)


def _made_now(path: Path, is_dir: bool) -> bool:
    """Create one mount point; False when it exists already."""
    try:
        if is_dir:
            path.mkdir()
        else:
            path.touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


def _remove_mount_points(made: list[Path]) -> None:
    """One container has ended: remove the mount points no other container of its node still uses."""
    with MOUNT_POINTS_LOCK:
        for path in reversed(made):
            users = _MOUNT_POINT_USERS.pop(path, 1) - 1
            if users:
                _MOUNT_POINT_USERS[path] = users
                continue
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()
                elif path.stat().st_size == 0:
                    path.unlink()


def _in_root(root: Path, host: str) -> bytes:
    return str(root / host.lstrip("/")).encode()


def _dev_plan(target: Path) -> list[Step]:
    """A minimal /dev: the harmless character devices, the GPUs, a private shm and pts."""
    dev = str(target).encode()
    plan = [Step("tmpfs", dev, data=b"mode=755,size=1m")]
    for entry in sorted(os.scandir("/dev"), key=lambda e: e.name):
        name = entry.name
        wanted = name in DEVICES or name.startswith(DEVICE_PREFIXES) or name in DEVICE_FOLDERS
        if not wanted or entry.is_symlink():
            continue
        node = str(target / name).encode()
        if entry.is_dir():
            plan += [Step("dir", node), Step("bind", node, entry.path.encode())]
        elif stat.S_ISCHR(entry.stat().st_mode):
            plan += [Step("file", node), Step("bind", node, entry.path.encode())]
    plan += [Step("dir", dev + b"/shm"), Step("tmpfs", dev + b"/shm", data=b"mode=1777"),
             Step("dir", dev + b"/pts"), Step("devpts", dev + b"/pts", data=b"newinstance,ptmxmode=0666,mode=620"),
             Step("symlink", dev + b"/ptmx", b"pts/ptmx"), Step("symlink", dev + b"/fd", b"/proc/self/fd")]
    for number, stream in enumerate((b"stdin", b"stdout", b"stderr")):
        plan.append(Step("symlink", dev + b"/" + stream, b"/proc/self/fd/%d" % number))
    return plan


def _proc_plan(target: Path) -> list[Step]:
    """``/proc`` as a container runtime leaves it: writable where a process configures itself (the CUDA driver
    fails to initialise under a read-only ``/proc``: cuInit 304), the kernel's settings read-only, and the files
    that tell of the host's kernel state masked."""
    plan = [Step("bind", str(target).encode(), b"/proc")]
    for name in PROC_READ_ONLY:
        if os.path.exists(f"/proc/{name}"):
            node = str(target / name).encode()
            plan += [Step("bind", node, node), Step("ro", node)]
    for name in PROC_MASKED:
        path = f"/proc/{name}"
        if os.path.isdir(path):
            plan += [Step("tmpfs", str(target / name).encode(), data=b"mode=555,size=4k"),
                     Step("ro", str(target / name).encode())]
        elif os.path.exists(path):
            plan.append(Step("bind", str(target / name).encode(), b"/dev/null"))
    return plan


def _read_only(target: bytes) -> None:
    """Make a mount and every mount below it read-only (mount_setattr; a plain remount where it is missing)."""
    attr = _MountAttr(attr_set=MOUNT_ATTR_RDONLY)
    ret = _libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, target, AT_RECURSIVE, ctypes.byref(attr),
                        ctypes.sizeof(attr))
    if ret == 0:
        return
    if ctypes.get_errno() != errno.ENOSYS:
        _check(-1, f"read-only {target.decode()}")
    flags = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _check(_libc.mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | flags, None),
           f"read-only {target.decode()}")


def _apply(plan: list[Step]) -> None:
    """Runs in the forked child: system calls and a few file operations."""
    for step in plan:
        if step.op == "bind":
            _check(_libc.mount(step.source, step.target, None, MS_BIND | MS_REC, None), f"bind {step.source.decode()}")
        elif step.op == "ro":
            _read_only(step.target)
        elif step.op == "overlay":  # where overlayfs is missing or refuses the layers: the read-only bind
            if _libc.mount(b"overlay", step.target, b"overlay", 0, step.data) != 0:
                _check(_libc.mount(step.source, step.target, None, MS_BIND | MS_REC, None),
                       f"bind {step.source.decode()}")
                _read_only(step.target)
        elif step.op == "tmpfs":
            _check(_libc.mount(b"tmpfs", step.target, b"tmpfs", MS_NOSUID | MS_NODEV, step.data),
                   f"tmpfs on {step.target.decode()}")
        elif step.op == "devpts":
            _libc.mount(b"devpts", step.target, b"devpts", MS_NOSUID | MS_NOEXEC, step.data)  # optional
        elif step.op == "dir":
            os.makedirs(step.target, exist_ok=True)
        elif step.op == "file":
            os.makedirs(os.path.dirname(step.target), exist_ok=True)
            os.close(os.open(step.target, os.O_CREAT | os.O_WRONLY, 0o644))
        elif step.op == "symlink":
            os.symlink(step.source, step.target)


def _pivot(root: bytes, cwd: bytes) -> None:
    """Make ``root`` the namespace's ``/`` and detach the host's root, so no path leads back to it."""
    os.chdir(root)
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "detach the host root")
    os.chdir(b"/")
    os.chdir(cwd)


# ---------------------------------------------------------------------------------------------- the child

def _become_node(security: NodeSecurity, supervisor: int) -> None:
    """In the node's main process, before exec: its own process group, capabilities, user, groups,
    parent-death signal."""
    os.setpgid(0, 0)
    if security.no_new_privs:
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for cap in range(last + 1):
        if cap not in security.caps:
            _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    if security.uid is not None:
        os.setgroups(list(security.groups))
        os.setresgid(security.gid, security.gid, security.gid)
        os.setresuid(security.uid, security.uid, security.uid)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after the user change, which clears it
    if os.getppid() != supervisor:
        os._exit(137)


def terminate(supervisor: int) -> None:
    """SIGTERM the node's main process group (the supervisor's children lead their own groups), as a kubelet
    signals a container's first process."""
    try:
        with open(f"/proc/{supervisor}/task/{supervisor}/children") as fh:
            children = [int(pid) for pid in fh.read().split()]
    except OSError:
        return
    for child in children:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child, signal.SIGTERM)


def kill_tree(pid: int, include_self: bool = True, rounds: int = 50) -> None:
    """SIGKILL ``pid``'s descendants until none is left (a subreaper keeps the orphans below it), then ``pid``."""
    for _ in range(rounds):
        found = descendants(pid)
        if not found:
            break
        for child in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
        time.sleep(0.01)
    if include_self:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _supervise(child: int, driver_gone: int) -> None:
    """The supervisor: reap orphans, relay the main process's exit, end the whole tree if the driver dies."""
    main_pgid = child
    watch = select.poll()
    watch.register(driver_gone, select.POLLIN | select.POLLHUP)
    pidfd = os.pidfd_open(child)
    watch.register(pidfd, select.POLLIN)
    while True:
        events = watch.poll(1000)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                os._exit(0)
            if pid == 0:
                break
            if pid == child:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(main_pgid, signal.SIGKILL)  # like a pod: what the main process left in its group goes
                _reap_all(time.monotonic() + 0.2)
                os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        if any(fd == driver_gone for fd, _ in events):
            kill_tree(os.getpid(), include_self=False)
            _reap_all(time.monotonic() + 5)
            os._exit(137)


def _reap_all(deadline: float) -> None:
    """Reap the killed tree (its orphans are ours as subreaper), so nothing is left as a zombie."""
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


def _node_child(plan: list[Step], root: bytes, cwd: bytes, security: NodeSecurity, driver_gone: int,
                report: int) -> None:
    """``preexec_fn``: build the mount view, fork the main process (which returns to exec), supervise it."""
    try:
        _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
        _apply(plan)
        _pivot(root, cwd)
        _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "child subreaper")
        supervisor = os.getpid()
        pid = _libc.fork()
        if pid < 0:
            _check(-1, "fork")
    except OSError as exc:
        _fail(report, f"could not set up the node's mount view: {exc.strerror or exc}")
    if pid == 0:
        try:
            os.close(driver_gone)
            _become_node(security, supervisor)
            os.set_inheritable(report, False)  # closed by exec; an exec failure is reported by subprocess
        except OSError as exc:
            _fail(report, f"could not drop privileges: {exc.strerror or exc}")
        return
    try:
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, driver_gone)
        os.closerange(driver_gone + 1, os.sysconf("SC_OPEN_MAX"))
        _supervise(pid, driver_gone)
    finally:
        os._exit(125)


def _fail(report: int, message: str) -> None:
    with contextlib.suppress(OSError):
        os.write(report, message.encode()[:4000])
    os._exit(126)


# ---------------------------------------------------------------------------------------------- the driver side

class LocalHandle:
    """A started node (its supervisor process); ``wait`` collects stdout and the exit code."""

    def __init__(self, proc: subprocess.Popen[bytes], spec: ProcessSpec, driver_gone: int,
                 mount_points: list[Path], terminal: int | None = None) -> None:
        self.proc = proc
        self.mount_points = mount_points
        self.spec = spec
        self.started = time.monotonic()
        self.killed = False
        # closed once it has ended: the write end whose EOF tells the supervisor the driver died, and the
        # controlling side of its tty (held open while it runs)
        self._open_fds = (driver_gone, *(() if terminal is None else (terminal,)))
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
            if sink is not None:  # outputs.result needs the end of stdout only; the rest is in the logs
                sink.append(chunk)
                while len(sink) > 1 and sum(map(len, sink)) - len(sink[0]) >= STDOUT_KEEP:
                    del sink[0]
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
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        fds, self._open_fds = self._open_fds, ()
        _close(*fds)
        for reader in self._readers:
            reader.join()
        made, self.mount_points = self.mount_points, []  # counted once, however often it is waited for
        _remove_mount_points(made)
        return ProcessResult(exit_code=code if code >= 0 else 128 - code, stdout=b"".join(self._stdout),
                             killed=self.killed, duration=time.monotonic() - self.started)

    def terminate(self) -> None:
        """Ask the node to end (SIGTERM to its main process group); it counts as killed from now on."""
        self.killed = True
        if self.proc.poll() is None:
            terminate(self.proc.pid)

    def kill(self) -> None:
        """End the node's whole tree: every descendant of its supervisor, then the supervisor."""
        self.killed = True
        if self.proc.poll() is None:
            kill_tree(self.proc.pid)


class FailedStart:
    """The process could not start (e.g. the command is not an executable)."""

    def __init__(self, message: str, code: int) -> None:
        self.message = message
        self.code = code

    def running_after(self, timeout: float) -> bool:
        return False

    def terminate(self) -> None:
        pass

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
        with MOUNT_POINTS_LOCK:
            plan, made = _mount_plan(spec)
        root = str(spec.root).encode()
        cwd = spec.cwd.encode()
        host_cwd = spec.host_path(spec.cwd)
        if not host_cwd.exists():
            host_cwd.mkdir(parents=True, exist_ok=True)
        gone_r, gone_w = os.pipe()
        report_r, report_w = os.pipe()
        terminal = os.openpty() if spec.tty else ()  # (controller, the process's stdin): the container's tty
        every_fd = (gone_r, gone_w, report_r, report_w, *terminal)  # all closed when it cannot start
        try:
            proc = subprocess.Popen(
                spec.argv, env=spec.env, stdin=terminal[1] if terminal else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, close_fds=True, pass_fds=(gone_r, report_w),
                preexec_fn=lambda: _node_child(plan, root, cwd, spec.security, gone_r, report_w),
            )
        except FileNotFoundError:
            return _failed(f'failed to find name in PATH: exec: "{spec.argv[0]}": executable file not found in '
                           "$PATH", 127, made, *every_fd)  # the words of Argo's emissary (Go's exec.LookPath)
        except PermissionError:
            return _failed(f"failed to start: {spec.argv[0]!r} is not executable", 126, made, *every_fd)
        except OSError as exc:
            code = 127 if exc.errno == errno.ENOENT else 126
            return _failed(f"failed to start {spec.argv[0]!r}: {exc.strerror}", code, made, *every_fd)
        except subprocess.SubprocessError as exc:
            _close(*every_fd)
            _remove_mount_points(made)
            raise NamespaceUnavailable(f"could not set up the node's mount namespace: {exc}", field="engine") from exc
        _close(gone_r, report_w, *terminal[1:])
        with os.fdopen(report_r, "rb") as fh:
            problem = fh.read().decode(errors="replace")  # EOF once the main process has exec'd (or failed)
        handle = LocalHandle(proc, spec, gone_w, made, terminal[0] if terminal else None)
        if problem:
            handle.wait()
            return FailedStart(problem, 126)
        return handle


def _close(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _failed(message: str, code: int, made: list[Path], *fds: int) -> FailedStart:
    _close(*fds)
    _remove_mount_points(made)
    return FailedStart(message, code)


def _probe() -> None:
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


# ---------------------------------------------------------------------------------------------- leftovers

def _tagged(tag: bytes, since: float | None = None) -> list[int]:
    """Processes whose environment carries ``AIPIPE_NODE=<...>/<node id>`` for this node, started at or
    after ``since`` (epoch seconds), so a process an earlier run of the same name left on purpose (a
    serving instance) is never taken for a leftover of this one."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read().split(b"\0")
        except OSError:
            continue
        if not any(item.startswith(NODE_ENV.encode() + b"=") and item.endswith(tag) for item in environ):
            continue
        started = _started_at(int(entry))
        if since is None or started is None or started >= since - 2:
            found.append(int(entry))
    return found


def _started_at(pid: int) -> float | None:
    """When a process started (epoch seconds), from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
    except (OSError, IndexError, ValueError, StopIteration):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")


def end_leftovers(node: Mapping[str, Any]) -> int:
    """End what a node's earlier run left behind (its driver was killed): the tree under its supervisor
    (``node["pid"]``) if that still runs, and every process tagged with the node's id that started after
    the node did. Returns how many processes were signalled. Call it before a node runs again on
    ``--resume`` / server recovery."""
    nid = str(node.get("id") or "")
    if not nid:
        return 0
    pid = node.get("pid")
    since = iso_epoch(node.get("startedAt"))
    tag = b"/" + nid.encode()
    count = 0
    if isinstance(pid, int) and pid > 1:
        below, tagged = descendants(pid), set(_tagged(tag, since))
        if any(p in tagged for p in below):  # still our supervisor: its main process carries the tag
            count += len(below) + 1
            kill_tree(pid)
    for _ in range(10):
        left = _tagged(tag, since)
        if not left:
            break
        for proc in left:
            count += 1
            kill_tree(proc)
    return count


__all__ = ["NEVER_PRIVATE", "NODE_ENV", "FailedStart", "LocalHandle", "LocalRunner", "NamespaceUnavailable",
           "end_leftovers", "kill_tree"]
