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
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine import graph
from aipipe.engine.context import ExecutionContext
from aipipe.engine.expr import ExprError, evaluate, evaluate_condition
from aipipe.engine.gpu import GpuPool, detect_gpu_count
from aipipe.engine.images import ImageMap
from aipipe.engine.locks import MutexRegistry
from aipipe.engine.nodes import DONE_PHASES, KEPT_ON_RESUME, Clock, NodeTree, node_id, now_iso
from aipipe.engine.pod import PodRunner
from aipipe.engine.retry import RetryStrategy, parse_duration
from aipipe.engine.template import (
    ABSENT,
    Scope,
    TemplateError,
    exact_reference,
    item_label,
    item_scope,
    render,
    render_deep,
)
from aipipe.engine.validate import resolve_workflow_spec, validate_workflow
from aipipe.errors import UserError

USER_STOP = "terminated by user"
STEP_DEADLINE = "Step exceeded its deadline"
LEAF_KINDS = ("container", "script")


class NodeFailure(Exception):
    """A node ends before running anything (bad input, absent optional output…)."""

    def __init__(self, message: str, phase: str = "Error", terminal: bool = False) -> None:
        super().__init__(message)
        self.phase = phase
        self.terminal = terminal


@dataclass
class TemplateSet:
    """Templates a name resolves against: the workflow's, or a WorkflowTemplate's for templateRef."""

    templates: dict[str, dict[str, Any]]
    kind: str = ""
    name: str = ""


@dataclass
class Call:
    """One invocation: the template, where its references resolve, and its arguments."""

    template: dict[str, Any]
    tset: TemplateSet
    template_name: str | None
    template_ref: dict[str, Any] | None = None
    arguments: dict[str, Any] = field(default_factory=dict)


class Slots:
    """A template's ``parallelism``: at most ``n`` children at once (None = unbounded)."""

    def __init__(self, n: int | None, cancelled: threading.Event) -> None:
        self.sem = threading.BoundedSemaphore(n) if n else None
        self.cancelled = cancelled

    def acquire(self) -> None:
        if self.sem is not None:
            while not self.sem.acquire(timeout=0.5):
                if self.cancelled.is_set():
                    self.sem.acquire()
                    return

    def release(self) -> None:
        if self.sem is not None:
            self.sem.release()


