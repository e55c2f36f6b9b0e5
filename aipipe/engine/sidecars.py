"""A node's other containers: ``initContainers`` run one by one before main, ``sidecars`` run beside it.

They are processes of the same node: the same private root (its ``/tmp``, ``/argo``, emptyDirs and volumes),
the host's network (loopback is shared, as a pod's containers share localhost), each with its own command,
image, env and securityContext. As in Argo, a failing init container fails the node before main starts
(``<name>: Error (exit code N)``); sidecars are killed once main has ended, and one that had already ended
with an error of its own (not a kill's 137/143) fails a node whose main succeeded. ``mirrorVolumeMounts`` gives
a container main's volume mounts too. :class:`ExtraContainers` builds their process specs from main's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aipipe.engine.kubeexpand import expand
from aipipe.engine.runners.base import Handle, ProcessSpec
from aipipe.engine.runners.local import NODE_ENV, LocalHandle, LocalRunner
from aipipe.engine.security import SecurityError, node_security
from aipipe.errors import UserError

if TYPE_CHECKING:
    from aipipe.engine.pod import LineMasker, PodRunner

KILLED_CODES = (137, 143)  # SIGKILL / SIGTERM: how a sidecar ends when main is done; not an error of its own


@dataclass
class Extra:
    """One init container or sidecar, ready to start."""

    name: str
    spec: ProcessSpec
    on_end: Callable[[], None]  # flushes its log streams


def failure(name: str, code: int, start_error: str) -> str:
    """Argo's node message for a container of the pod that failed."""
    return f"{name}: {start_error}" if start_error else f"{name}: Error (exit code {code})"


def run_init(containers: list[Extra], runner: LocalRunner, track: Callable[[Handle | None], None],
             stopped: Callable[[], bool]) -> str | None:
    """Run the init containers in order; the message of the first that fails (None when all succeed).
    ``track`` is given each running handle (None once it ended) so a stop can kill it."""
    for extra in containers:
        if stopped():
            return "stopped"
        handle = runner.start(extra.spec)
        track(handle)
        try:
            result = handle.wait()
        finally:
            track(None)
            extra.on_end()
        if result.killed:
            return "stopped"
        if result.start_error or result.exit_code != 0:
            return failure(extra.name, result.exit_code, result.start_error)
    return None


class Sidecars:
    """The sidecars of one node, started before main and stopped after it."""

    def __init__(self, containers: list[Extra], runner: LocalRunner) -> None:
        self.started: list[tuple[Extra, Handle]] = []
        for extra in containers:
            self.started.append((extra, runner.start(extra.spec)))

    def stop(self) -> str | None:
        """Kill the sidecars still running; the message of one that had failed by itself (None if none did)."""
        problem = None
        for extra, handle in self.started:
            ended = not isinstance(handle, LocalHandle) or handle.proc.poll() is not None
            if not ended:
                handle.kill()
            result = handle.wait()
            extra.on_end()
            if ended and problem is None and (result.start_error or (
                    result.exit_code != 0 and result.exit_code not in KILLED_CODES)):
                problem = failure(extra.name, result.exit_code, result.start_error)
        return problem


def _with_mirrored(main: Mapping[str, Any], container: Mapping[str, Any]) -> dict[str, Any]:
    """A sidecar or init container with ``mirrorVolumeMounts`` gets main's volume mounts too."""
    own = list(container.get("volumeMounts") or [])
    if container.get("mirrorVolumeMounts"):
        paths = {m.get("mountPath") for m in own}
        own += [m for m in main.get("volumeMounts") or [] if m.get("mountPath") not in paths]
    return {**container, "volumeMounts": own}


def pod_body(main: Mapping[str, Any], others: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Main's body with the volume mounts of all the pod's containers (each mount path once)."""
    mounts = list(main.get("volumeMounts") or [])
    paths = {m.get("mountPath") for m in mounts}
    for other in others:
        for mount in _with_mirrored(main, other)["volumeMounts"]:
            if mount.get("mountPath") not in paths:
                paths.add(mount.get("mountPath"))
                mounts.append(mount)
    return {**main, "volumeMounts": mounts}


class ExtraContainers:
    """Builds the process specs of a node's init containers and sidecars from its main container's."""

    def __init__(self, pods: PodRunner, nid: str, tmpl: Mapping[str, Any], main: Mapping[str, Any],
                 base: ProcessSpec, pod_fields: Mapping[str, str]) -> None:
        self.pods, self.nid, self.tmpl, self.main, self.base, self.pod_fields = pods, nid, tmpl, main, base, pod_fields

    def build(self, containers: Sequence[Mapping[str, Any]], field: str) -> list[Extra]:
        pods = self.pods
        built = []
        for i, container in enumerate(containers):
            name = str(container.get("name") or f"{field}[{i}]")
            runtime = pods.images.resolve(container.get("image"))
            env, declared = pods.env.build(container, runtime.search_path(), dict(runtime.env), self.pod_fields)
            argv = runtime.argv([expand(str(c), declared) for c in container.get("command") or []],
                                [expand(str(a), declared) for a in container.get("args") or []])
            if not argv:
                raise UserError(f"{name} has no command, no args and its image has no default command; add it to "
                                f"{pods.images.source}", field=f"{field}[{i}]")
            env[NODE_ENV] = self.base.env[NODE_ENV]
            try:
                security = node_security(pods.pod_security, self.tmpl.get("securityContext"),
                                         container.get("securityContext"), self.nid)
            except SecurityError as exc:
                raise UserError(str(exc), field=f"{field}[{i}].securityContext") from exc
            mounted = _with_mirrored(self.main, container)
            out, err = pods.log_stream(self.nid), pods.log_stream(self.nid)
            spec = dataclasses.replace(
                self.base, argv=argv, env=env, cwd=str(container.get("workingDir") or "/"), security=security,
                tty=container.get("tty") is True,
                binds=pods.volumes.binds(self.tmpl, mounted) + pods.volumes.in_shared_folders(
                    self.tmpl, mounted, self.base.root, self.base.private_tops),
                read_only_mounts=pods.volumes.read_only_paths(
                    self.tmpl, mounted), hidden=pods.hidden(env), on_stdout=out.feed, on_stderr=err.feed)

            def flush(out: LineMasker = out, err: LineMasker = err) -> None:
                out.flush()
                err.flush()

            built.append(Extra(name, spec, flush))
        return built
