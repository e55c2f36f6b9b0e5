"""Runs one container/script node: private root, inputs, env and secrets, GPU, deadline, outputs.

The node's container paths map to ``<work_dir>/nodes/<node id>/root`` (see
:mod:`aipipe.engine.runners.local`); the engine reads output files from there after the process
ends and writes input artifacts there before it starts.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from aipipe.confine import confined
from aipipe.engine.calls import Call
from aipipe.engine.configmaps import ConfigMapStore, unlock
from aipipe.engine.containerset import ContainerGraph, ContainerNodes, SetRetry, split_set
from aipipe.engine.daemons import DaemonRegistry, wait_ready
from aipipe.engine.deadlines import pod_limits
from aipipe.engine.execution import ExecutionContext
from aipipe.engine.gpupool import Grant, RunGpus
from aipipe.engine.gpushare import mps_folders
from aipipe.engine.halt import Cancellation, NodeCancellation
from aipipe.engine.images import ImageMap
from aipipe.engine.io import ArtifactError, load_input
from aipipe.engine.kubeexpand import expand
from aipipe.engine.nodes import NodeTree
from aipipe.engine.phases import NodePhase
from aipipe.engine.podenv import PROGRESS_FILE, ContainerEnv, pod_fields
from aipipe.engine.podoutputs import collect_outputs
from aipipe.engine.runners.base import Handle, ProcessSpec, host_path
from aipipe.engine.runners.local import NEVER_PRIVATE, NODE_ENV, LocalHandle, LocalRunner, end_leftovers
from aipipe.engine.secrets import StreamMasker, safe_tail
from aipipe.engine.security import NodeSecurity, SecurityError, give_claim_to_fs_group, node_security
from aipipe.engine.sidecars import ExtraContainers, Sidecars, pod_body, run_init
from aipipe.engine.template import Scope, TemplateError, render_deep
from aipipe.engine.volumes import NodeVolumes, PodNotCreated, remove_tree
from aipipe.errors import UserError

RESULT_LIMIT = 256 * 1024
STOP_GRACE_S = 30.0  # Kubernetes' default terminationGracePeriodSeconds: SIGTERM, then SIGKILL this much later
SCRIPT_PATH = "/argo/staging/script"
SHARED_OUTPUT_TOPS = NEVER_PRIVATE - {"proc", "sys", "dev", "run"}  # host folders an output parameter may read
SHARED_OUTPUT_LIMIT = 1024 * 1024  # bytes of such a file


class NodeError(Exception):
    """The node fails before its process starts."""

    def __init__(self, message: str, phase: str = NodePhase.ERROR) -> None:
        super().__init__(message)
        self.phase = phase


class LineMasker(StreamMasker):
    """Masks secret values in a node's output stream, even a value split between two chunks or flushes."""

    def __init__(self, ctx: ExecutionContext, nid: str) -> None:
        super().__init__(ctx.secrets, lambda text: ctx.on_log(nid, text))

    def flush(self) -> None:
        self.close()


def node_path(root: Path, private_tops: frozenset[str], container_path: str,
              binds: tuple[tuple[str, str], ...] = ()) -> Path:
    """Where a container path lives on the host: in the folder of the persistent volume mounted over it (``binds``:
    (folder, mount path); as Argo's executor reads outputs from, and loads inputs into, the volume a path lies in),
    else inside the node's root (no ``..``, no symlink out of either), or a host folder the node shares as is
    (``/usr``, ``/etc``…; callers never write there)."""
    if ".." in PurePosixPath(container_path).parts:
        raise UserError(f"{container_path!r} must not contain '..'", field="path")
    normal = str(PurePosixPath("/", container_path))
    for folder, mount in sorted(binds, key=lambda bind: len(bind[1]), reverse=True):  # the innermost mount first
        mount = str(PurePosixPath("/", mount))
        if normal == mount or normal.startswith(mount.rstrip("/") + "/"):
            return confined(Path(folder), normal[len(mount):].lstrip("/") or ".", field="path")
    mapped = host_path(root, private_tops, container_path)
    if mapped.is_relative_to(root):
        return confined(root, str(mapped.relative_to(root)), field="path")
    return mapped


