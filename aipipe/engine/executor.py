"""The driver: walks a Workflow's templates with Argo v4.1 semantics and runs its nodes.

Every template invocation runs in a thread of its own (steps groups and DAG tasks fan out to
threads; a node waits for its children with condition variables, never by polling), so
independent nodes run concurrently. Leaf nodes run through :mod:`aipipe.engine.pod`.
"""

from __future__ import annotations

import copy
import json
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from aipipe.engine.arguments import input_artifact_source, recorded_input, render_arguments
from aipipe.engine.bounds import MAX_DEPTH_MESSAGE, MAX_STACK_DEPTH, OverBudget, node_cap_message
from aipipe.engine.calls import (
    LEAF_KINDS,
    STEP_DEADLINE,
    USER_STOP,
    Call,
    NodeFailure,
    Slots,
    TemplateSet,
    as_text,
    kind_of,
    merge_defaults,
    node_duration,
    node_type,
)
from aipipe.engine.context import ExecutionContext
from aipipe.engine.control import TERMINATE, shutdown_message
from aipipe.engine.dag import DagMixin
from aipipe.engine.edges import Edges
from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.gpu import GpuPool, detect_gpu_count
from aipipe.engine.images import ImageMap
from aipipe.engine.locks import MutexRegistry
from aipipe.engine.names import pod_name
from aipipe.engine.nodes import (
    DONE_PHASES,
    KEPT_ON_RESUME,
    Clock,
    NodeTree,
    node_id,
    now_iso,
    subtree_progress,
)
from aipipe.engine.outputs import OutputsMixin
from aipipe.engine.phases import FAILED_PHASES, NodePhase, NodeType, plain
from aipipe.engine.pod import PodRunner
from aipipe.engine.retry import RetryStrategy, parse_duration, render_strategy
from aipipe.engine.runcontrol import RunControl
from aipipe.engine.steps import StepsMixin
from aipipe.engine.template import (
    ABSENT,
    Scope,
    TemplateError,
    render,
)
from aipipe.engine.validate import TEMPLATE_KINDS, resolve_workflow_spec, validate_workflow
from aipipe.errors import UserError
from aipipe.validation import check_name