class WorkflowExecutor:
    """Runs one Workflow object to completion; ``run`` returns it with an Argo-shaped ``status``.

    If ``workflow["status"]["nodes"]`` is present the run resumes: Succeeded/Skipped/Omitted nodes
    are kept, nodes left Running/Pending are retried per their retryStrategy or marked Error.
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
        self.name: str = meta["name"]
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("namespace", str(ctx.config.get("argo.namespace")))
        meta.setdefault("creationTimestamp", now_iso())
        previous = self.workflow.get("status") or {}
        self.status: dict[str, Any] = {k: v for k, v in previous.items() if k != "nodes"}
        self.tree = NodeTree(self.name, previous.get("nodes") or {}, self._snapshot, ctx.on_change)
        self.resuming = bool(previous.get("nodes"))
        self.cancelled = threading.Event()
        self.abort_reason: str | None = None
        self.user_stopped = False
        self.clock = Clock()
        self.global_params: dict[str, str] = {}
        self.global_artifacts: dict[str, dict[str, Any]] = {}
        self.hook_threads: list[threading.Thread] = []
        self.spec: dict[str, Any] = {}
        self.pods: PodRunner | None = None

    # ------------------------------------------------------------------ status

    def _snapshot(self, nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
        out = dict(self.workflow)
        status = dict(self.status)
        pods = [n for n in nodes.values() if n.get("type") == "Pod"]
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
            self.status.update(fields)
        self.tree.commit()

    # ------------------------------------------------------------------ run

    def run(self, stop: threading.Event | None = None) -> dict[str, Any]:
        """Run (or resume) the workflow; returns the final workflow object."""
        validate_workflow(self.workflow, self.ctx.templates)
        self.spec = resolve_workflow_spec(self.workflow, self.ctx.templates)
        self.pods = PodRunner(self.ctx, self.name, ImageMap(self.ctx.config),
                              GpuPool(self.ctx.gpu_count if self.ctx.gpu_count is not None else detect_gpu_count(),
                                      str(self.ctx.config.get("engine.gpu_fallback"))),
                              self.cancelled, int(self.spec.get("parallelism") or 0) or None)
        self.pods.check_available()
        self.mutexes = MutexRegistry(self.ctx.config.home / "locks", self.cancelled)
        watcher = threading.Thread(target=self._watch_stop, args=(stop,), daemon=True) if stop else None
        if watcher:
            watcher.start()
        deadline = self._workflow_deadline()
        started = self.status.get("startedAt") or now_iso()
        self._set_status(phase="Running", startedAt=started, finishedAt=None, message=None)
        wf_lock = self._acquire_sync(self.spec.get("synchronization"), None)
        try:
            phase, message = self._run_entry()
        finally:
            self.mutexes.release_all(wf_lock)
            if deadline:
                deadline.cancel()
        self._run_workflow_hooks("end", phase)
        exit_phase = self._run_exit_handler(phase)
        for thread in list(self.hook_threads):
            thread.join()
        if phase == "Succeeded" and exit_phase in ("Failed", "Error"):
            phase, message = "Failed", "exit handler failed"
        if self.user_stopped:
            phase, message = "Failed", USER_STOP
        self._set_status(phase=phase, message=message, finishedAt=now_iso())
        if stop is not None:
            self.finished = True
        if self.tree.errors:
            raise self.tree.errors[0]
        return self._snapshot(dict(self.tree.nodes))

    def _watch_stop(self, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            if getattr(self, "finished", False):
                return
        self.user_stopped = True
        self._abort(USER_STOP)

    def _abort(self, reason: str) -> None:
        with self.tree.lock:
            if self.abort_reason is None:
                self.abort_reason = reason
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
        from datetime import UTC, datetime

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
            "workflow.status": self.status.get("phase", "Running"),
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
        self._run_workflow_hooks("start", "Running")
        node = self.execute(call, self.name, self.name, None, "", self._workflow_scope())
        phase = node.get("phase", "Error")
        if self.abort_reason is not None:
            return "Failed", self.abort_reason
        if phase in ("Succeeded", "Skipped", "Omitted"):
            return "Succeeded", None
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
            self.status["phase"] = phase
        scope = self._workflow_scope()
        scope.set("workflow.status", phase)
        scope.set("workflow.failures", json.dumps(self._failures(), separators=(",", ":")))
        name = f"{self.name}.onExit"
        try:
            args = self._render_arguments(hook_args, scope, name)
            call = self._entry_call(handler, args)
        except NodeFailure as exc:
            self._fail_node(name, name, None, "", exc)
            return "Error"
        node = self.execute(call, name, name, None, "", scope)
        return node.get("phase")

    def _failures(self) -> list[dict[str, Any]]:
        with self.tree.lock:
            nodes = list(self.tree.nodes.values())
        return [{"displayName": n.get("displayName"), "message": n.get("message", ""),
                 "templateName": n.get("templateName", ""), "phase": n.get("phase"), "podName": n.get("id"),
                 "finishedAt": n.get("finishedAt")}
                for n in nodes if n.get("type") == "Pod" and n.get("phase") in ("Failed", "Error")]

    # ------------------------------------------------------------------ hooks

    def _run_workflow_hooks(self, moment: str, phase: str) -> None:
        hooks = {k: v for k, v in (self.spec.get("hooks") or {}).items() if k != "exit"}
        if not hooks:
            return
        scope = self._workflow_scope()
        scope.set("workflow.status", phase)
        self._fire_hooks(hooks, scope, self.name, None, moment)

    def _fire_hooks(self, hooks: Mapping[str, Any], scope: Scope, owner_name: str, parent: str | None,
                    moment: str) -> None:
        """Start each expression hook whose expression is true now (each fires at most once)."""
        for hook_name, hook in hooks.items():
            if hook_name == "exit" or not hook.get("expression"):
                continue
            name = f"{owner_name}.hooks.{hook_name}"
            nid = node_id(self.name, name)
            with self.tree.lock:
                if nid in self.tree.nodes or (nid, moment) in getattr(self, "_hook_seen", set()):
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
                self.tree.put(nid, id=nid, name=name, displayName=name, type="Pod", phase="Pending")

            def run_hook(hook: Mapping[str, Any] = hook, name: str = name) -> None:
                try:
                    args = self._render_arguments(hook.get("arguments") or {}, scope, name)
                    call = self._resolve_call({**hook, "arguments": args}, self._root_tset())
                except NodeFailure as exc:
                    self._fail_node(name, name, parent, "", exc)
                    return
                self.execute(call, name, name, parent, "", scope, reuse_pending=True)

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
        defaults = self.spec.get("templateDefaults")
        if not defaults:
            return tmpl
        return _merge(copy.deepcopy(defaults), tmpl)

    # ------------------------------------------------------------------ nodes

    def _start_node(self, name: str, display: str, kind: str, call: Call | None, parent: str | None,
                    boundary: str, **fields: Any) -> tuple[str, dict[str, Any] | None]:
        """Create (or, on resume, reopen) a node; returns (id, kept record if it must not run again)."""
        nid = node_id(self.name, name)
        existing = self.tree.get(nid)
        if existing is not None and existing.get("phase") in KEPT_ON_RESUME and self.resuming:
            self.tree.add_child(parent, nid)
            return nid, existing
        record: dict[str, Any] = {
            "id": nid, "name": name, "displayName": display, "type": kind, "phase": "Running",
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
        self.tree.add_child(parent, nid)
        return nid, None

    def _finish_node(self, nid: str, phase: str, message: str | None = None, **fields: Any) -> dict[str, Any]:
        extra = {"message": message} if message else {}
        record = self.tree.put(nid, phase=phase, finishedAt=now_iso(), **extra, **fields)
        self.tree.commit()
        return record

    def _fail_node(self, name: str, display: str, parent: str | None, boundary: str, exc: NodeFailure,
                   call: Call | None = None) -> dict[str, Any]:
        nid, _ = self._start_node(name, display, "Pod" if call is None or _kind(call.template) in LEAF_KINDS
                                  else _node_type(call.template), call, parent, boundary)
        return self._finish_node(nid, exc.phase, str(exc))

    def _skip_node(self, name: str, display: str, parent: str | None, boundary: str, phase: str, message: str,
                   call: Call | None) -> dict[str, Any]:
        nid, kept = self._start_node(name, display, "Skipped", call, parent, boundary)
        if kept is not None:
            return kept
        return self._finish_node(nid, phase, message)

    # ------------------------------------------------------------------ execute

    def execute(self, call: Call, name: str, display: str, parent: str | None, boundary: str, outer: Scope,
                reuse_pending: bool = False) -> dict[str, Any]:
        """Run one template invocation to completion; returns its final node record."""
        tmpl = call.template
        strategy_raw = tmpl.get("retryStrategy")
        try:
            inputs, scope = self._bind_inputs(call, outer, name)
        except NodeFailure as exc:
            return self._fail_node(name, display, parent, boundary, exc, call)
        if self.cancelled.is_set():
            return self._fail_node(name, display, parent, boundary,
                                   NodeFailure(self.abort_reason or USER_STOP, "Failed"), call)
        if strategy_raw:
            return self._execute_retry(call, name, display, parent, boundary, scope, inputs)
        return self._execute_once(call, name, display, parent, boundary, scope, inputs, retries=0)

    def _execute_retry(self, call: Call, name: str, display: str, parent: str | None, boundary: str,
                       scope: Scope, inputs: dict[str, Any]) -> dict[str, Any]:
        nid, kept = self._start_node(name, display, "Retry", call, parent, boundary, inputs=inputs)
        if kept is not None:
            return kept
        try:
            raw = render_deep(call.template["retryStrategy"], scope, f"{display}.retryStrategy",
                              skip=frozenset({"expression"}))
            strategy = RetryStrategy.parse(raw)
        except (UserError, TemplateError) as exc:
            return self._finish_node(nid, "Error", str(exc))
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
            elif prior is not None and self.resuming and prior.get("phase") in ("Running", "Pending"):
                last = self._mark_lost(child_id, prior)
            else:
                child_scope = scope.child({"retries": str(attempt)})
                last = self._execute_once(call, child_name, f"{display}({attempt})", nid, boundary, child_scope,
                                          inputs, retries=attempt)
            self.tree.add_child(nid, child_id)
            phase = last.get("phase", "Error")
            if phase in ("Succeeded", "Skipped", "Omitted"):
                return self._finish_node(nid, phase, None, outputs=last.get("outputs"))
            if self.cancelled.is_set() or last.get("terminal"):
                return self._finish_node(nid, phase, last.get("message"), outputs=last.get("outputs"))
            attempt += 1
            exit_code = (last.get("outputs") or {}).get("exitCode", "")
            last_retry = {"exitCode": int(exit_code) if str(exit_code).lstrip("-").isdigit() else -1,
                          "status": phase, "duration": _duration(last), "message": last.get("message", "")}
            try:
                again = strategy.should_retry(attempt, "Failed" if last.get("lost") else phase,
                                              bool(last.get("lost")), time.monotonic() - started, last_retry)
            except UserError as exc:
                return self._finish_node(nid, "Error", str(exc))
            if not again:
                message = last.get("message") or "No more retries left"
                return self._finish_node(nid, phase, message, outputs=last.get("outputs"))
            delay = strategy.delay(attempt)
            if delay and self.cancelled.wait(delay):
                return self._finish_node(nid, "Failed", self.abort_reason or USER_STOP)

    def _mark_lost(self, nid: str, prior: dict[str, Any]) -> dict[str, Any]:
        if self.pods is not None:
            self.pods.kill_orphan(prior)
        return self._finish_node(nid, "Error", "the engine stopped while this node ran; its process is gone",
                                 lost=True)

    def _execute_once(self, call: Call, name: str, display: str, parent: str | None, boundary: str, scope: Scope,
                      inputs: dict[str, Any], retries: int) -> dict[str, Any]:
        tmpl = call.template
        kind = _kind(tmpl)
        node_type = _node_type(tmpl)
        nid = node_id(self.name, name)
        prior = self.tree.get(nid)
        if self.resuming and prior is not None and node_type == "Pod" and prior.get("phase") in ("Running",
                                                                                                 "Pending"):
            return self._mark_lost(nid, prior)
        nid, kept = self._start_node(name, display, node_type, call, parent, boundary, inputs=inputs)
        if kept is not None:
            return kept
        scope = scope.child({"node.name": name, "pod.name": nid})
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
                result = {"phase": "Error", "message": f"{kind} templates are not supported by the embedded engine"}
        except NodeFailure as exc:
            result = {"phase": exc.phase, "message": str(exc), "terminal": exc.terminal}
        finally:
            self.mutexes.release_all(lock)
        phase = result.pop("phase")
        message = result.pop("message", None)
        self._publish_globals(result.get("outputs") or {})
        if self.cancelled.is_set() and phase not in ("Succeeded", "Skipped", "Omitted"):
            phase, message = "Failed", self.abort_reason or message
        return self._finish_node(nid, phase, message, **result)

    def _publish_globals(self, outputs: Mapping[str, Any]) -> None:
        with self.tree.lock:
            for p in outputs.get("parameters") or []:
                if p.get("globalName"):
                    self.global_params[p["globalName"]] = p.get("value", "")
            for a in outputs.get("artifacts") or []:
                if a.get("globalName"):
                    self.global_artifacts[a["globalName"]] = {**a, "name": a["globalName"]}

    def _acquire_sync(self, sync: Mapping[str, Any] | None, nid: str | None) -> list[Any]:
        if not sync:
            return []
        mutexes = [sync["mutex"]] if sync.get("mutex") else []
        names = [m.get("name") for m in [*mutexes, *(sync.get("mutexes") or [])]]
        if sync.get("semaphore") or sync.get("semaphores"):
            raise NodeFailure("synchronization semaphores need a ConfigMap; the embedded engine supports mutexes "
                              "only", "Error", terminal=True)
        if nid is not None and names:
            self.tree.put(nid, message=f"Waiting for lock {', '.join(names)}")
            self.tree.commit()
        try:
            held = self.mutexes.acquire([str(n) for n in names if n])
        except InterruptedError as exc:
            raise NodeFailure(self.abort_reason or USER_STOP, "Failed") from exc
        if nid is not None and names:
            self.tree.put(nid, message=None)
        return held

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
            value = _as_text(value)
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
            inputs["artifacts"] = [{k: v for k, v in a.items() if k != "_source"} for a in artifacts_in]
        scope.raw["__input_artifacts__"] = artifacts_in
        return inputs, scope

    def _render_arguments(self, arguments: Mapping[str, Any], scope: Scope, where: str) -> dict[str, Any]:
        """Render a step/task's arguments; an argument that is exactly an absent reference is dropped."""
        out: dict[str, Any] = {}
        params = []
        for p in arguments.get("parameters") or []:
            p = dict(p)
            if "value" in p:
                raw = _as_text(p["value"])
                ref = exact_reference(raw)
                if ref is not None and scope.values.get(ref) is ABSENT:
                    p["value"] = ABSENT
                else:
                    try:
                        p["value"] = render(raw, scope, f"{where}.arguments.parameters.{p.get('name')}")
                    except TemplateError as exc:
                        raise NodeFailure(str(exc), terminal=exc.absent) from exc
            params.append(p)
        if params:
            out["parameters"] = params
        arts = []
        for a in arguments.get("artifacts") or []:
            arts.append(self._render_artifact_arg(a, scope, where))
        if arts:
            out["artifacts"] = arts
        return out

    def _render_artifact_arg(self, art: Mapping[str, Any], scope: Scope, where: str) -> dict[str, Any]:
        label = f"{where}.arguments.artifacts.{art.get('name')}"
        try:
            if art.get("from"):
                ref = exact_reference(str(art["from"]))
                source = scope.artifacts.get(ref or "")
                if source is None:
                    if ref is not None and scope.values.get(ref.replace(".artifacts.", ".parameters.")) is ABSENT:
                        raise NodeFailure(f"{label}: {art['from']} refers to an absent optional output",
                                          terminal=True)
                    raise NodeFailure(f"{label}: cannot resolve {art['from']}")
                merged = {**source, "name": art["name"]}
                if art.get("subPath"):
                    merged["subPath"] = render(str(art["subPath"]), scope, label)
                return merged
            if art.get("fromExpression"):
                value = evaluate(str(art["fromExpression"]), scope.env())
                if not isinstance(value, dict):
                    raise NodeFailure(f"{label}: fromExpression did not select an artifact")
                return {**value, "name": art["name"]}
            return render_deep(dict(art), scope, label)
        except TemplateError as exc:
            raise NodeFailure(str(exc), terminal=exc.absent) from exc
        except ExprError as exc:
            raise NodeFailure(f"{label}: {exc}") from exc

    # ------------------------------------------------------------------ steps

    def _run_steps(self, call: Call, nid: str, name: str, scope: Scope) -> dict[str, Any]:
        tmpl = call.template
        slots = Slots(_int_or_none(render(str(tmpl.get("parallelism") or ""), scope)), self.cancelled)
        scope = scope.child()
        last_children: list[str] = []
        for gi, group in enumerate(tmpl.get("steps") or []):
            gname = f"{name}[{gi}]"
            gid, kept = self._start_node(gname, f"[{gi}]", "StepGroup", None, nid, nid)
            if kept is not None:
                for step in group:
                    self._register_kept(step, gname, scope, call.tset)
                last_children = kept.get("children", [])
                continue
            self.tree.commit()
            results: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
            threads: list[threading.Thread] = []
            group_lock = threading.Lock()
            for step in group or []:
                self._launch_step(step, gname, gid, nid, scope, call.tset, slots, results, threads, group_lock)
            for thread in threads:
                thread.join()
            failed = [(s, n) for s, ns in results for n in ns if _unhandled(s, n)]
            for step, nodes in results:
                self._register_outputs(f"steps.{step['name']}", step, nodes, scope, call.tset)
            last_children = self.tree.get(gid).get("children", []) if self.tree.get(gid) else []
            if failed:
                step, node = failed[0]
                self._finish_node(gid, "Failed", f"child '{node.get('name')}' failed")
                return {"phase": "Failed", "message": f"child '{node.get('name')}' failed",
                        "outboundNodes": last_children}
            self._finish_node(gid, "Succeeded")
        outputs = self._template_outputs(call, scope)
        return {"phase": "Succeeded", "outputs": outputs, "outboundNodes": last_children}

    def _launch_step(self, step: dict[str, Any], gname: str, gid: str, boundary: str, scope: Scope,
                     tset: TemplateSet, slots: Slots, results: list, threads: list, group_lock: threading.Lock) -> None:
        base = f"{gname}.{step['name']}"
        try:
            items = self._expand_items(step, scope, base)
        except NodeFailure as exc:
            node = self._fail_node(base, step["name"], gid, boundary, exc)
            results.append((step, [node]))
            return
        collected: list[dict[str, Any]] = []
        results.append((step, collected))
        targets = [(base, step["name"], None, False)] if items is None else [
            (f"{base}({i}:{item_label(it)})", f"{step['name']}({i}:{item_label(it)})", it, True)
            for i, it in enumerate(items)]
        for cname, cdisplay, item, looped in targets:
            child_scope = scope
            if looped:
                vals, raw = item_scope(item)
                child_scope = scope.child(vals, raw=raw)
            slots.acquire()

            def work(cname: str = cname, cdisplay: str = cdisplay, child_scope: Scope = child_scope) -> None:
                try:
                    node = self._run_child(step, cname, cdisplay, gid, boundary, child_scope, tset, "steps")
                    with group_lock:
                        collected.append(node)
                finally:
                    slots.release()

            thread = threading.Thread(target=work, daemon=True)
            threads.append(thread)
            thread.start()

    def _run_child(self, step: dict[str, Any], name: str, display: str, parent: str, boundary: str, scope: Scope,
                   tset: TemplateSet, prefix: str) -> dict[str, Any]:
        """One step or task (after loop expansion): when, arguments, the template, its exit/expression hooks."""
        try:
            call = self._resolve_call(step, tset)
        except NodeFailure as exc:
            return self._fail_node(name, display, parent, boundary, exc)
        when = step.get("when")
        if when not in (None, ""):
            try:
                rendered = render(str(when), scope, f"{display}.when")
                if not evaluate_condition(rendered):
                    return self._skip_node(name, display, parent, boundary, "Skipped",
                                           f"when '{rendered}' evaluated false", call)
            except TemplateError as exc:
                return self._fail_node(name, display, parent, boundary, NodeFailure(str(exc), terminal=exc.absent),
                                       call)
            except ExprError as exc:
                return self._fail_node(name, display, parent, boundary,
                                       NodeFailure(f"{display}.when: invalid condition: {exc}"), call)
        try:
            call.arguments = self._render_arguments(step.get("arguments") or {}, scope, display)
        except NodeFailure as exc:
            return self._fail_node(name, display, parent, boundary, exc, call)
        hooks = step.get("hooks") or {}
        if step.get("onExit"):
            hooks = {**hooks, "exit": {"template": step["onExit"]}}
        if hooks and len(hooks) > (1 if "exit" in hooks else 0):
            hook_scope = scope.child({f"{prefix}.{step['name']}.status": "Running"})
            self._fire_hooks(hooks, hook_scope, name, parent, "running")
        node = self.execute(call, name, display, parent, boundary, scope)
        if hooks:
            after = scope.child()
            self._register_outputs(f"{prefix}.{step['name']}", step, [node], after, tset)
            self._fire_hooks(hooks, after, name, parent, "done")
            if hooks.get("exit"):
                self._run_step_exit(hooks["exit"], name, display, parent, boundary, after, tset)
        return node

    def _run_step_exit(self, hook: Mapping[str, Any], owner: str, display: str, parent: str, boundary: str,
                       scope: Scope, tset: TemplateSet) -> None:
        name = f"{owner}.onExit"
        try:
            call = self._resolve_call(hook, tset)
            call.arguments = self._render_arguments(hook.get("arguments") or {}, scope, f"{display}.onExit")
        except NodeFailure as exc:
            self._fail_node(name, f"{display}.onExit", parent, boundary, exc)
            return
        self.execute(call, name, f"{display}.onExit", parent, boundary, scope)

    def _expand_items(self, step: Mapping[str, Any], scope: Scope, where: str) -> list[Any] | None:
        if "withItems" in step:
            return [render_deep(i, scope, where) for i in step["withItems"] or []]
        if "withParam" in step:
            raw = str(step["withParam"])
            ref = exact_reference(raw)
            try:
                if ref is not None and scope.values.get(ref) is ABSENT:
                    raise TemplateError(f"{where}.withParam: {raw} refers to an absent optional output",
                                        absent=True)
                text = render(raw, scope, f"{where}.withParam")
            except TemplateError as exc:
                raise NodeFailure(str(exc), terminal=exc.absent) from exc
            try:
                items = json.loads(text)
            except json.JSONDecodeError as exc:
                raise NodeFailure(f"{where}.withParam: {text!r} is not a JSON list") from exc
            if not isinstance(items, list):
                raise NodeFailure(f"{where}.withParam: {text!r} is not a JSON list")
            return items
        if "withSequence" in step:
            return _sequence(step["withSequence"], scope, where)
        return None

    # ------------------------------------------------------------------ outputs into scope

    def _register_kept(self, step: Mapping[str, Any], gname: str, scope: Scope, tset: TemplateSet) -> None:
        base = f"{gname}.{step['name']}"
        group = self.tree.get(node_id(self.name, gname)) or {}
        nodes = [n for n in (self.tree.get(c) for c in group.get("children", []))
                 if n and (n.get("name") == base or str(n.get("name", "")).startswith(base + "("))]
        self._register_outputs(f"steps.{step['name']}", step, nodes, scope, tset)

    def _register_outputs(self, prefix: str, step: Mapping[str, Any], nodes: list[dict[str, Any]], scope: Scope,
                          tset: TemplateSet) -> None:
        """Make ``steps.X.*`` / ``tasks.X.*`` resolvable (aggregated for loops; absent/default when skipped)."""
        looped = any(k in step for k in ("withItems", "withParam", "withSequence"))
        if not looped:
            node = nodes[0] if nodes else None
            if node is None:
                return
            scope.set(f"{prefix}.status", node.get("phase", ""))
            scope.set(f"{prefix}.id", node.get("id", ""))
            self._node_outputs_into(prefix, node, step, scope, tset)
            return
        ordered = sorted(nodes, key=lambda n: _loop_index(n.get("name", "")))
        ran = [n for n in ordered if n.get("phase") not in ("Skipped", "Omitted")]
        per_child: list[dict[str, str]] = []
        names: list[str] = []
        for n in ran:
            params = {p["name"]: p.get("value", "") for p in (n.get("outputs") or {}).get("parameters") or []}
            per_child.append(params)
            for pname in params:
                if pname not in names:
                    names.append(pname)
        scope.set(f"{prefix}.outputs.parameters", json.dumps(per_child, separators=(",", ":")))
        for pname in names:
            scope.set(f"{prefix}.outputs.parameters.{pname}",
                      json.dumps([c.get(pname, "") for c in per_child], separators=(",", ":")))
        results = [(n.get("outputs") or {}).get("result") for n in ran]
        scope.set(f"{prefix}.outputs.result", json.dumps([r for r in results if r is not None],
                                                         separators=(",", ":")))
        failed = any(n.get("phase") in ("Failed", "Error") for n in ordered)
        scope.set(f"{prefix}.status", "Failed" if failed else "Succeeded")

    def _node_outputs_into(self, prefix: str, node: Mapping[str, Any], step: Mapping[str, Any], scope: Scope,
                           tset: TemplateSet) -> None:
        outputs = node.get("outputs") or {}
        if node.get("phase") in ("Skipped", "Omitted"):
            try:
                declared = self._resolve_call(step, tset).template.get("outputs") or {}
            except NodeFailure:
                declared = {}
            for spec in declared.get("parameters") or []:
                default = (spec.get("valueFrom") or {}).get("default")
                scope.set(f"{prefix}.outputs.parameters.{spec['name']}",
                          _as_text(default) if default is not None else ABSENT)
            scope.set(f"{prefix}.outputs.result", ABSENT)
            scope.set(f"{prefix}.exitCode", ABSENT)
            return
        for p in outputs.get("parameters") or []:
            scope.set(f"{prefix}.outputs.parameters.{p['name']}", p.get("value", ""))
        for a in outputs.get("artifacts") or []:
            scope.set_artifact(f"{prefix}.outputs.artifacts.{a['name']}", a)
        if "result" in outputs:
            scope.set(f"{prefix}.outputs.result", outputs["result"])
        if "exitCode" in outputs:
            scope.set(f"{prefix}.exitCode", str(outputs["exitCode"]))

    def _template_outputs(self, call: Call, scope: Scope) -> dict[str, Any] | None:
        """Outputs of a steps/dag template: valueFrom.parameter/expression, artifacts from/fromExpression."""
        declared = call.template.get("outputs") or {}
        params = []
        for spec in declared.get("parameters") or []:
            value_from = spec.get("valueFrom") or {}
            default = value_from.get("default")
            value: Any = None
            try:
                if "parameter" in value_from:
                    raw = str(value_from["parameter"])
                    ref = exact_reference(raw)
                    value = ABSENT if ref is not None and scope.values.get(ref) is ABSENT else render(raw, scope)
                elif "expression" in value_from:
                    from aipipe.engine.expr import to_text

                    value = to_text(evaluate(str(value_from["expression"]), scope.env()))
                elif "value" in spec:
                    value = render(_as_text(spec["value"]), scope)
            except (TemplateError, ExprError) as exc:
                if default is None:
                    raise NodeFailure(f"outputs.parameters.{spec['name']}: {exc}",
                                      terminal=isinstance(exc, TemplateError) and exc.absent) from exc
                value = None
            if value is ABSENT or value is None:
                if default is None:
                    raise NodeFailure(f"outputs.parameters.{spec['name']}: refers to an absent optional output and "
                                      "declares no default", terminal=True)
                value = _as_text(default)
            params.append({"name": spec["name"], "value": value})
            if spec.get("globalName"):
                with self.tree.lock:
                    self.global_params[spec["globalName"]] = value
        artifacts = []
        for spec in declared.get("artifacts") or []:
            try:
                if spec.get("from"):
                    ref = exact_reference(str(spec["from"]))
                    source = scope.artifacts.get(ref or "")
                elif spec.get("fromExpression"):
                    source = evaluate(str(spec["fromExpression"]), scope.env())
                else:
                    source = None
            except ExprError as exc:
                raise NodeFailure(f"outputs.artifacts.{spec['name']}: {exc}") from exc
            if not isinstance(source, dict):
                if spec.get("optional"):
                    continue
                raise NodeFailure(f"outputs.artifacts.{spec['name']}: cannot resolve its source")
            record = {**source, "name": spec["name"]}
            artifacts.append(record)
            if spec.get("globalName"):
                with self.tree.lock:
                    self.global_artifacts[spec["globalName"]] = {**record, "name": spec["globalName"]}
        out: dict[str, Any] = {}
        if params:
            out["parameters"] = params
        if artifacts:
            out["artifacts"] = artifacts
        return out or None

    # ------------------------------------------------------------------ dag

    def _run_dag(self, call: Call, nid: str, name: str, scope: Scope) -> dict[str, Any]:
        dag = call.template.get("dag") or {}
        tasks = {t["name"]: t for t in dag.get("tasks") or []}
        trees = {n: graph.task_tree(t) for n, t in tasks.items()}
        target_text = render(str(dag.get("target") or ""), scope, "dag.target").strip()
        if target_text:
            targets = [t for t in target_text.replace(",", " ").split() if t]
            unknown = [t for t in targets if t not in tasks]
            if unknown:
                raise NodeFailure(f"dag.target: unknown task(s) {unknown}")
            wanted = graph.ancestors(targets, trees)
        else:
            wanted = set(tasks)
        fail_fast = dag.get("failFast", True) not in (False, "false")
        slots = Slots(_int_or_none(render(str(call.template.get("parallelism") or ""), scope)), self.cancelled)
        handled: set[str] = set()
        for tname in wanted:
            if trees[tname] is not None:
                handled |= graph.failure_handled_by(trees[tname])
        scope = scope.child()
        cond = threading.Condition()
        states: dict[str, graph.TaskState] = {}
        running: set[str] = set()
        order = [t for t in tasks if t in wanted]
        stopped = False

        def finish(tname: str, node: dict[str, Any], children: list[dict[str, Any]]) -> None:
            task = tasks[tname]
            cont = task.get("continueOn") or {}
            child_phases = [c.get("phase") for c in children] or [node.get("phase")]
            state = graph.TaskState(
                phase=node.get("phase", "Error"), continue_failed=bool(cont.get("failed")),
                continue_error=bool(cont.get("error")),
                any_succeeded=any(p == "Succeeded" for p in child_phases),
                all_failed=all(p in ("Failed", "Error") for p in child_phases))
            self._register_outputs(f"tasks.{tname}", task, children or [node], scope, call.tset)
            with cond:
                states[tname] = state
                running.discard(tname)
                cond.notify_all()

        def launch(tname: str) -> None:
            task = tasks[tname]
            tname_full = f"{name}.{tname}"
            try:
                items = self._expand_items(task, scope, tname)
            except NodeFailure as exc:
                node = self._fail_node(tname_full, tname, nid, nid, exc)
                finish(tname, node, [])
                return
            if items is None:
                slots.acquire()
                try:
                    node = self._run_child(task, tname_full, tname, nid, nid, scope, call.tset, "tasks")
                finally:
                    slots.release()
                finish(tname, node, [])
                return
            group_id, kept = self._start_node(tname_full, tname, "TaskGroup", None, nid, nid)
            if kept is not None:
                kids = [self.tree.get(c) for c in kept.get("children", [])]
                finish(tname, kept, [k for k in kids if k])
                return
            self.tree.commit()
            children: list[dict[str, Any]] = []
            threads = []
            lock = threading.Lock()
            for i, item in enumerate(items):
                vals, raw = item_scope(item)
                child_scope = scope.child(vals, raw=raw)
                label = f"{tname}({i}:{item_label(item)})"
                slots.acquire()

                def work(label: str = label, child_scope: Scope = child_scope) -> None:
                    try:
                        node = self._run_child(task, f"{name}.{label}", label, group_id, nid, child_scope,
                                               call.tset, "tasks")
                        with lock:
                            children.append(node)
                    finally:
                        slots.release()

                thread = threading.Thread(target=work, daemon=True)
                threads.append(thread)
                thread.start()
            for thread in threads:
                thread.join()
            bad = [c for c in children if c.get("phase") in ("Failed", "Error")]
            phase = ("Error" if any(c.get("phase") == "Error" for c in bad) else "Failed") if bad else "Succeeded"
            group = self._finish_node(group_id, phase, f"child '{bad[0].get('name')}' failed" if bad else None)
            finish(tname, group, children)

        with cond:
            while True:
                progressed = False
                for tname in order:
                    if tname in states or tname in running:
                        continue
                    tree = trees[tname]
                    deps = graph.deps_of(tree) if tree is not None else set()
                    deps &= wanted
                    if any(d not in states for d in deps):
                        continue
                    if tree is not None and not graph.evaluate(tree, {**{d: states[d] for d in deps},
                                                                      **_missing_as_omitted(tree, states)}):
                        cond.release()
                        try:
                            node = self._skip_node(f"{name}.{tname}", tname, nid, nid, "Omitted",
                                                   "omitted: depends condition not met", None)
                            self._register_outputs(f"tasks.{tname}", tasks[tname], [node], scope, call.tset)
                        finally:
                            cond.acquire()
                        states[tname] = graph.TaskState(phase="Omitted")
                        progressed = True
                        continue
                    if stopped or self.cancelled.is_set():
                        continue
                    running.add(tname)
                    threading.Thread(target=launch, args=(tname,), daemon=True).start()
                    progressed = True
                if fail_fast and not stopped:
                    stopped = any(_failed_unhandled(t, st, handled) for t, st in states.items())
                if progressed:
                    continue
                if not running:
                    break
                cond.wait()
        unhandled = [t for t, st in states.items() if _failed_unhandled(t, st, handled)]
        leaves = [node_id(self.name, f"{name}.{t}") for t in order if t in states
                  and not any(t in graph.deps_of(trees[o]) for o in order if trees[o] is not None and o in states)]
        if unhandled:
            phase = "Error" if any(states[t].phase == "Error" for t in unhandled) else "Failed"
            return {"phase": phase, "message": f"task '{name}.{unhandled[0]}' failed", "outboundNodes": leaves}
        if self.cancelled.is_set():
            return {"phase": "Failed", "message": self.abort_reason, "outboundNodes": leaves}
        return {"phase": "Succeeded", "outputs": self._template_outputs(call, scope), "outboundNodes": leaves}

    # ------------------------------------------------------------------ suspend

    def _run_suspend(self, call: Call, nid: str, scope: Scope) -> dict[str, Any]:
        suspend = render_deep(call.template.get("suspend") or {}, scope)
        duration = suspend.get("duration")
        seconds = parse_duration(duration, "suspend.duration") if duration not in (None, "") else None
        self.tree.commit()
        if seconds is None:
            self.cancelled.wait()
        elif self.cancelled.wait(seconds):
            return {"phase": "Failed", "message": self.abort_reason or USER_STOP}
        if self.cancelled.is_set():
            return {"phase": "Failed", "message": self.abort_reason or USER_STOP}
        outputs = []
        for spec in (call.template.get("outputs") or {}).get("parameters") or []:
            value_from = spec.get("valueFrom") or {}
            if "default" in value_from or "supplied" in value_from:
                outputs.append({"name": spec["name"], "value": _as_text(value_from.get("default", ""))})
        return {"phase": "Succeeded", **({"outputs": {"parameters": outputs}} if outputs else {})}