def shared_readable(path: Path) -> bool:
    """Whether ``path`` is a regular file of at most :data:`SHARED_OUTPUT_LIMIT` bytes in a host folder nodes share
    read-only (``/etc``, ``/usr``…, not ``/proc``, ``/sys``, ``/dev`` or ``/run``), its links followed, that any
    user may read (the file world-readable, every folder above it world-searchable): what an output parameter may
    read outside the node's own folders, nothing its node could not read itself whoever it runs as."""
    real = Path(os.path.realpath(path))
    if len(real.parts) < 3 or real.parts[1] not in SHARED_OUTPUT_TOPS:
        return False
    try:
        info = real.stat()
        folders_open = all(folder.stat().st_mode & stat.S_IXOTH for folder in real.parents)
    except OSError:
        return False
    return (stat.S_ISREG(info.st_mode) and bool(info.st_mode & stat.S_IROTH) and folders_open
            and info.st_size <= SHARED_OUTPUT_LIMIT)


def _interpreter_paths(extra: tuple[str, ...]) -> tuple[str, ...]:
    """What every node must see, read-only, wherever it lives (even under a private /tmp): the ``extra`` folders
    the settings name and the prefixes of the interpreter the engine runs with (its venv and the base
    installation)."""
    exe = Path(sys.executable)
    paths = {*extra, sys.prefix, sys.base_prefix, str(exe.parent.parent), str(exe.resolve().parent.parent)}
    return tuple(sorted(p for p in paths if p not in ("/", "") and os.path.isdir(p)))


def _stop(*handles: Handle) -> None:
    """End nodes as Kubernetes deletes pods: SIGTERM to each now, SIGKILL to the trees of those still running
    :data:`STOP_GRACE_S` later (a GPU process killed mid-kernel can stall an MPS server's other clients)."""
    for handle in handles:
        handle.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for handle in handles:
        if handle.running_after(max(0.0, deadline - time.monotonic())):
            handle.kill()


def _clean_up(secret_files: list[Path], locked: list[Path]) -> None:
    """Remove a node's secret files and unlock its read-only ConfigMap folders once it has ended."""
    for path in secret_files:
        path.unlink(missing_ok=True)
    unlock(locked)


def _give_folders(root: Path, private: frozenset[str], security: NodeSecurity) -> None:
    """A node running as another user owns its own folders, as a container's user owns its emptyDirs;
    ``/tmp`` is sticky and writable by all, as in an image. Its ``/`` stays root's (mode 0755), as an image's:
    only root makes new top-level folders."""
    if security.uid is None:
        return
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    for folder in (root / top for top in private):
        folder.mkdir(parents=True, exist_ok=True)
        os.chown(folder, security.uid, security.gid)
    (root / "tmp").chmod(0o1777)


