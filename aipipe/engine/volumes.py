"""A node's volumes on this machine.

Persistent volumes (``persistentVolumeClaim``, ``volumeClaimTemplates``) are one folder per run under
``<run>/volumes``, shared by the run's nodes and bound at their mount paths by the runner. The other kinds
are the node's own, written into its private root before it starts: ``emptyDir`` is a fresh empty folder
(each node, like each pod, has its own; ``medium``/``sizeLimit`` govern a cluster's node memory and disk
and change nothing here), ``configMap`` is the local ConfigMap's files, read-only
(:mod:`aipipe.engine.configmaps`), ``secret`` is the local secret's keys, readable by the node's user only
and removed when it ends. ``hostPath`` is refused: a node must not reach into the host.

Workflow-level volumes take the scope of the node that mounts them (:func:`with_workflow_volumes`), as Argo
substitutes the calling step's or task's scope into ``spec.volumes`` and the node's own into its pod spec.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from aipipe.confine import confined
from aipipe.engine.configmaps import ConfigMapStore, write_read_only
from aipipe.engine.runners.base import host_path
from aipipe.engine.runners.local import can_host_volumes
from aipipe.engine.secrets import SecretStore
from aipipe.engine.security import NodeSecurity, own_volume_path
from aipipe.engine.template import Scope, TemplateError, find_tags, render
from aipipe.errors import UserError

Mount = Mapping[str, Any]  # a volumeMounts entry or a volume, as written
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")
Where = Callable[[str], Path]


class PodNotCreated(UserError):
    """What Argo's controller finds when it builds the node's pod (a mount of a volume nobody declares): the pod
    is never created, and the error is the controller's, not the pod's (see :mod:`aipipe.engine.executor`)."""


def remove_tree(folder: Path) -> None:
    """Remove a node's folder left by an earlier attempt, read-only ConfigMap folders included."""
    for parent, dirs, _ in os.walk(folder):
        for name in dirs:
            path = Path(parent, name)
            if not path.is_symlink():
                path.chmod(0o755)
    shutil.rmtree(folder)


def _is_dev_shm(volume: Mapping[str, Any], mount_path: str) -> bool:
    """An emptyDir at ``/dev/shm``: the runner gives every node a shared-memory folder of its own there."""
    return volume.get("emptyDir") is not None and mount_path.rstrip("/") == "/dev/shm"


def _share_empty_dir(name: str, mounts: list[tuple[Mapping[str, Any], Path]], root: Path,
                     security: NodeSecurity) -> None:
    """One emptyDir, however often it is mounted: its folder is the first mount without a ``subPath`` (else a
    private folder in the node's root), and every other mount is a relative link to the folder or to its
    ``subPath``, so all of them show the same files, as one volume mounted twice in a pod does."""
    home = next((target for mount, target in mounts if not str(mount.get("subPath") or "").strip("/")),
                confined(root, ".volumes", _SAFE_NAME.sub("_", name), field=f"volumes.{name}"))
    for mount, target in mounts:
        sub = str(mount.get("subPath") or "").strip("/")
        folder = confined(home, sub, field=f"volumeMounts.{name}.subPath") if sub else home
        for made in (home, folder):
            made.mkdir(parents=True, exist_ok=True)
            own_volume_path(made, security, folder=True)
        if target == folder:
            continue
        if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
            target.rmdir()
        if target.exists() or target.is_symlink():
            raise UserError(f"{mount.get('mountPath')} is already in use; mount emptyDir {name!r} elsewhere",
                            field=f"volumeMounts.{name}.mountPath")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(os.path.relpath(folder, target.parent), target_is_directory=True)


def mounted_names(tmpl: Mapping[str, Any]) -> set[str]:
    """Names of the volumes any container of the template mounts (main, containerSet, init, sidecars)."""
    containers = [tmpl.get("container"), tmpl.get("script"), *((tmpl.get("containerSet") or {}).get("containers")
                                                               or []),
                  *(tmpl.get("initContainers") or []), *(tmpl.get("sidecars") or [])]
    return {str(m.get("name")) for c in containers if isinstance(c, Mapping)
            for m in c.get("volumeMounts") or [] if isinstance(m, Mapping)}


def render_lenient(value: Any, scope: Scope) -> Any:
    """``value`` with each ``{{…}}`` tag ``scope`` resolves substituted; the others stay as written (Argo's
    substitution of ``spec.volumes`` allows unresolved tags: a later scope may resolve them)."""
    if isinstance(value, str):
        out, pos = [], 0
        for start, end, _ in find_tags(value):
            tag = value[start:end]
            try:
                out += [value[pos:start], render(tag, scope)]
            except TemplateError:
                out += [value[pos:start], tag]
            pos = end
        return "".join(out) + value[pos:]
    if isinstance(value, list):
        return [render_lenient(v, scope) for v in value]
    if isinstance(value, Mapping):
        return {k: render_lenient(v, scope) for k, v in value.items()}
    return value


