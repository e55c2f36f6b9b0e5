"""The driver: runs a Workflow with Argo v4.1 semantics, from its entrypoint to its exit handler.

Every template invocation runs in a thread of its own (steps groups and DAG tasks fan out to
threads; a node waits for its children with condition variables, never by polling), so
independent nodes run concurrently. The run's shared state is a :class:`Runtime`; one
:class:`Invoker` runs each invocation through the handler of its template kind (container/script,
steps, dag, suspend: :mod:`aipipe.engine.handler`).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Mapping
from functools import partial
from typing import Any

from aipipe.engine.anystring import text_parameter_lookup, text_parameters
from aipipe.engine.arguments import render_arguments
from aipipe.engine.bind import config_map_value
from aipipe.engine.calls import STEP_DEADLINE, USER_STOP, Call, NodeFailure
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.control import STOP, TERMINATE, shutdown_message
from aipipe.engine.execution import ExecutionContext
from aipipe.engine.gpu import counted_inventory, detect_inventory
from aipipe.engine.gpupool import RunGpus
from aipipe.engine.grammar.values import go_json_text
from aipipe.engine.invoke import Invoker
from aipipe.engine.locks import MutexRegistry
from aipipe.engine.manifest import RunSpec
from aipipe.engine.nodes import iso_epoch, now_iso
from aipipe.engine.phases import FAILED_PHASES, PASSED_PHASES, NodePhase, plain
from aipipe.engine.pod import PodRunner
from aipipe.engine.retry import parse_duration
from aipipe.engine.runtime import Runtime
from aipipe.engine.slots import Slots
from aipipe.engine.template import Scope, TemplateError, render_deep
from aipipe.engine.validate import validate_workflow
from aipipe.engine.wfmeta import with_workflow_metadata
from aipipe.engine.wfref import resolve_workflow_spec
from aipipe.errors import UserError

# Argo's operate() words an error the entry or exit template's execution returns (its space before the colon kept)
ENTRY_ERROR = "error in entry template execution: "
EXIT_ERROR = "error in exit template execution : "


class WorkflowExecutor:
    """Runs one Workflow object to completion; ``run`` returns it with an Argo-shaped ``status``.

    Resume is the normal path: every invocation starts from the node's stored state
    (``workflow["status"]["nodes"]``, empty on a first run). Succeeded/Skipped/Omitted nodes are taken
    as they are; a node an earlier driver's death interrupted (left Running/Pending) has its leftover
    processes ended and runs again as the same attempt (not a retry, not an error).
    Template calls deeper than Argo's 100 and runs of more than ``engine.max_nodes`` nodes end ``Error``.
    ``ctx.on_change`` receives the whole workflow after each state change (before a process
    starts and after it ends). ``stop.set()`` kills every child process group and ends the run
    Failed with message "terminated by user".
    """

    def __init__(self, workflow: dict[str, Any], ctx: ExecutionContext) -> None:
        text_parameters(workflow)  # as Argo decodes them: a parameter's `true` or `30` is text (AnyString)
        ctx = dataclasses.replace(ctx, templates=text_parameter_lookup(ctx.templates))
        self.ctx = ctx
        self.rt = Runtime(workflow, ctx, self._shutdown)
        self.control = self.rt.control
        self.user_stopped = False
        self.stop_message = USER_STOP
        self.finished = False
        self.invoker: Invoker | None = None

    # ------------------------------------------------------------------ run

    def run(self, stop: threading.Event | None = None) -> dict[str, Any]:
        """Run (or resume) the workflow; returns the final workflow object."""
        rt, ctx = self.rt, self.ctx
        validate_workflow(rt.workflow, ctx.templates)
        rt.spec = resolve_workflow_spec(rt.workflow, ctx.templates)
        try:  # as Argo's controller sets workflowMetadata when it first runs the workflow
            with_workflow_metadata(rt.workflow, rt.spec)
        except UserError as exc:
            return self._end_before_any_node(NodePhase.ERROR, exc.reason)
        unresolved = self._artifact_repository_problem()
        if unresolved is not None:  # as Argo's operate(): the run errs before any node
            return self._end_before_any_node(NodePhase.ERROR, f"failed to resolve artifact repository: {unresolved}")
        unset = self._read_config_map_parameters()
        if unset is not None:  # as Argo's setGlobalParameters: the run fails before any node
            return self._end_before_any_node(NodePhase.FAILED, f"failed to set global parameters: {unset}")
        self.run_spec = spec = RunSpec.of(rt.spec)
        settings = ctx.settings
        pods = PodRunner(ctx, rt.name, settings.images,
                         RunGpus(settings.state_dir, partial(counted_inventory, ctx.gpu_count)
                                 if ctx.gpu_count is not None else partial(detect_inventory, settings.state_dir),
                                 f"{rt.workflow['metadata']['namespace']}/{rt.name}", spec.priority,
                                 settings.gpu_fallback, settings.gpu_resource, settings.gpu_policy),
                         rt.cancelled, None,  # the workflow's parallelism: the invoker's pod slots
                         spec.volumes, spec.security_context)
        pods.check_available()
        pods.spared = rt.spared
        rt.kill_all = pods.kill_all
        rt.pod_slots = Slots(spec.parallelism)
        self.invoker = Invoker(rt, pods, rt.pod_slots,
                               MutexRegistry(settings.state_dir / "locks", rt.cancelled))
        watcher = threading.Thread(target=self._watch_stop, args=(stop,), daemon=True) if stop else None
        if watcher:
            watcher.start()
        deadline = self._workflow_deadline()
        started = rt.status.get("startedAt") or now_iso()
        rt.set_status(phase=NodePhase.RUNNING, startedAt=started, finishedAt=None, message=None)
        if rt.spec.get("shutdown") in (STOP, TERMINATE):  # submitted (or resumed) already shut down: no pod starts
            self._shutdown(str(rt.spec["shutdown"]))
        try:
            return self._run_to_end(self.invoker, deadline)
        finally:
            self.finished = True
            if deadline:
                deadline.cancel()

    def _run_to_end(self, invoker: Invoker, deadline: threading.Timer | None) -> dict[str, Any]:
        rt = self.rt
        try:
            wf_lock = invoker.acquire_sync(self._workflow_synchronization(), None)
        except NodeFailure as exc:
            rt.set_status(phase=NodePhase.FAILED, message=str(exc), finishedAt=now_iso())
            return rt.snapshot(dict(rt.tree.nodes))
        try:
            phase, message, entry_errored = self._run_entry(invoker)
        finally:
            invoker.mutexes.release_all(wf_lock)
            if deadline:
                deadline.cancel()
        invoker.pods.daemons.release(None)  # daemons still running end with the run's body (and its exit handler)
        exit_phase, exit_message, exit_errored = None, None, False
        if not entry_errored:  # Argo's operate returns at an entry template's error: no hook, no exit handler runs
            self._run_workflow_hooks(invoker, phase)
            exit_phase, exit_message, exit_errored = self._run_exit_handler(invoker, phase)
        invoker.pods.daemons.release(None)
        for thread in list(invoker.children.hook_threads):
            thread.join()
        if exit_errored:  # Argo: whatever the body's phase
            phase, message = NodePhase.ERROR, f"{EXIT_ERROR}{exit_message}"
        elif phase == NodePhase.SUCCEEDED and exit_phase in FAILED_PHASES:  # Argo: the handler's phase and message
            phase = NodePhase.ERROR if exit_phase == NodePhase.ERROR else NodePhase.FAILED
            message = exit_message
        if self.user_stopped:
            phase, message = NodePhase.FAILED, self.stop_message
        rt.set_status(phase=phase, message=message, finishedAt=now_iso())
        if rt.tree.errors:
            raise rt.tree.errors[0]
        return rt.snapshot(dict(rt.tree.nodes))

    def _workflow_synchronization(self) -> Mapping[str, Any] | None:
        """``spec.synchronization`` with the workflow's variables substituted (Argo substitutes the global parameters
        in the spec before it takes the workflow's locks); a tag that does not resolve stays as written."""
        sync = self.run_spec.synchronization
        if not sync:
            return sync
        try:
            return render_deep(dict(sync), self.rt.workflow_scope(), "spec.synchronization")
        except TemplateError:
            return sync

    def _watch_stop(self, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            if self.finished:
                return
        self.user_stopped = True
        self.rt.abort(USER_STOP)

    def _shutdown(self, strategy: str) -> None:
        """Argo's shutdown: running nodes end Failed with the strategy's message; exit handlers still run
        on Stop, not on Terminate."""
        message = shutdown_message(strategy)
        self.rt.shutdown = strategy
        if strategy == TERMINATE:
            self.user_stopped, self.stop_message = True, message
        self.rt.abort(message)

    def _workflow_deadline(self) -> threading.Timer | None:
        seconds = self.run_spec.active_deadline
        if seconds is None:
            return None
        remaining = parse_duration(seconds, "spec.activeDeadlineSeconds") - self._already_elapsed()
        self.rt.deadline_at = time.time() + remaining
        timer = threading.Timer(max(remaining, 0.0), self.rt.abort, args=(STEP_DEADLINE,))
        timer.daemon = True
        timer.start()
        return timer

    def _already_elapsed(self) -> float:
        """Seconds since the run's stored ``startedAt`` (0 for a run not started before)."""
        started = iso_epoch(self.rt.status.get("startedAt"))
        return 0.0 if started is None else max(time.time() - started, 0.0)

    # ------------------------------------------------------------------ entry and exit

    def _entry_call(self, target: Mapping[str, Any], arguments: Mapping[str, Any]) -> Call:
        """The call of the entrypoint or the exit handler: ``target`` names a ``template`` or a ``templateRef``."""
        return self.rt.resolve_call({**target, "arguments": dict(arguments)}, self.rt.root_tset())

    def _run_entry(self, invoker: Invoker) -> tuple[str, str | None, bool]:
        """The body's phase and message, and whether it ended in an error of the controller's (Argo's
        executeTemplate returning one to operate)."""
        rt = self.rt
        call = self._entry_call({"template": self.run_spec.entrypoint}, self._spec_arguments())
        invoker.memos.save_missing_entries()
        invoker.children.rerun_unfinished_hooks()
        self._run_workflow_hooks(invoker, NodePhase.RUNNING)
        node = invoker.execute(call, rt.ref(rt.name, rt.name), rt.workflow_scope())
        phase = node.get("phase", NodePhase.ERROR)
        if rt.abort_reason == STEP_DEADLINE and node.get("message") and phase in FAILED_PHASES:
            return phase, node.get("message"), False  # Argo's operate: a failed run says what its entry node says
        if rt.abort_reason is not None:
            return rt.abort_phase, rt.abort_reason, False
        if phase in PASSED_PHASES:
            return NodePhase.SUCCEEDED, None, False
        if self._controller_errored(node):
            return phase, f"{ENTRY_ERROR}{node.get('message')}", True
        return phase, node.get("message"), False

    def _end_before_any_node(self, phase: NodePhase, message: str) -> dict[str, Any]:
        now = now_iso()
        self.rt.set_status(phase=phase, message=message, startedAt=self.rt.status.get("startedAt") or now,
                           finishedAt=now)
        return self.rt.snapshot(dict(self.rt.tree.nodes))

    def _artifact_repository_problem(self) -> str | None:
        """Why ``spec.artifactRepositoryRef``'s ConfigMap (or its key) cannot be found in the local store (None: no
        reference, or found). The engine's own repository then holds the run's artifacts, as the README says."""
        ref = self.rt.spec.get("artifactRepositoryRef")
        if not isinstance(ref, Mapping):
            return None
        name = str(ref.get("configMap") or "artifact-repositories")  # Argo's default ConfigMap name
        try:
            found = ConfigMapStore.from_home(self.ctx.settings.state_dir).data(name)
        except UserError as exc:  # a name no ConfigMap can have
            return exc.reason
        if found is None:
            return f"configmap {name!r} not found"
        if ref.get("key") and str(ref["key"]) not in found:
            return f"configmap {name!r} has no key {str(ref['key'])!r}"
        return None

    def _read_config_map_parameters(self) -> str | None:
        """``spec.arguments.parameters`` given by ``valueFrom.configMapKeyRef`` take the key's value (Argo's
        setGlobalParameters: its ``default`` when the key is missing); a missing key without one is returned as
        the reason the run fails (None when every parameter has its value)."""
        rt = self.rt
        params = (rt.spec.get("arguments") or {}).get("parameters") or []
        if not any((p.get("valueFrom") or {}).get("configMapKeyRef") for p in params):
            return None
        store = ConfigMapStore.from_home(self.ctx.settings.state_dir)
        resolved = []
        for i, param in enumerate(params):
            value_from = param.get("valueFrom") or {}
            if value_from.get("configMapKeyRef") and "value" not in param:
                where = f"spec.arguments.parameters[{i}]"
                try:
                    value = config_map_value(store, value_from["configMapKeyRef"], value_from.get("default"), where,
                                             Scope())
                except NodeFailure as exc:
                    return str(exc)
                param = {**param, "value": value}
            resolved.append(param)
        rt.spec = {**rt.spec, "arguments": {**rt.spec["arguments"], "parameters": resolved}}
        return None

    def _spec_arguments(self) -> dict[str, Any]:
        """``spec.arguments`` with the workflow's variables substituted in its artifacts (Argo's
        substituteGlobalVariables); as there, an artifact whose tags do not resolve stays as written."""
        arguments = dict(self.rt.spec.get("arguments") or {})
        if arguments.get("artifacts"):
            scope = self.rt.workflow_scope()
            arguments["artifacts"] = [self._rendered_artifact(a, scope) for a in arguments["artifacts"]]
        return arguments

    @staticmethod
    def _rendered_artifact(artifact: dict[str, Any], scope: Scope) -> dict[str, Any]:
        try:
            return render_arguments({"artifacts": [artifact]}, scope, "spec")["artifacts"][0]
        except NodeFailure:
            return artifact

    def _run_exit_handler(self, invoker: Invoker, phase: str) -> tuple[str | None, str | None, bool]:
        """Run ``onExit`` (or the exit hook) after the body; its node's phase and message (None: no handler), and
        whether its error was the controller's."""
        rt = self.rt
        handler = self.run_spec.exit_handler
        if not handler or self.user_stopped:
            return None, None, False
        if rt.abort_reason is not None:  # a deadline stops the body, not the exit handler
            rt.abort_reason = None
            rt.cancelled.clear()
        rt.body_phase = plain(phase)
        scope = rt.workflow_scope()  # workflow.status: the body's phase
        scope.set("workflow.failures", self._failures_json())
        ref = rt.ref(f"{rt.name}.onExit", f"{rt.name}.onExit")
        rt.exit_nodes.add(ref.id)
        try:
            call = self._entry_call(handler, render_arguments(self.run_spec.exit_arguments, scope, ref.name))
        except NodeFailure as exc:
            node = rt.fail_node(ref, exc)
        else:
            node = invoker.execute(call, ref, scope)
        return node.get("phase"), node.get("message"), self._controller_errored(node)

    def _controller_errored(self, node: Mapping[str, Any]) -> bool:
        """Whether the node's Error was the controller's (``Runtime.controller_errors``), not its pod's."""
        return node.get("phase") == NodePhase.ERROR and node.get("id") in self.rt.controller_errors

    def _failures_json(self) -> str:
        """The failed nodes as Argo's operate() hands them to templates: their JSON, then quoted once more
        (``strconv.Quote``, "so that the escaped quotes are not removed during parameter substitution"), so a
        template sees ``"[{\\"displayName\\":…}]"`` and decodes it twice."""
        return json.dumps(go_json_text(self._failures()), ensure_ascii=False)

    def _failures(self) -> list[dict[str, Any]]:
        with self.rt.tree.lock:
            nodes = list(self.rt.tree.nodes.values())
        return [{"displayName": n.get("displayName"), "message": n.get("message", ""),
                 "templateName": n.get("templateName", ""), "phase": n.get("phase"), "podName": n.get("id"),
                 "finishedAt": n.get("finishedAt")}
                for n in nodes if n.get("phase") in FAILED_PHASES]  # as Argo: every node, not only pods

    def _run_workflow_hooks(self, invoker: Invoker, phase: str) -> None:
        hooks = self.run_spec.hooks
        if not hooks:
            return
        scope = self.rt.workflow_scope()
        scope.set("workflow.status", plain(phase))
        scope.set("workflow.failures", self._failures_json())  # Argo sets it before it runs the run's hooks
        invoker.children.fire_hooks(hooks, scope, self.rt.name, None)
