"""A node's ``securityContext``: who its process runs as and which capabilities it keeps.

Pod-level fields come from ``spec.securityContext`` and the template's ``securityContext`` (a
PodSecurityContext); container-level fields from the container's ``securityContext``, which wins,
as on Kubernetes. Honoured: ``runAsUser``, ``runAsGroup``, ``runAsNonRoot``, ``supplementalGroups``,
``fsGroup`` (a supplementary group, and the group of the node's emptyDir folders, secret files and claims,
group-writable and setgid as the kubelet leaves them; ``fsGroupChangePolicy: OnRootMismatch`` leaves a claim whose top
folder is already so; it changes nothing on volumes made fresh for the node),
``allowPrivilegeEscalation`` (no_new_privs), ``capabilities`` (the bounding set), ``privileged: false``,
``readOnlyRootFilesystem: false`` and ``seccompProfile: Unconfined``. Anything else that is set is
refused with a message naming the field: the embedded engine never ignores a security setting.
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
                "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
                "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
                "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
                "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
                "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE")
CAP_NUMBER = {name: number for number, name in enumerate(CAPABILITIES)}
# A container runtime's default set, less MKNOD (the node's /dev is minimal and no device cgroup guards it).
DEFAULT_CAPS = frozenset(CAP_NUMBER[n] for n in ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID",
                                                 "SETUID", "SETPCAP", "NET_BIND_SERVICE", "NET_RAW", "SYS_CHROOT",
                                                 "AUDIT_WRITE", "SETFCAP"))
_POD_HONOURED = {"runAsUser", "runAsGroup", "runAsNonRoot", "supplementalGroups", "fsGroup", "fsGroupChangePolicy",
                 "seccompProfile"}
FS_GROUP_POLICIES = ("OnRootMismatch", "Always")
_CONTAINER_HONOURED = {"runAsUser", "runAsGroup", "runAsNonRoot", "allowPrivilegeEscalation", "capabilities",
                       "privileged", "readOnlyRootFilesystem", "seccompProfile"}


class SecurityError(Exception):
    """The securityContext asks for something the embedded engine cannot honour."""


_FS_GROUP_FOLDER = 0o2770  # the kubelet's mask for a volume's folders: rw and search for owner and group, setgid


@dataclass(frozen=True)
class NodeSecurity:
    """What the runner applies after the node's mounts are set up."""

    uid: int | None = None  # None: run as the engine's user (root)
    gid: int = 0
    groups: tuple[int, ...] = ()
    fs_group: int | None = None  # the group that owns the node's volumes
    fs_group_on_root_mismatch: bool = False  # fsGroupChangePolicy OnRootMismatch: a claim already so is left alone
    caps: frozenset[int] = DEFAULT_CAPS  # the bounding set the node keeps
    no_new_privs: bool = False


def _set(value: Any) -> bool:
    return value not in (None, "", [], {}, False)