# ---------------------------------------------------------------------- helpers


def _kind(tmpl: Mapping[str, Any]) -> str:
    for kind in ("container", "script", "steps", "dag", "suspend", "resource", "http", "data", "containerSet",
                 "plugin"):
        if kind in tmpl and tmpl[kind] is not None:
            return kind
    return "unknown"


def _node_type(tmpl: Mapping[str, Any]) -> str:
    return {"steps": "Steps", "dag": "DAG", "suspend": "Suspend"}.get(_kind(tmpl), "Pod")


def _unhandled(step: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    phase = node.get("phase")
    cont = step.get("continueOn") or {}
    if phase == "Failed":
        return not cont.get("failed")
    if phase == "Error":
        return not cont.get("error")
    return False


def _failed_unhandled(task: str, state: graph.TaskState, handled: set[str]) -> bool:
    """A failed task no dependant handles explicitly and without continueOn for its phase."""
    if state.phase == "Failed":
        return task not in handled and not state.continue_failed
    if state.phase == "Error":
        return task not in handled and not state.continue_error
    return False


def _missing_as_omitted(tree: Any, states: Mapping[str, graph.TaskState]) -> dict[str, graph.TaskState]:
    """Tasks outside the DAG's target set count as Omitted in depends expressions."""
    return {d: graph.TaskState(phase="Omitted") for d in graph.deps_of(tree) if d not in states}


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _int_or_none(text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise NodeFailure(f"parallelism must be an integer, got {text!r}") from exc


def _loop_index(name: str) -> int:
    start = name.rfind("(")
    try:
        return int(name[start + 1:].split(":", 1)[0])
    except ValueError:
        return 0


def _duration(node: Mapping[str, Any]) -> float:
    from datetime import datetime

    try:
        start = datetime.strptime(node["startedAt"], "%Y-%m-%dT%H:%M:%SZ")
        end = datetime.strptime(node["finishedAt"], "%Y-%m-%dT%H:%M:%SZ")
        return (end - start).total_seconds()
    except (KeyError, TypeError, ValueError):
        return 0.0


def _sequence(seq: Mapping[str, Any], scope: Scope, where: str) -> list[str]:
    try:
        rendered = {k: render(str(v), scope, f"{where}.withSequence.{k}") for k, v in seq.items()}
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    try:
        start = int(rendered.get("start") or 0)
        if rendered.get("count") not in (None, ""):
            count = int(rendered["count"])
            numbers = list(range(start, start + count))
        else:
            end = int(rendered.get("end") or 0)
            numbers = list(range(start, end + 1)) if end >= start else list(range(start, end - 1, -1))
    except ValueError as exc:
        raise NodeFailure(f"{where}.withSequence: start/end/count must be integers ({rendered})") from exc
    fmt = rendered.get("format")
    if fmt:
        try:
            return [fmt % n for n in numbers]  # Go's %d/%02d/%x verbs read the same in Python
        except (TypeError, ValueError) as exc:
            raise NodeFailure(f"{where}.withSequence.format: {exc}") from exc
    return [str(n) for n in numbers]


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            base[key] = _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base