class PodRunner:
    """Starts leaf nodes and tracks their processes so stop/deadlines can kill them."""

    def __init__(self, ctx: ExecutionContext, workflow_name: str, images: ImageMap, gpus: RunGpus,
                 cancelled: threading.Event, parallelism: int | None,
                 workflow_volumes: list[dict[str, Any]] | None = None,
                 pod_security: Mapping[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.workflow_name = workflow_name
        self.images = images
        self.gpus = gpus
        self.cancelled = cancelled
        # nodes the run's end does not reach (a Stop's exit handlers): the run sets it once it knows them
        self.spared: Callable[[str], bool] = lambda nid: False
        self.runner = LocalRunner()
        self.pod_slots = threading.BoundedSemaphore(parallelism) if parallelism else None
        self.lock = threading.Lock()
        self.running: dict[str, LocalHandle] = {}
        self.daemons = DaemonRegistry()
        self.shared = ctx.settings.folders.shared
        self.readonly = _interpreter_paths(ctx.settings.folders.read_only)
        self.pod_security = dict(pod_security or {})
        self.configmaps = ConfigMapStore.from_home(ctx.settings.state_dir)
        self.env = ContainerEnv(ctx, self.configmaps)
        self.volumes = NodeVolumes(ctx.work_dir, ctx.secrets, self.configmaps,
                                   {str(v.get("name")): v for v in workflow_volumes or []})

    def log_stream(self, nid: str) -> LineMasker:
        """A stream of the node's log (stdout or stderr of one of its containers), secrets masked."""
        return LineMasker(self.ctx, nid)

    def check_available(self) -> None:
        self.runner.check_available()

    def kill_all(self) -> None:
        """End every running node (see :func:`_stop`)."""
        with self.lock:
            handles = [h for nid, h in self.running.items() if not self.spared(nid)]
        _stop(*handles)

    def hidden(self, env: Mapping[str, str]) -> tuple[str, ...]:
        """Host folders a node must not see: those the settings hide (the engine's state: run store, secrets,
        server token) and the user's home (keys and credentials in dotfiles); the node gets an empty, private,
        writable folder there instead, as a container has its own ``$HOME``."""
        home = env.get("HOME", "")
        return (*self.ctx.settings.folders.hidden, *((home,) if home.startswith("/") and home.strip("/") else ()))

    @staticmethod
    def kill_orphan(node: Mapping[str, Any]) -> None:
        """End what a previous driver's node left running (resume after kill -9); see ``end_leftovers``."""
        end_leftovers(node)

    # ------------------------------------------------------------------ run

    def run(self, nid: str, name: str, call: Call, scope: Scope, tree: NodeTree,
            on_ready: Callable[[], None] | None = None) -> dict[str, Any]:
        """Run the node to its end; ``on_ready`` (a daemon's) is called once its process runs and its
        readinessProbe passes, while the process runs on."""
        skip = frozenset({"expression", "fromExpression", "metrics"})
        try:  # metrics are Argo's to compute after the node ends (a cluster feature): left as written here
            tmpl = render_deep(call.template, scope, name, skip=skip, lenient=True)
            # as Argo's createWorkflowPod, one more pass over the pod: tags that values brought in (a workflow
            # parameter whose value reads {{inputs.parameters.x}} or {{workflow.name}}) resolve too
            tmpl = render_deep(tmpl, scope, name, skip=skip, lenient=True)
        except TemplateError as exc:
            return {"phase": NodePhase.ERROR, "message": str(exc), "terminal": exc.absent}
        try:
            while True:  # a node preempted off its GPU runs again (a requeue, not a retry)
                result = self._run(nid, tmpl, scope, tree, on_ready)
                if not result.pop("requeue", False):
                    return result
        except NodeError as exc:
            return {"phase": exc.phase, "message": str(exc)}
        except PodNotCreated as exc:
            return {"phase": NodePhase.ERROR, "message": str(exc), "controller_error": True}
        except (UserError, ArtifactError) as exc:
            return {"phase": NodePhase.ERROR, "message": str(exc)}

    def kill(self, nid: str) -> None:
        """End one node's process tree (a daemon the engine ends), SIGTERM first as for a deleted pod."""
        with self.lock:
            handle = self.running.get(nid)
        if handle is not None:
            _stop(handle)

    def _run(self, nid: str, tmpl: dict[str, Any], scope: Scope, tree: NodeTree,
             on_ready: Callable[[], None] | None) -> dict[str, Any]:
        cancelled = NodeCancellation(self.cancelled, partial(self.spared, nid))
        kind = "script" if tmpl.get("script") is not None else "container"
        in_set: list[dict[str, Any]] = []  # a containerSet's containers other than main
        if tmpl.get("containerSet") is not None:
            body, in_set = split_set(tmpl)
        else:
            body = tmpl[kind] or {}
        try:
            security = node_security(self.pod_security, tmpl.get("securityContext"), body.get("securityContext"),
                                     nid)
        except SecurityError as exc:
            raise NodeError(str(exc)) from exc
        node_dir = confined(self.ctx.work_dir, "nodes", nid, field="node id")
        if node_dir.exists():
            remove_tree(node_dir)
        root = node_dir / "root"
        inits, sidecars = list(tmpl.get("initContainers") or []), list(tmpl.get("sidecars") or [])
        private = self._private_tops(tmpl, body).union(*(self._private_tops({}, c)
                                                         for c in [*inits, *sidecars, *in_set]))
        root.mkdir(parents=True)

        whole = pod_body(body, [*inits, *sidecars, *in_set])  # every container's mounts: emptyDirs shared between them
        self.volumes.check_mount_paths(tmpl, whole, root, private)
        # claims, then the volumes the engine fills for mount paths in host folders the node shares (/etc/x)
        binds = self.volumes.binds(tmpl, body) + self.volumes.in_shared_folders(tmpl, body, root, private)
        filled = self.volumes.in_shared_folders(tmpl, whole, root, private)  # every container's, written here

        def where(path: str) -> Path:
            return node_path(root, private, path, (*binds, *filled))

        def own(path: str) -> Path:
            """In the node's own folders or volumes: where inputs go and outputs come from (never a host file)."""
            found = where(path)
            if not any(found.is_relative_to(folder) for folder in (root, *(Path(f) for f, _ in (*binds, *filled)))):
                shared = ", ".join(sorted(NEVER_PRIVATE))
                raise NodeError(f"{path} is in a host folder the node shares read-only ({shared}); artifacts and "
                                "output files use the node's own folders (e.g. /tmp, /data)")
            return found

        def readable(path: str) -> Path:
            """Where an output parameter is read: the node's own folders, or a world-readable file of a host folder
            the node shares (a pod's ``/etc/hosts``): nothing the node could not read itself."""
            found = where(path)
            return found if shared_readable(found) else own(path)

        self._load_inputs(tmpl, scope, own)
        runtime = self.images.resolve(body.get("image"))
        fields = pod_fields(nid, tmpl, scope, tree)
        env, declared = self.env.build(body, runtime.search_path(), dict(runtime.env), fields)
        env[NODE_ENV] = f"{self.ctx.work_dir.name}/{nid}"
        command = [expand(str(c), declared) for c in body.get("command") or []]  # the kubelet's $(NAME)
        args = [expand(str(a), declared) for a in body.get("args") or []]
        if kind == "script":
            script = where(SCRIPT_PATH)
            script.parent.mkdir(parents=True, exist_ok=True)
            script.write_text(str(body.get("source", "")))
            script.chmod(0o755)
            # the image's own programs (alpine's /bin/sh: its ash) stand in for a script's command, as for a container's
            argv = runtime.argv([*(command or list(runtime.command) or ["sh"]), *args, SCRIPT_PATH], None)
        else:
            argv = runtime.argv(command, args)
        if not argv:
            raise NodeError("the container has no command, no args and its image has no default command; "
                            f"add it to {self.images.source}", NodePhase.ERROR)
        read_only = self.volumes.read_only_paths(tmpl, body)
        limits = pod_limits(tmpl, scope.raw, nid)
        gpu_need = self.gpus.request(tmpl)
        secret_files = self.volumes.write_secrets(tmpl, whole, where, security)
        locked: list[Path] = []
        grant: Grant | None = None
        warning = ""
        try:  # what was written for the node goes when anything before its start fails
            _give_folders(root, private, security)  # first: an emptyDir's folder then goes to the fsGroup
            for folder, _ in self.volumes.binds(tmpl, whole):  # claims, as the kubelet gives them to the fsGroup
                give_claim_to_fs_group(Path(folder), security)
            locked = self.volumes.write_own(tmpl, whole, root, where, security)
            if gpu_need is not None:
                grant, warning = self.gpus.acquire(gpu_need, nid, tree, cancelled)
        except BaseException:
            _clean_up(secret_files, locked)
            raise
        if gpu_need is not None:
            env.update(self.gpus.node_env(grant, gpu_need))
            if warning:
                self.ctx.on_log(nid, warning + "\n")
        if self.pod_slots is not None:
            self.pod_slots.acquire()
        try:
            if cancelled.is_set():
                return {"phase": NodePhase.FAILED, "message": "stopped before start"}
            out, err = LineMasker(self.ctx, nid), LineMasker(self.ctx, nid)
            spec = ProcessSpec(argv=argv, env=env, cwd=str(body.get("workingDir") or "/"), root=root,
                               private_tops=private, shared=self.shared, binds=binds, read_only_mounts=read_only,
                               on_stdout=out.feed,
                               on_stderr=err.feed, readonly=self.readonly + mps_folders(env), hidden=self.hidden(env),
                               security=security, tty=body.get("tty") is True)
            extras = ExtraContainers(self, nid, tmpl, body, spec, fields)
            set_nodes = ContainerNodes.of_set(tree, nid, tmpl, body, in_set)  # as Argo, created with the pod
            problem = run_init(extras.build(inits, "initContainers"), self.runner, lambda h: self._track(nid, h),
                               cancelled.is_set)
            if problem is not None:  # the pod failed before its containers: so do their nodes (argo-workflows#14510)
                if set_nodes is not None:
                    set_nodes.fail_all(problem)
                return {"phase": NodePhase.FAILED, "message": problem}
            side = Sidecars(extras.build(sidecars, "sidecars"), self.runner)
            graph = self._start_set(nid, tmpl, body, in_set, extras, set_nodes, cancelled)
            if graph is not None and not graph.wait_for(graph.main):
                graph.nodes.ended(graph.main, NodePhase.FAILED, "a container it depends on did not succeed")
                side.stop()
                return {"phase": NodePhase.FAILED, "message": graph.finish() or "stopped"}
            if graph is not None:
                graph.nodes.running(graph.main)
            timer = None
            ending: tuple[float, str] | None = None  # when (seconds after the first start) and why it is ended
            timed_out = threading.Event()
            retry = SetRetry.of(tmpl)  # a containerSet's main container runs again while it fails (retries)
            current: list[Any] = []  # the main container's running process
            progress_path = where(PROGRESS_FILE)
            while True:
                with self.lock:
                    if cancelled.is_set():
                        side.stop()
                        return {"phase": NodePhase.FAILED, "message": "stopped before start"}
                    handle = self.runner.start(spec)
                    if isinstance(handle, LocalHandle):
                        self.running[nid] = handle
                guard = self.gpus.guard(grant, tmpl, handle)
                watchdog = self.gpus.watch(grant, gpu_need, handle)
                if isinstance(handle, LocalHandle):
                    tree.put(nid, pid=handle.pid, hostNodeName="local",
                             **({"message": warning.removeprefix("warning: ")} if warning else {}))
                    tree.commit()
                current[:] = [handle]
                if timer is None and (ending := limits.first()) is not None:
                    def expire() -> None:  # the pod's deadline spans a containerSet's retries: the current run
                        timed_out.set()
                        _stop(current[0])

                    timer = threading.Timer(ending[0], expire)
                    timer.daemon = True
                    timer.start()
                if on_ready is not None and isinstance(handle, LocalHandle) and wait_ready(
                        body.get("readinessProbe"), body, spec, self.runner, handle, cancelled):
                    on_ready()
                    on_ready = None
                progress = ""
                while handle.running_after(1.0):
                    progress = self._poll_progress(nid, progress_path, progress, tree)
                result = handle.wait()
                stopped = result.killed or timed_out.is_set() or guard.fired.is_set()
                if stopped or result.exit_code == 0 or not retry.again(cancelled):
                    break
            sidecar_problem = side.stop()
            if graph is not None:
                main_ok = result.exit_code == 0 and not result.killed and not result.start_error
                graph.main_ended(main_ok)
                graph.nodes.ended(graph.main, NodePhase.SUCCEEDED if main_ok else NodePhase.FAILED,
                                  None if main_ok else result.start_error or f"Error (exit code {result.exit_code})")
                sidecar_problem = graph.finish() or sidecar_problem
            if timer is not None:
                timer.cancel()
            out.flush()
            err.flush()
        finally:
            with self.lock:
                self.running.pop(nid, None)
            if self.pod_slots is not None:
                self.pod_slots.release()
            self.gpus.release(grant)
            _clean_up(secret_files, locked)
        if watchdog is not None and watchdog.message:
            return {"phase": NodePhase.FAILED, "message": watchdog.message}
        if guard.fired.is_set() and not cancelled.is_set():
            return self.gpus.requeue(nid, grant, guard, tree)
        outputs: dict[str, Any] = {"exitCode": str(result.exit_code)}
        # as Argo's CaptureScriptResult: one trailing newline off, then at most the last 256 KiB
        raw = result.stdout.removesuffix(b"\n")
        kept = raw[safe_tail(raw, [v.encode() for v in self.ctx.secrets.values()], RESULT_LIMIT):]
        outputs["result"] = self.ctx.secrets.mask(kept.decode(errors="replace"))
        progress = self._poll_progress(nid, progress_path, "", tree, commit=False) or "1/1"
        if result.start_error:
            return {"phase": NodePhase.FAILED, "message": result.start_error, "outputs": outputs, "progress": "1/1"}
        if timed_out.is_set() and ending is not None:
            return {"phase": NodePhase.FAILED, "message": ending[1], "outputs": outputs, "progress": progress}
        if result.killed or cancelled.is_set():
            return {"phase": NodePhase.FAILED, "message": "stopped", "outputs": outputs, "progress": progress}
        phase = NodePhase.SUCCEEDED if result.exit_code == 0 else NodePhase.FAILED
        message = None if phase == NodePhase.SUCCEEDED else f"main: Error (exit code {result.exit_code})"
        if phase == NodePhase.SUCCEEDED and sidecar_problem:
            phase, message = NodePhase.FAILED, sidecar_problem
        try:
            problems = collect_outputs(self.ctx, f"{self.workflow_name}/{nid}", tmpl, own, readable, outputs,
                                       failed=phase != NodePhase.SUCCEEDED)
            if problems:
                raise NodeError("; ".join(problems))
        except (NodeError, ArtifactError, UserError) as exc:
            return {"phase": NodePhase.ERROR if phase == NodePhase.SUCCEEDED else phase, "message": message or str(exc),
                    "outputs": outputs, "progress": progress}
        return {"phase": phase, "message": message, "outputs": outputs, "progress": progress}

    # ------------------------------------------------------------------ pieces

    def _start_set(self, nid: str, tmpl: Mapping[str, Any], main: Mapping[str, Any], others: list[dict[str, Any]],
                   extras: ExtraContainers, nodes: ContainerNodes | None,
                   cancelled: Cancellation) -> ContainerGraph | None:
        """A containerSet's containers other than main, started as their dependencies allow (None for other
        templates)."""
        if nodes is None:
            return None
        name = str(main.get("name") or "main")
        deps = {str(c.get("name")): [str(d) for d in c.get("dependencies") or []] for c in [*others, main]}
        graph = ContainerGraph(extras.build(others, "containerSet.containers"), deps, name, self.runner, nodes,
                               lambda container, handle: self._track(f"{nid}/{container}", handle),
                               cancelled, SetRetry.of(tmpl))
        return graph

    def _track(self, nid: str, handle: Handle | None) -> None:
        """Let a stop reach the node's current process (an init container's, before main's)."""
        with self.lock:
            if isinstance(handle, LocalHandle):
                self.running[nid] = handle
            else:
                self.running.pop(nid, None)

    @staticmethod
    def _private_tops(tmpl: Mapping[str, Any], body: Mapping[str, Any]) -> frozenset[str]:
        """Top-level folders the template uses: private to the node (files directly under / need none)."""
        folders = [str(body.get("workingDir") or "/"), *(str(m.get("mountPath") or "") for m in
                                                         body.get("volumeMounts") or [])]
        files = [str(a.get("path") or "") for a in (tmpl.get("inputs") or {}).get("artifacts") or []]
        outputs = tmpl.get("outputs") or {}
        files += [str((p.get("valueFrom") or {}).get("path") or "") for p in outputs.get("parameters") or []]
        files += [str(a.get("path") or "") for a in outputs.get("artifacts") or []]
        tops = {"tmp", "argo"}
        for path, is_folder in [*((f, True) for f in folders), *((f, False) for f in files)]:
            parts = [p for p in path.split("/") if p]
            if not path.startswith("/") or not parts or parts[0] in NEVER_PRIVATE:
                continue
            if is_folder or len(parts) > 1 or os.path.isdir("/" + parts[0]):
                tops.add(parts[0])
        return frozenset(tops)

    def _load_inputs(self, tmpl: Mapping[str, Any], scope: Scope, own: Any) -> None:
        declared = {a["name"]: a for a in (tmpl.get("inputs") or {}).get("artifacts") or []}
        for entry in scope.raw.get("__input_artifacts__") or []:
            spec = declared.get(entry["name"], entry)
            if not spec.get("path"):
                raise NodeError(f"input artifact {spec['name']!r} has no path")
            load_input(spec, entry.get("_source"), own(str(spec["path"])), self.ctx.storage, self.ctx.artifact_root,
                       self.ctx.secrets)

    def _poll_progress(self, nid: str, path: Path, last: str, tree: NodeTree, commit: bool = True) -> str:
        try:
            text = path.read_text().strip()
        except OSError:
            return last
        done, sep, total = text.partition("/")
        if not sep or not done.strip().isdigit() or not total.strip().isdigit() or text == last:
            return last
        if commit:
            tree.put(nid, progress=text)
            tree.commit()
        return text