def with_workflow_volumes(tmpl: dict[str, Any], workflow_volumes: Mapping[str, Mapping[str, Any]],
                          caller: Scope) -> dict[str, Any]:
    """``tmpl`` (a copy when it changes) with the workflow volumes it mounts and does not declare itself added
    to its ``volumes``, rendered with the ``caller``'s scope (the steps or DAG template's, where the outputs of
    earlier steps and tasks live); what is left renders with the node's own scope when the node runs."""
    own = {str(v.get("name")) for v in tmpl.get("volumes") or []}
    wanted = sorted(name for name in mounted_names(tmpl) - own if name in workflow_volumes)
    if not wanted:
        return tmpl
    added = [render_lenient(dict(workflow_volumes[name]), caller) for name in wanted]
    return {**tmpl, "volumes": [*added, *(tmpl.get("volumes") or [])]}


@dataclass(frozen=True)
class NodeVolumes:
    """Resolves a template's ``volumeMounts`` against its ``volumes`` and the workflow's."""

    work_dir: Path
    secrets: SecretStore
    configmaps: ConfigMapStore
    workflow_volumes: Mapping[str, Mapping[str, Any]]

    def _mounts(self, tmpl: Mapping[str, Any], body: Mapping[str, Any]
                ) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
        volumes = {**self.workflow_volumes, **{v.get("name"): v for v in tmpl.get("volumes") or []}}
        for mount in body.get("volumeMounts") or []:
            name = str(mount.get("name"))
            volume = volumes.get(name)
            if volume is None:
                raise PodNotCreated(f"volume '{name}' not found in workflow spec (nor in the template's volumes "
                                    "or spec.volumeClaimTemplates)", field="volumeMounts")
            yield name, mount, volume

    def binds(self, tmpl: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """(run folder, mount path) of each persistent volume the node mounts."""
        binds = []
        for name, mount, volume in self._mounts(tmpl, body):
            if volume.get("secret") or volume.get("configMap") or volume.get("emptyDir") is not None:
                continue
            if volume.get("hostPath"):
                raise UserError("hostPath volumes need Kubernetes; use an artifact or a claim",
                                field=f"volumes.{name}.hostPath")
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName") or name
            folder = confined(self.work_dir, "volumes", _SAFE_NAME.sub("_", str(claim)),
                              str(mount.get("subPath") or "").strip("/"), field=f"volumeMounts.{name}.subPath")
            folder.mkdir(parents=True, exist_ok=True)
            binds.append((str(folder), str(mount["mountPath"])))
        return tuple(binds)

    def _in_shared_folders(self, tmpl: Mapping[str, Any], body: Mapping[str, Any], root: Path,
                           private_tops: frozenset[str]) -> Iterator[tuple[str, Mount, Mount, str]]:
        """(name, mount, volume, mount path) of each volume mounted in a host folder the node shares (``/etc/x``),
        not in its own folders (an emptyDir at ``/dev/shm`` is the node's own)."""
        for name, mount, volume in self._mounts(tmpl, body):
            mount_path = str(PurePosixPath("/", str(mount.get("mountPath") or "")))
            if not _is_dev_shm(volume, mount_path) and not host_path(root, private_tops, mount_path).is_relative_to(
                    root):
                yield name, mount, volume, mount_path

    def check_mount_paths(self, tmpl: Mapping[str, Any], body: Mapping[str, Any], root: Path,
                          private_tops: frozenset[str]) -> None:
        """Refuse, before anything is written for the node, a mount path that is not absolute or holds ``..`` (as
        Kubernetes does), and a volume mounted where the node cannot have a mount of its own: in ``/dev``, ``/proc``
        or ``/sys``, a host folder that is a link (``/bin`` on a merged-/usr host), or one with other filesystems
        mounted below it."""
        for name, mount, _ in self._mounts(tmpl, body):
            given = str(mount.get("mountPath") or "")
            if not given.startswith("/") or ".." in PurePosixPath(given).parts:
                raise UserError(f"{given!r} must be an absolute path without '..'",
                                field=f"volumeMounts.{name}.mountPath")
        for name, _, _, mount_path in self._in_shared_folders(tmpl, body, root, private_tops):
            if not can_host_volumes(PurePosixPath(mount_path).parts[1]):
                raise UserError(f"{mount_path} is in a host folder the node cannot mount a volume in (/dev, /proc, "
                                "/sys, or one with other filesystems mounted below it); mount the volume elsewhere "
                                "(e.g. /config)", field=f"volumeMounts.{name}.mountPath")

    def in_shared_folders(self, tmpl: Mapping[str, Any], body: Mapping[str, Any], root: Path,
                          private_tops: frozenset[str]) -> tuple[tuple[str, str], ...]:
        """(what the engine fills, mount path) of each secret, configMap and emptyDir volume mounted in a host folder
        the node shares (``/etc/creds``, ``/run/x``): its files live in the node's own folders (an emptyDir in
        ``root/.volumes``, a secret or configMap beside the root), and the runner mounts them there in the node's
        overlay of that folder; a claim there is in :meth:`binds`."""
        staged = []
        for name, mount, volume, mount_path in self._in_shared_folders(tmpl, body, root, private_tops):
            if volume.get("emptyDir") is not None:
                sub = str(mount.get("subPath") or "").strip("/") or "."
                source = confined(root, ".volumes", _SAFE_NAME.sub("_", name), sub,
                                  field=f"volumeMounts.{name}.subPath")
            elif volume.get("secret") or volume.get("configMap"):
                digest = hashlib.sha256(mount_path.encode()).hexdigest()[:16]
                source = root.parent / "mounts" / f"{_SAFE_NAME.sub('_', name)}-{digest}"
            else:
                continue
            staged.append((str(source), mount_path))
        return tuple(staged)

    def read_only_paths(self, tmpl: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[str, ...]:
        """Mount paths the node must not write: ConfigMap and Secret volumes (read-only in Kubernetes) and
        mounts with ``readOnly: true``."""
        return tuple(str(mount["mountPath"]) for _, mount, volume in self._mounts(tmpl, body)
                     if volume.get("configMap") or volume.get("secret") or mount.get("readOnly"))

    def write_own(self, tmpl: Mapping[str, Any], body: Mapping[str, Any], root: Path, where: Where,
                  security: NodeSecurity) -> list[Path]:
        """Make the node's emptyDir folders and write its configMap files; returns the folders made read-only
        (to unlock with :func:`aipipe.engine.configmaps.unlock` when the node ends)."""
        locked: list[Path] = []
        shared: dict[str, list[tuple[Mapping[str, Any], Path]]] = {}  # emptyDir name -> its mounts' targets
        for name, mount, volume in self._mounts(tmpl, body):
            if volume.get("emptyDir") is None and not volume.get("configMap"):
                continue
            mount_path = str(mount.get("mountPath") or "")
            if _is_dev_shm(volume, mount_path):
                continue  # the runner gives every node a /dev/shm of its own
            target = where(mount_path)
            if volume.get("emptyDir") is not None:
                shared.setdefault(name, []).append((mount, target))
                continue
            field = f"volumes.{name}.configMap"
            files = self.configmaps.volume_files(volume["configMap"], field)
            locked += write_read_only(files, target, str(mount.get("subPath") or "").strip("/"), field)
        for name, mounts in shared.items():
            _share_empty_dir(name, mounts, root, security)
        return locked

    def write_secrets(self, tmpl: Mapping[str, Any], body: Mapping[str, Any], where: Where,
                      security: NodeSecurity) -> list[Path]:
        """Write the keys of each secret volume at its mount path (only ``items``' keys, at their paths, when
        given; none for a missing ``optional`` secret); returns the files (removed when the node ends)."""
        written: list[Path] = []
        try:
            for name, mount, volume in self._mounts(tmpl, body):
                secret = volume.get("secret")
                if not secret:
                    continue
                folder = where(str(mount["mountPath"]))
                folder.mkdir(parents=True, exist_ok=True)
                for relative, value in self._secret_files(secret, f"volumes.{name}.secret").items():
                    path = confined(folder, relative, field=f"volumes.{name}.secret.items.path")
                    path.parent.mkdir(parents=True, exist_ok=True)
                    written.append(path)
                    path.write_text(value)
                    path.chmod(0o400)
                    own_volume_path(path, security, folder=False)
        except BaseException:  # a later volume failed: no secret stays on disk
            for path in written:
                path.unlink(missing_ok=True)
            raise
        return written

    def _secret_files(self, secret: Mapping[str, Any], field: str) -> dict[str, str]:
        name, optional = str(secret.get("secretName")), bool(secret.get("optional"))
        if optional and not confined(self.secrets.root, name, field=field).is_dir():
            return {}
        values = self.secrets.keys(name)
        items = secret.get("items")
        if not items:
            return values
        files = {}
        for i, item in enumerate(items):
            key = str(item.get("key"))
            if key in values:
                files[str(item.get("path") or key)] = values[key]
            elif not optional:
                raise UserError(f"secret {name!r} has no key {key!r} (put it in {self.secrets.root / name / key})",
                                field=f"{field}.items[{i}].key")
        return files