def _id(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
        raise SecurityError(f"{where}: must be an integer between 0 and 2147483647")
    return value


def _refuse_unknown(ctx: Mapping[str, Any], honoured: set[str], where: str) -> None:
    for key, value in ctx.items():
        if key in honoured or not _set(value):
            continue
        raise SecurityError(f"{where}.{key} is not supported by the embedded engine; remove it or submit to Argo "
                            "on Kubernetes")
    seccomp = ctx.get("seccompProfile") or {}
    if seccomp and seccomp.get("type") != "Unconfined":
        raise SecurityError(f"{where}.seccompProfile: the embedded engine has no seccomp profiles (only type "
                            "Unconfined can be honoured); remove it or submit to Argo on Kubernetes")


def _caps(capabilities: Mapping[str, Any], where: str) -> frozenset[int]:
    def names(field: str) -> list[str]:
        raw = capabilities.get(field) or []
        if not isinstance(raw, list):
            raise SecurityError(f"{where}.capabilities.{field}: must be a list")
        out = []
        for item in raw:
            name = str(item).upper().removeprefix("CAP_")
            if name != "ALL" and name not in CAP_NUMBER:
                raise SecurityError(f"{where}.capabilities.{field}: unknown capability {item!r}")
            out.append(name)
        return out

    drop, add = names("drop"), names("add")
    keep = set() if "ALL" in drop else set(DEFAULT_CAPS) - {CAP_NUMBER[n] for n in drop}
    keep |= set(CAP_NUMBER.values()) if "ALL" in add else {CAP_NUMBER[n] for n in add}
    return frozenset(keep)


def node_security(workflow_ctx: Mapping[str, Any] | None, template_ctx: Mapping[str, Any] | None,
                  container_ctx: Mapping[str, Any] | None, node: str) -> NodeSecurity:
    """Merge the three levels; refuse what cannot be honoured (Kubernetes' words for runAsNonRoot)."""
    pod: dict[str, Any] = {**(workflow_ctx or {}), **(template_ctx or {})}
    container: dict[str, Any] = dict(container_ctx or {})
    _refuse_unknown(pod, _POD_HONOURED, "securityContext")
    _refuse_unknown(container, _CONTAINER_HONOURED, "container.securityContext")
    if container.get("privileged"):
        raise SecurityError("container.securityContext.privileged: privileged nodes are not supported by the "
                            "embedded engine; submit to Argo on Kubernetes")
    if container.get("readOnlyRootFilesystem"):
        raise SecurityError("container.securityContext.readOnlyRootFilesystem is not supported by the embedded "
                            "engine (the node's own folders stay writable); remove it or submit to Argo on "
                            "Kubernetes")
    merged = {**pod, **{k: v for k, v in container.items() if v is not None}}
    uid = _id(merged["runAsUser"], "securityContext.runAsUser") if merged.get("runAsUser") is not None else None
    if merged.get("runAsNonRoot"):
        if uid is None:
            raise SecurityError(f'container has runAsNonRoot and image will run as root (pod: "{node}", '
                                'container: main)')
        if uid == 0:
            raise SecurityError(f'container\'s runAsUser breaks non-root policy (pod: "{node}", container: main)')
    if merged.get("runAsGroup") is not None:
        gid = _id(merged["runAsGroup"], "securityContext.runAsGroup")
    elif uid is not None:
        try:
            gid = pwd.getpwuid(uid).pw_gid
        except KeyError:
            gid = 0  # a user unknown to /etc/passwd runs with group 0, as in a container
    else:
        gid = 0
    extra = pod.get("supplementalGroups") or []
    if not isinstance(extra, list):
        raise SecurityError("securityContext.supplementalGroups: must be a list of integers")
    fs_group = _id(pod["fsGroup"], "securityContext.fsGroup") if pod.get("fsGroup") is not None else None
    policy = pod.get("fsGroupChangePolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        raise SecurityError(f"securityContext.fsGroupChangePolicy: must be one of {', '.join(FS_GROUP_POLICIES)}")
    groups = tuple(dict.fromkeys([gid, *(_id(g, "securityContext.supplementalGroups") for g in extra),
                                  *([fs_group] if fs_group is not None else [])]))
    no_new_privs = container.get("allowPrivilegeEscalation") is False
    caps = _caps(container.get("capabilities") or {}, "container.securityContext")
    if uid is None and merged.get("runAsGroup") is None and not extra and fs_group is None:
        return NodeSecurity(caps=caps, no_new_privs=no_new_privs)
    return NodeSecurity(uid=0 if uid is None else uid, gid=gid, groups=groups, fs_group=fs_group, caps=caps,
                        no_new_privs=no_new_privs, fs_group_on_root_mismatch=policy == "OnRootMismatch")


def own_volume_path(path: Path, security: NodeSecurity, folder: bool) -> None:
    """Give a node's volume folder or file to its user, and to its fsGroup as the kubelet does: group-owned,
    group-writable folders with setgid (new files keep the group), group-readable files."""
    if security.uid is not None:
        os.chown(path, security.uid, security.gid if security.fs_group is None else security.fs_group)
    if security.fs_group is not None:
        path.chmod(path.stat().st_mode | (0o2070 if folder else 0o040))


def give_claim_to_fs_group(folder: Path, security: NodeSecurity) -> None:
    """A claim mounted in a pod with an ``fsGroup``, as the kubelet's SetVolumeOwnership leaves it: every file and
    folder in that group, group-readable and -writable, folders also searchable and setgid (links are not followed).
    With ``fsGroupChangePolicy: OnRootMismatch`` nothing changes when the claim's top folder already is so."""
    group = security.fs_group
    if group is None:
        return
    if security.fs_group_on_root_mismatch and _fs_group_owns(folder, group):
        return
    for top, _, files in os.walk(folder):  # a link to a folder is listed, never entered
        for path in [Path(top), *(Path(top, name) for name in files)]:
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                continue
            os.lchown(path, -1, group)
            path.chmod(stat.S_IMODE(info.st_mode) | (_FS_GROUP_FOLDER if stat.S_ISDIR(info.st_mode) else 0o660))


def _fs_group_owns(folder: Path, group: int) -> bool:
    info = folder.stat()
    return info.st_gid == group and info.st_mode & _FS_GROUP_FOLDER == _FS_GROUP_FOLDER