class WorkflowExecutor(StepsMixin, DagMixin, OutputsMixin):
    """Runs one Workflow object to completion; ``run`` returns it with an Argo-shaped ``status``.

    If ``workflow["status"]["nodes"]`` is present the run resumes: Succeeded/Skipped/Omitted nodes
    are kept; a node the previous driver's death interrupted (left Running/Pending) has its leftover
    processes ended and runs again as the same attempt (not a retry, not an error).
    Template calls deeper than Argo's 100 and runs of more than ``engine.max_nodes`` nodes end ``Error``.
    ``ctx.on_change`` receives the whole workflow after each state change (before a process
    starts and after it ends). ``stop.set()`` kills every child process group and ends the run
    Failed with message "terminated by user".
    """

    def __init__(self, workflow: dict[str, Any], ctx: ExecutionContext) -> None:
        self.workflow = copy.deepcopy(workflow)
        self.ctx = ctx
        meta = self.workflow.setdefault("metadata", {})
        if not meta.get("name"):
            raise UserError("the workflow has no metadata.name", field="metadata.name")
        self.name: str = check_name(str(meta["name"]))
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("namespace", str(ctx.config.get("argo.namespace")))
        meta.setdefault("creationTimestamp", now_iso())
        previous = self.workflow.get("status") or {}
        self.status: dict[str, Any] = {k: v for k, v in previous.items() if k != "nodes"}
        self.tree = NodeTree(self.name, previous.get("nodes") or {}, self._snapshot, ctx.on_change)
        self.resuming = bool(previous.get("nodes"))
        self.cancelled = threading.Event()
        self.abort_reason: str | None = None
        self.abort_phase = NodePhase.FAILED
        self.max_nodes = int(ctx.config.get("engine.max_nodes"))
        self.node_count = len(self.tree.nodes)
        self.depths: dict[str, int] = {}  # node id -> template call depth of the invocation it belongs to
        self.edges = Edges(self.name, self.tree)
        self.user_stopped = False
        self.stop_message = USER_STOP
        self.control = RunControl(self.tree, self.workflow, self.cancelled, self._shutdown)
        self.clock = Clock()
        self.global_params: dict[str, str] = {}
        self.global_artifacts: dict[str, dict[str, Any]] = {}
        self.hook_threads: list[threading.Thread] = []
        self.spec: dict[str, Any] = {}
        self.pods: PodRunner | None = None
        self.finished = False

    # ------------------------------------------------------------------ status

    def _snapshot(self, nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
        out = dict(self.workflow)
        status = dict(self.status)
        pods = [n for n in nodes.values() if n.get("type") == NodeType.POD]
        status["progress"] = f"{sum(1 for n in pods if n.get('phase') in DONE_PHASES)}/{len(pods)}"
        outputs: dict[str, Any] = {}
        if self.global_params:
            outputs["parameters"] = [{"name": k, "value": v} for k, v in self.global_params.items()]
        if self.global_artifacts:
            outputs["artifacts"] = list(self.global_artifacts.values())
        if outputs:
            status["outputs"] = outputs
        status["nodes"] = nodes
        out["status"] = status
        return out

    def _set_status(self, **fields: Any) -> None:
        with self.tree.lock:
            self.status.update({k: plain(v) for k, v in fields.items()})
        self.tree.commit()

    # ------------------------------------------------------------------ run

    def run(self, stop: threading.Event | None = None) -> dict[str, Any]:
        """Run (or resume) the workflow; returns the final workflow object."""
        validate_workflow(self.workflow, self.ctx.templates)
        self.spec = resolve_workflow_spec(self.workflow, self.ctx.templates)
        self.pods = PodRunner(self.ctx, self.name, ImageMap(self.ctx.config),
                              GpuPool(self.ctx.gpu_count if self.ctx.gpu_count is not None else detect_gpu_count(),
                                      str(self.ctx.config.get("engine.gpu_fallback"))),
                              self.cancelled, None,  # the workflow's parallelism: self.pod_slots
                              [*(self.spec.get("volumes") or []),
                               *({"name": c.get("metadata", {}).get("name")} for c in
                                 self.spec.get("volumeClaimTemplates") or [])],
                              self.spec.get("securityContext"))
        self.pods.check_available()
        self.pod_slots = Slots(int(self.spec.get("parallelism") or 0) or None, self.cancelled)
        self.mutexes = MutexRegistry(self.ctx.config.home / "locks", self.cancelled)
        watcher = threading.Thread(target=self._watch_stop, args=(stop,), daemon=True) if stop else None
        if watcher:
            watcher.start()
        deadline = self._workflow_deadline()
        started = self.status.get("startedAt") or now_iso()
        self._set_status(phase=NodePhase.RUNNING, startedAt=started, finishedAt=None, message=None)
        try:
            return self._run_to_end(deadline)
        finally:
            self.finished = True
            if deadline:
                deadline.cancel()

    def _run_to_end(self, deadline: threading.Timer | None) -> dict[str, Any]:
        try:
            wf_lock = self._acquire_sync(self.spec.get("synchronization"), None)
        except NodeFailure as exc:
            self._set_status(phase=NodePhase.FAILED, message=str(exc), finishedAt=now_iso())
            return self._snapshot(dict(self.tree.nodes))
        try:
            phase, message = self._run_entry()
        finally:
            self.mutexes.release_all(wf_lock)
            if deadline:
                deadline.cancel()
        self._run_workflow_hooks(phase)
        exit_phase = self._run_exit_handler(phase)
        for thread in list(self.hook_threads):
            thread.join()
        if phase == NodePhase.SUCCEEDED and exit_phase in (NodePhase.FAILED, NodePhase.ERROR):
            phase, message = NodePhase.FAILED, "exit handler failed"
        if self.user_stopped:
            phase, message = NodePhase.FAILED, self.stop_message
        self._set_status(phase=phase, message=message, finishedAt=now_iso())
        if self.tree.errors:
            raise self.tree.errors[0]
        return self._snapshot(dict(self.tree.nodes))

    def _watch_stop(self, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            if self.finished:
                return
        self.user_stopped = True
        self._abort(USER_STOP)

    def _shutdown(self, strategy: str) -> None:
        """Argo's shutdown: running nodes end Failed with the strategy's message; exit handlers still run
        on Stop, not on Terminate."""
        message = shutdown_message(strategy)
        if strategy == TERMINATE:
            self.user_stopped, self.stop_message = True, message
        self._abort(message)

    def _abort(self, reason: str, phase: NodePhase = NodePhase.FAILED) -> None:
        with self.tree.lock:
            if self.abort_reason is None:
                self.abort_reason = reason
                self.abort_phase = phase
        self.cancelled.set()
        if self.pods is not None:
            self.pods.kill_all()

    def _workflow_deadline(self) -> threading.Timer | None:
        seconds = self.spec.get("activeDeadlineSeconds")
        if seconds in (None, ""):
            return None
        remaining = parse_duration(seconds, "spec.activeDeadlineSeconds") - self._already_elapsed()
        timer = threading.Timer(max(remaining, 0.0), self._abort, args=(STEP_DEADLINE,))
        timer.daemon = True
        timer.start()
        return timer

    def _already_elapsed(self) -> float:
        started = self.status.get("startedAt")
        if not started:
            return 0.0
        return max((datetime.now(UTC) - datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC))
                   .total_seconds(), 0.0)

    def _workflow_scope(self) -> Scope:
        meta = self.workflow["metadata"]
        params = [{"name": p["name"], "value": str(p.get("value", ""))}
                  for p in (self.spec.get("arguments") or {}).get("parameters") or []]
        values: dict[str, Any] = {
            "workflow.name": self.name,
            "workflow.namespace": meta.get("namespace", ""),
            "workflow.uid": meta.get("uid", ""),
            "workflow.creationTimestamp": meta.get("creationTimestamp", ""),
            "workflow.serviceAccountName": self.spec.get("serviceAccountName", ""),
            "workflow.mainEntrypoint": self.spec.get("entrypoint", ""),
            "workflow.parameters.json": json.dumps(params, separators=(",", ":")),
            "workflow.duration": f"{self.clock.elapsed():.6f}",
            "workflow.status": self.status.get("phase", NodePhase.RUNNING.value),
        }
        for p in params:
            values[f"workflow.parameters.{p['name']}"] = p["value"]
        for key, val in (meta.get("labels") or {}).items():
            values[f"workflow.labels.{key}"] = str(val)
        for key, val in (meta.get("annotations") or {}).items():
            values[f"workflow.annotations.{key}"] = str(val)
        with self.tree.lock:
            for key, val in self.global_params.items():
                values[f"workflow.outputs.parameters.{key}"] = val
            artifacts = {f"workflow.outputs.artifacts.{k}": v for k, v in self.global_artifacts.items()}
        return Scope(values, artifacts)

    def _entry_call(self, template_name: str, arguments: Mapping[str, Any]) -> Call:
        tset = TemplateSet({t["name"]: t for t in self.spec.get("templates") or []})
        return self._resolve_call({"template": template_name, "arguments": dict(arguments)}, tset)

    def _run_entry(self) -> tuple[str, str | None]:
        args = self.spec.get("arguments") or {}
        call = self._entry_call(self.spec["entrypoint"], args)
        self._run_workflow_hooks(NodePhase.RUNNING)
        node = self.execute(call, self.name, self.name, None, "", self._workflow_scope())
        phase = node.get("phase", NodePhase.ERROR)
        if self.abort_reason is not None:
            return self.abort_phase, self.abort_reason
        if phase in (NodePhase.SUCCEEDED, NodePhase.SKIPPED, NodePhase.OMITTED):
            return NodePhase.SUCCEEDED, None
        return phase, node.get("message")

    def _run_exit_handler(self, phase: str) -> str | None:
        handler = self.spec.get("onExit") or ((self.spec.get("hooks") or {}).get("exit") or {}).get("template")
        hook_args = ((self.spec.get("hooks") or {}).get("exit") or {}).get("arguments") or {}
        if not handler or self.user_stopped:
            return None
        if self.abort_reason is not None:  # a deadline stops the body, not the exit handler
            self.abort_reason = None
            self.cancelled.clear()
        with self.tree.lock:
            self.status["phase"] = plain(phase)
        scope = self._workflow_scope()
        scope.set("workflow.status", plain(phase))
        scope.set("workflow.failures", json.dumps(self._failures(), separators=(",", ":")))
        name = f"{self.name}.onExit"
        try:
            args = render_arguments(hook_args, scope, name)
            call = self._entry_call(handler, args)
        except NodeFailure as exc:
            self._fail_node(name, name, None, "", exc)
            return NodePhase.ERROR
        node = self.execute(call, name, name, None, "", scope)
        return node.get("phase")

    def _failures(self) -> list[dict[str, Any]]:
        with self.tree.lock:
            nodes = list(self.tree.nodes.values())
        return [{"displayName": n.get("displayName"), "message": n.get("message", ""),
                 "templateName": n.get("templateName", ""), "phase": n.get("phase"), "podName": n.get("id"),
                 "finishedAt": n.get("finishedAt")}
                for n in nodes if n.get("type") == NodeType.POD and n.get("phase") in FAILED_PHASES]

    # ------------------------------------------------------------------ hooks

    def _run_workflow_hooks(self, phase: str) -> None:
        hooks = {k: v for k, v in (self.spec.get("hooks") or {}).items() if k != "exit"}
        if not hooks:
            return
        scope = self._workflow_scope()
        scope.set("workflow.status", plain(phase))
        self._fire_hooks(hooks, scope, self.name, None)

    def _fire_hooks(self, hooks: Mapping[str, Any], scope: Scope, owner_name: str, parent: str | None) -> None:
        """Start each expression hook whose expression is true now (each fires at most once)."""
        for hook_name, hook in hooks.items():
            if hook_name == "exit" or not hook.get("expression"):
                continue
            name = f"{owner_name}.hooks.{hook_name}"
            nid = node_id(self.name, name)
            with self.tree.lock:
                if nid in self.tree.nodes:
                    continue
            try:
                fire = evaluate(str(hook["expression"]), scope.env()) is True
            except ExprError:
                fire = False
            if not fire:
                continue
            with self.tree.lock:
                if nid in self.tree.nodes:
                    continue
                self.tree.put(nid, id=nid, name=name, displayName=name, type=NodeType.POD, phase=NodePhase.PENDING)
                if parent is not None:  # as Argo, a step's or task's hook hangs off that node
                    self.edges.from_node(name, owner_name)

            def run_hook(hook: Mapping[str, Any] = hook, name: str = name) -> None:
                try:
                    args = render_arguments(hook.get("arguments") or {}, scope, name)
                    call = self._resolve_call({**hook, "arguments": args}, self._root_tset())
                except NodeFailure as exc:
                    self._fail_node(name, name, parent, "", exc)
                    return
                try:
                    self.execute(call, name, name, parent, "", scope)
                except Exception as exc:  # a fault must not leave the hook node Running in a finished run
                    self._fail_node(name, name, parent, "", NodeFailure(f"engine error: {exc!r}"))

            thread = threading.Thread(target=run_hook, daemon=True)
            self.hook_threads.append(thread)
            thread.start()

    def _root_tset(self) -> TemplateSet:
        return TemplateSet({t["name"]: t for t in self.spec.get("templates") or []})

    # ------------------------------------------------------------------ template resolution

    def _resolve_call(self, ref: Mapping[str, Any], tset: TemplateSet) -> Call:
        """Find the template a step/task/hook names (template, templateRef or inline)."""
        arguments = dict(ref.get("arguments") or {})
        if ref.get("inline"):
            return Call(self._with_defaults(dict(ref["inline"])), tset, None, None, arguments)
        if ref.get("templateRef"):
            tref = ref["templateRef"]
            kind = "ClusterWorkflowTemplate" if tref.get("clusterScope") else "WorkflowTemplate"
            manifest = self.ctx.templates(kind, str(tref.get("name")))
            if manifest is None:
                raise NodeFailure(f"{kind} {tref.get('name')!r} not found")
            templates = {t["name"]: t for t in (manifest.get("spec") or {}).get("templates") or []}
            tmpl = templates.get(str(tref.get("template")))
            if tmpl is None:
                raise NodeFailure(f"template {tref.get('template')!r} not found in {kind} {tref.get('name')!r}")
            return Call(self._with_defaults(tmpl), TemplateSet(templates, kind, str(tref.get("name"))), None,
                        dict(tref), arguments)
        name = str(ref.get("template"))
        tmpl = tset.templates.get(name)
        if tmpl is None:
            raise NodeFailure(f"template {name!r} not found")
        return Call(self._with_defaults(tmpl), tset, name, None, arguments)

    def _with_defaults(self, tmpl: dict[str, Any]) -> dict[str, Any]:
        """``spec.templateDefaults`` under the template; a kind section (container, script…) only for that kind."""
        defaults = self.spec.get("templateDefaults")
        if not defaults:
            return tmpl
        kind = kind_of(tmpl)
        applicable = {k: v for k, v in defaults.items() if k not in TEMPLATE_KINDS or k == kind}
        return merge_defaults(copy.deepcopy(applicable), tmpl)

    # ------------------------------------------------------------------ nodes

    def _start_node(self, name: str, display: str, kind: str, call: Call | None, parent: str | None,
                    boundary: str, **fields: Any) -> tuple[str, dict[str, Any] | None]:
        """Create (or, on resume, reopen) a node; returns (id, kept record if it must not run again)."""
        nid = node_id(self.name, name)
        existing = self.tree.get(nid)
        if existing is not None and existing.get("phase") in KEPT_ON_RESUME and self.resuming:
            self.edges.link(nid, parent)
            return nid, existing
        if existing is None:
            self._reserve_nodes(1, take=True)
        self.depths.setdefault(nid, self.depths.get(parent or "", 0))
        record: dict[str, Any] = {
            "id": nid, "name": name, "displayName": display, "type": kind, "phase": NodePhase.RUNNING,
            "startedAt": (existing or {}).get("startedAt") or now_iso(), "finishedAt": None,
            "boundaryID": boundary or None, "children": (existing or {}).get("children", []),
        }
        if call is not None:
            if call.template_ref:
                record["templateRef"] = call.template_ref
            elif call.template_name:
                record["templateName"] = call.template_name
            record["templateScope"] = f"namespaced/{call.tset.name}" if call.tset.kind else "local/" + self.name
        record.update(fields)
        self.tree.put(nid, **{k: v for k, v in record.items() if v is not None or k in ("finishedAt",)})
        self.edges.link(nid, parent)
        return nid, None

    def _reserve_nodes(self, count: int, take: bool = False) -> None:
        """Refuse (and end the run ``Error``) when ``count`` more nodes would pass ``engine.max_nodes``;
        ``take`` counts them as created."""
        with self.tree.lock:
            over = self.node_count + count > self.max_nodes
            if take and not over:
                self.node_count += count
        if over:
            message = node_cap_message(self.max_nodes)
            self._abort(message, NodePhase.ERROR)
            raise OverBudget(message)

    @staticmethod
    def _unrecorded(name: str, display: str, exc: NodeFailure) -> dict[str, Any]:
        """The record of a node that could not be created because a bound of the run was reached."""
        return {"name": name, "displayName": display, "phase": exc.phase, "message": str(exc)}

    def _finish_node(self, nid: str, phase: str, message: str | None = None, **fields: Any) -> dict[str, Any]:
        extra = {"message": message} if message else {}
        with self.tree.lock:
            node = self.tree.nodes.get(nid, {})
            if node.get("type") not in (NodeType.POD, NodeType.SKIPPED) and "progress" not in fields:
                extra["progress"] = subtree_progress(self.tree.nodes, nid)
        record = self.tree.put(nid, phase=phase, finishedAt=now_iso(), **extra, **fields)
        self.tree.commit()
        return record

    def _fail_node(self, name: str, display: str, parent: str | None, boundary: str, exc: NodeFailure,
                   call: Call | None = None) -> dict[str, Any]:
        try:
            ntype = NodeType.POD if call is None or kind_of(call.template) in LEAF_KINDS else node_type(call.template)
            nid, _ = self._start_node(name, display, ntype, call, parent, boundary)
        except OverBudget as over:
            return self._unrecorded(name, display, over)
        return self._finish_node(nid, exc.phase, str(exc))

    def _skip_node(self, name: str, display: str, parent: str | None, boundary: str, phase: str, message: str,
                   call: Call | None) -> dict[str, Any]:
        try:
            nid, kept = self._start_node(name, display, NodeType.SKIPPED, call, parent, boundary)
        except OverBudget as over:
            return self._unrecorded(name, display, over)
        if kept is not None:
            return kept
        return self._finish_node(nid, phase, message)

    # ------------------------------------------------------------------ execute

    def execute(self, call: Call, name: str, display: str, parent: str | None, boundary: str,
                outer: Scope) -> dict[str, Any]:
        """Run one template invocation to completion; returns its final node record.

        ``parent``'s call depth plus one is this invocation's; past Argo's 100 the node and the run
        end ``Error`` with Argo's message.
        """
        depth = self.depths.get(parent or "", 0) + 1
        self.depths.setdefault(node_id(self.name, name), depth)
        if depth > MAX_STACK_DEPTH:
            self._abort(MAX_DEPTH_MESSAGE, NodePhase.ERROR)
            return self._fail_node(name, display, parent, boundary, OverBudget(MAX_DEPTH_MESSAGE), call)
        tmpl = call.template
        strategy_raw = tmpl.get("retryStrategy")
        try:
            inputs, scope = self._bind_inputs(call, outer, name)
        except NodeFailure as exc:
            return self._fail_node(name, display, parent, boundary, exc, call)
        if self.cancelled.is_set():
            return self._fail_node(name, display, parent, boundary,
                                   NodeFailure(self.abort_reason or USER_STOP, NodePhase.FAILED), call)
        try:
            if strategy_raw:
                return self._execute_retry(call, name, display, parent, boundary, scope, inputs)
            return self._execute_once(call, name, display, parent, boundary, scope, inputs, retries=0)
        except OverBudget as over:
            return self._unrecorded(name, display, over)

    def _execute_retry(self, call: Call, name: str, display: str, parent: str | None, boundary: str,
                       scope: Scope, inputs: dict[str, Any]) -> dict[str, Any]:
        nid, kept = self._start_node(name, display, NodeType.RETRY, call, parent, boundary, inputs=inputs)
        if kept is not None:
            return kept
        try:
            strategy = RetryStrategy.parse(render_strategy(call.template["retryStrategy"], scope,
                                                           f"{display}.retryStrategy"))
        except (UserError, TemplateError) as exc:
            return self._finish_node(nid, NodePhase.ERROR, str(exc))
        assert strategy is not None
        started = time.monotonic()
        attempt = 0
        last: dict[str, Any] = {}
        while True:
            child_name = f"{name}({attempt})"
            child_id = node_id(self.name, child_name)
            prior = self.tree.get(child_id)
            if prior is not None and prior.get("phase") in DONE_PHASES:
                last = prior
            else:
                child_scope = scope.child({"retries": str(attempt)})
                last = self._execute_once(call, child_name, f"{display}({attempt})", nid, boundary, child_scope,
                                          inputs, retries=attempt)
            self.tree.add_child(nid, child_id)
            phase = last.get("phase", NodePhase.ERROR)
            if phase in (NodePhase.SUCCEEDED, NodePhase.SKIPPED, NodePhase.OMITTED):
                return self._finish_node(nid, phase, None, outputs=last.get("outputs"))
            if self.cancelled.is_set() or last.get("terminal"):
                return self._finish_node(nid, phase, last.get("message"), outputs=last.get("outputs"))
            attempt += 1
            exit_code = (last.get("outputs") or {}).get("exitCode", "")
            last_retry = {"exitCode": int(exit_code) if str(exit_code).lstrip("-").isdigit() else -1,
                          "status": plain(phase), "duration": node_duration(last), "message": last.get("message", "")}
            try:
                again = strategy.should_retry(attempt, phase, time.monotonic() - started, last_retry)
            except UserError as exc:
                return self._finish_node(nid, NodePhase.ERROR, str(exc))
            if not again:
                message = last.get("message") or "No more retries left"
                return self._finish_node(nid, phase, message, outputs=last.get("outputs"))
            delay = strategy.delay(attempt)
            if delay and self.cancelled.wait(delay):
                return self._finish_node(nid, NodePhase.FAILED, self.abort_reason or USER_STOP)

    def _end_interrupted(self, prior: Mapping[str, Any]) -> None:
        """A node the previous driver left Running: end what its processes left behind before it runs again."""
        PodRunner.kill_orphan(prior)

    def _execute_once(self, call: Call, name: str, display: str, parent: str | None, boundary: str, scope: Scope,
                      inputs: dict[str, Any], retries: int) -> dict[str, Any]:
        """Run one attempt; a container or script waits for a slot of the workflow's parallelism before its
        node exists (Argo creates a pod's node when the pod starts, so a waiting one has no startedAt)."""
        if kind_of(call.template) not in LEAF_KINDS:
            return self._execute_node(call, name, display, parent, boundary, scope, inputs)
        self.pod_slots.acquire()
        try:
            return self._execute_node(call, name, display, parent, boundary, scope, inputs)
        finally:
            self.pod_slots.release()

    def _execute_node(self, call: Call, name: str, display: str, parent: str | None, boundary: str, scope: Scope,
                      inputs: dict[str, Any]) -> dict[str, Any]:
        self.control.wait_unsuspended()  # a suspended run starts nothing new
        tmpl = call.template
        kind = kind_of(tmpl)
        ntype = node_type(tmpl)
        nid = node_id(self.name, name)
        prior = self.tree.get(nid)
        if self.resuming and prior is not None and ntype == NodeType.POD and prior.get("phase") in (NodePhase.RUNNING,
                                                                                            NodePhase.PENDING):
            self._end_interrupted(prior)  # then it runs again as the same attempt
        nid, kept = self._start_node(name, display, ntype, call, parent, boundary, inputs=inputs)
        if kept is not None:
            return kept
        template = call.template_name or (call.template_ref or {}).get("template") or ""
        scope = scope.child({"node.name": name, "pod.name": pod_name(self.name, name, str(template))})
        lock = None
        try:
            lock = self._acquire_sync(tmpl.get("synchronization"), nid)
            if kind in LEAF_KINDS:
                assert self.pods is not None
                result = self.pods.run(nid, name, call, scope, self.tree, inputs)
            elif kind == "steps":
                result = self._run_steps(call, nid, name, scope)
            elif kind == "dag":
                result = self._run_dag(call, nid, name, scope)
            elif kind == "suspend":
                result = self._run_suspend(call, nid, scope)
            else:
                result = {"phase": NodePhase.ERROR,
                          "message": f"{kind} templates are not supported by the embedded engine"}
        except NodeFailure as exc:
            result = {"phase": exc.phase, "message": str(exc), "terminal": exc.terminal}
        finally:
            self.mutexes.release_all(lock)
        phase = result.pop("phase")
        message = result.pop("message", None)
        self._publish_globals(result.get("outputs") or {})
        if self.cancelled.is_set() and phase not in (NodePhase.SUCCEEDED, NodePhase.SKIPPED, NodePhase.OMITTED):
            phase, message = NodePhase.FAILED, self.abort_reason or message
        return self._finish_node(nid, phase, message, **result)


    def _acquire_sync(self, sync: Mapping[str, Any] | None, nid: str | None) -> list[Any]:
        if not sync:
            return []
        from aipipe.engine.locks import SyncError, SyncSite  # mutexes and ConfigMap semaphores, shown as Argo does
        try:
            return self.mutexes.acquire_sync(sync, SyncSite(self.workflow, self.tree, self.status, nid))
        except InterruptedError as exc:
            raise NodeFailure(self.abort_reason or USER_STOP, NodePhase.FAILED) from exc
        except SyncError as exc:
            raise NodeFailure(str(exc), NodePhase.ERROR, terminal=True) from exc

    # ------------------------------------------------------------------ inputs

    def _bind_inputs(self, call: Call, outer: Scope, where: str) -> tuple[dict[str, Any], Scope]:
        """Match arguments to inputs (defaults, enums, artifacts) and build the template's scope."""
        tmpl = call.template
        base = self._workflow_scope()
        base.values.update({k: v for k, v in outer.values.items() if k.startswith("workflow.") and k not in
                            base.values})
        args = {p["name"]: p for p in (call.arguments.get("parameters") or [])}
        values: dict[str, Any] = {}
        params_out: list[dict[str, Any]] = []
        for spec in (tmpl.get("inputs") or {}).get("parameters") or []:
            pname = spec["name"]
            if pname in args and "value" in args[pname] and args[pname]["value"] is not ABSENT:
                value = args[pname]["value"]
            elif "value" in spec and pname not in args:
                value = spec["value"]
            elif "default" in spec:
                value = spec["default"]
            elif pname in args and args[pname].get("value") is ABSENT:
                raise NodeFailure(f"inputs.parameters.{pname}: its argument refers to an absent optional output "
                                  "(the producing node was Skipped or Omitted and declares no default) and the input "
                                  "has no default", terminal=True)
            else:
                raise NodeFailure(f"inputs.parameters.{pname} was not supplied")
            value = as_text(value)
            try:
                value = render(value, base.child(values), f"inputs.parameters.{pname}")
            except TemplateError as exc:
                raise NodeFailure(str(exc), terminal=exc.absent) from exc
            enum = spec.get("enum")
            if enum and value not in [str(e) for e in enum]:
                raise NodeFailure(f"inputs.parameters.{pname}: value {value!r} is not one of {enum}")
            values[f"inputs.parameters.{pname}"] = value
            params_out.append({"name": pname, "value": value})
        scope_vals = dict(values)
        scope_vals["inputs.parameters"] = json.dumps(params_out, separators=(",", ":"))
        artifacts_in: list[dict[str, Any]] = []
        arg_arts = {a["name"]: a for a in (call.arguments.get("artifacts") or [])}
        for spec in (tmpl.get("inputs") or {}).get("artifacts") or []:
            if spec.get("path"):
                scope_vals[f"inputs.artifacts.{spec['name']}.path"] = spec["path"]
            source = arg_arts.get(spec["name"])
            artifacts_in.append({**spec, **({"_source": source} if source is not None else {})})
        outputs = tmpl.get("outputs") or {}
        for spec in outputs.get("parameters") or []:
            path = (spec.get("valueFrom") or {}).get("path")
            if path:
                scope_vals[f"outputs.parameters.{spec['name']}.path"] = path
        for spec in outputs.get("artifacts") or []:
            if spec.get("path"):
                scope_vals[f"outputs.artifacts.{spec['name']}.path"] = spec["path"]
        scope = base.child(scope_vals)
        # paths may themselves use inputs (e.g. /tmp/{{inputs.parameters.x}})
        for key in [k for k in scope_vals if k.endswith(".path")]:
            try:
                scope.set(key, render(scope_vals[key], scope, key))
            except TemplateError as exc:
                raise NodeFailure(str(exc), terminal=exc.absent) from exc
        inputs: dict[str, Any] = {}
        if params_out:
            inputs["parameters"] = params_out
        if artifacts_in:
            inputs["artifacts"] = [recorded_input(a) for a in artifacts_in]
        for art in artifacts_in:  # {{inputs.artifacts.X}}: passed on with from: by steps and dag templates
            record = input_artifact_source(art, art.get("_source"),
                                           scope.values.get(f"inputs.artifacts.{art['name']}.path"))
            if record is not None:
                scope.set_artifact(f"inputs.artifacts.{art['name']}", record)
        scope.raw["__input_artifacts__"] = artifacts_in
        return inputs, scope

    # ------------------------------------------------------------------ suspend

    def _run_suspend(self, call: Call, nid: str, scope: Scope) -> dict[str, Any]:
        result = self.control.run_suspend(call.template, nid, scope)
        if self.cancelled.is_set():
            return {"phase": NodePhase.FAILED, "message": self.abort_reason or USER_STOP}
        return result
