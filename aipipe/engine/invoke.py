"""One template invocation: call depth, inputs, retries, parallelism slots, mutexes, then its kind's handler."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from aipipe.engine.bind import bind_inputs
from aipipe.engine.bounds import MAX_DEPTH_MESSAGE, MAX_STACK_DEPTH, OverBudget
from aipipe.engine.calls import Call, NodeFailure
from aipipe.engine.children import ChildRunner
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.dag import DagHandler
from aipipe.engine.datanode import DataHandler
from aipipe.engine.handler import NodeResult, TemplateHandler
from aipipe.engine.httpnode import HttpHandler
from aipipe.engine.leaf import LeafHandler
from aipipe.engine.locks import MutexRegistry, SyncError, SyncSite
from aipipe.engine.manifest import LEAF_KINDS
from aipipe.engine.memo import Memoizer
from aipipe.engine.names import pod_name
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import iso_epoch
from aipipe.engine.outputs import Outputs
from aipipe.engine.phases import PASSED_PHASES, NodePhase, NodeType
from aipipe.engine.pod import PodRunner
from aipipe.engine.retry import RetryStrategy, parse_duration, render_strategy
from aipipe.engine.retrynode import RetryNode, RetryRun
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.slots import Slots
from aipipe.engine.steps import StepsHandler
from aipipe.engine.suspend import SuspendHandler
from aipipe.engine.template import Scope, TemplateError, render
from aipipe.engine.volumes import with_workflow_volumes
from aipipe.errors import UserError

CALLER_NAME = {NodeType.STEPS: "steps.name", NodeType.DAG: "tasks.name"}
DISPLAY_NAME_ANNOTATION = "workflows.argoproj.io/display-name"  # renames an invocation's node
MAX_DISPLAY_NAME = 256
WALKED_ON_SHUTDOWN = (NodeType.STEPS, NodeType.DAG)  # templates whose children a shut-down run still reaches


class Invoker:
    """Runs template invocations to their final node record; the template kinds' handlers call back into it
    (through :class:`ChildRunner`) for their children."""

    def __init__(self, rt: Runtime, pods: PodRunner, pod_slots: Slots, mutexes: MutexRegistry) -> None:
        self.rt = rt
        self.pods = pods
        self.pod_slots = pod_slots
        self.mutexes = mutexes
        self.outputs = Outputs(rt)
        self.configmaps = ConfigMapStore.from_home(rt.ctx.settings.state_dir)  # valueFrom.configMapKeyRef inputs
        self.children = ChildRunner(rt, self.outputs, self.execute)
        self.memos = Memoizer(rt, self.configmaps)  # template.memoize: its cache is a local ConfigMap
        leaf = LeafHandler(rt, pods)
        self.retries = RetryNode(rt, pods.daemons, self._execute_once)
        self.handlers: dict[str, TemplateHandler] = {
            "container": leaf, "script": leaf, "containerSet": leaf, "steps": StepsHandler(rt, self.children),
            "dag": DagHandler(rt, self.children), "suspend": SuspendHandler(rt), "http": HttpHandler(rt),
            "data": DataHandler(rt)}

    def execute(self, call: Call, ref: NodeRef, outer: Scope) -> NodeRecord:
        """Run one template invocation to completion; returns its final node record.

        ``ref.parent``'s call depth plus one is this invocation's; past Argo's 100 the node and the run
        end ``Error`` with Argo's message.
        """
        rt = self.rt
        rt.enter(ref)
        depth = rt.depths.get(ref.parent or "", 0) + 1
        rt.depths.setdefault(ref.id, depth)
        if depth > MAX_STACK_DEPTH:
            rt.abort(MAX_DEPTH_MESSAGE, NodePhase.ERROR)
            return rt.fail_node(ref, OverBudget(MAX_DEPTH_MESSAGE), call)
        template = with_workflow_volumes(call.template, self.pods.volumes.workflow_volumes, outer)
        if template is not call.template:  # with the spec.volumes it mounts, rendered in the caller's scope
            call = dataclasses.replace(call, template=template)
        try:
            inputs, scope = bind_inputs(call, outer, rt.workflow_scope(), self.configmaps)
        except NodeFailure as exc:
            return rt.fail_node(ref, exc, call)
        try:
            ref = _displayed(ref, call.template, scope)
        except NodeFailure as exc:
            return rt.fail_node(ref, exc, call)
        caller = (rt.tree.get(ref.boundary) or {}).get("type") if ref.boundary else None
        if caller in CALLER_NAME:  # Argo's local steps.name / tasks.name: the step or task that calls the template
            scope = scope.child({CALLER_NAME[caller]: ref.display})
        if rt.halted(ref.id) and not self._walked_when_halted(call, ref):
            return rt.fail_node(ref, NodeFailure(self._not_started(), NodePhase.FAILED), call)
        try:  # as Argo: the cache is read before the node (or its retry node) is created
            memo = self.memos.lookup(call, ref, scope)
        except NodeFailure as exc:
            return rt.fail_node(ref, exc, call)
        try:
            if memo is not None and memo.hit:
                return self.memos.record_hit(memo, call, ref, inputs)
            fields = {"memoizationStatus": memo.memo.status(False)} if memo is not None else {}
            # as Argo's woc.retryStrategy: a template's own strategy, else the workflow's spec.retryStrategy; an
            # empty one ({}) is a strategy too: no limit, retried on failure
            if self._retry_strategy(call) is not None:
                return self._execute_retry(call, ref, scope, inputs, fields)
            return self._execute_once(call, ref, scope, inputs, fields)
        except OverBudget as over:
            return rt.unrecorded(ref, over)

    def _walked_when_halted(self, call: Call, ref: NodeRef) -> bool:
        """Whether the run's end still walks this node's children: a steps or dag node of a shut-down run (Argo
        still reaches them), and a steps, dag or Retry node an earlier driver left unfinished (the children it
        opened must end too, and a DAG's dependants be decided, as after a deadline in one driver)."""
        kind = call.head.node_type
        if kind in WALKED_ON_SHUTDOWN and self.rt.shutdown:
            return True
        orphan = self.rt.orphaned(ref)
        return orphan is not None and (kind in WALKED_ON_SHUTDOWN or orphan.get("type") == NodeType.RETRY)

    def _not_started(self) -> str:
        """The message of a node the run's end keeps from starting: Argo's createWorkflowPod words a shut-down
        run's refusal."""
        return f"workflow shutdown with strategy: {self.rt.shutdown}" if self.rt.shutdown else self.rt.stop_reason

    def _retry_strategy(self, call: Call) -> Mapping[str, Any] | None:
        """The template's ``retryStrategy`` as written, else the workflow's (None: neither has one)."""
        own = call.head.retry_strategy
        return own if own is not None else self.rt.spec.get("retryStrategy")

    def _execute_retry(self, call: Call, ref: NodeRef, scope: Scope, inputs: dict[str, Any],
                       fields: Mapping[str, Any]) -> NodeRecord:
        rt = self.rt
        nid, kept = rt.start_node(ref, NodeType.RETRY, call, inputs=inputs, **fields)
        if kept is not None:
            return kept
        try:
            raw = self._retry_strategy(call)
            assert raw is not None  # only a call with a strategy comes here
            strategy = RetryStrategy.parse(render_strategy(raw, scope, f"{ref.display}.retryStrategy"))
        except (UserError, TemplateError) as exc:
            return rt.finish_node(nid, NodePhase.ERROR, str(exc))
        assert strategy is not None
        sync = call.head.synchronization
        # as Argo: the Retry node takes the template's locks and holds them through every attempt and backoff
        try:
            lock = self.acquire_sync(sync, nid)
        except NodeFailure as exc:
            return rt.finish_node(nid, exc.phase, str(exc))
        attempts = dataclasses.replace(call, template={k: v for k, v in call.template.items()
                                                       if k != "synchronization"}) if sync else call
        try:  # its cache entry is saved before the lock goes, so a node waiting for the lock finds it
            return self.memos.store(self.retries.run(RetryRun(nid, ref, attempts, scope, inputs, strategy)))
        finally:
            self.mutexes.release_all(lock)

    def _execute_once(self, call: Call, ref: NodeRef, scope: Scope, inputs: dict[str, Any],
                      fields: Mapping[str, Any]) -> NodeRecord:
        """Run one attempt; a container or script waits for a slot of the workflow's parallelism before its
        node exists (Argo creates a pod's node when the pod starts, so a waiting one has no startedAt).
        ``fields`` go into the node's record when it is created."""
        if call.head.kind not in LEAF_KINDS:
            return self._execute_node(call, ref, scope, inputs, fields)
        self.pod_slots.acquire(ref.order)
        try:
            return self._execute_node(call, ref, scope, inputs, fields)
        finally:
            self.pod_slots.release()

    def _execute_node(self, call: Call, ref: NodeRef, scope: Scope, inputs: dict[str, Any],
                      fields: Mapping[str, Any]) -> NodeRecord:
        rt = self.rt
        rt.control.wait_unsuspended()  # a suspended run starts nothing new
        ntype = call.head.node_type
        orphan = rt.orphaned(ref) if ntype == NodeType.POD else None
        if orphan is not None:
            PodRunner.kill_orphan(orphan)  # what a dead driver's node left running; then it runs again
        nid, kept = rt.start_node(ref, ntype, call, inputs=inputs, **fields)
        if kept is not None:
            return kept
        template = call.template_name or (call.template_ref or {}).get("template") or ""
        parent = rt.tree.get(ref.parent) if ref.parent else None
        # an attempt's node.name is its Retry node's (Argo sets it before it expands the retries)
        named = parent.get("name", ref.name) if parent and parent.get("type") == NodeType.RETRY else ref.name
        scope = scope.child({"node.name": named, "pod.name": pod_name(rt.name, ref.name, str(template))})
        lock: list[Any] = []
        try:  # the locks go once the node has ended and its cache entry is saved: a waiter for them finds it
            result = self._run_handler(call, ref, scope, nid, fields, lock)
            if result.get("daemoned"):  # runs on; aipipe.engine.leaf ends its node
                return rt.tree.get(nid) or {}
            return self.memos.store(self._finish(nid, result))
        finally:
            self.mutexes.release_all(lock)

    def _run_handler(self, call: Call, ref: NodeRef, scope: Scope, nid: str, fields: Mapping[str, Any],
                     lock: list[Any]) -> NodeResult:
        """The template kind's handler, once the node holds its locks (added to ``lock``) and its cache was looked
        up again; a NodeFailure becomes the result it words."""
        kind = call.head.kind
        try:
            lock.extend(self.acquire_sync(call.head.synchronization, nid, self._timeout_at(call, scope, nid)))
            hit = self.memos.look_again(call, ref, scope) if lock and fields.get("memoizationStatus") else None
            handler = self.handlers.get(kind)
            if hit is not None and hit.hit:  # another node with its key ran while this one waited for the lock
                return {"phase": NodePhase.SUCCEEDED, "memoizationStatus": hit.memo.status(True),
                        **({"outputs": hit.outputs} if hit.outputs else {})}
            if handler is None:
                return {"phase": NodePhase.ERROR,
                        "message": f"{kind} templates are not supported by the embedded engine"}
            return handler.run(call, ref, scope)
        except NodeFailure as exc:
            return {"phase": exc.phase, "message": str(exc), "terminal": exc.terminal,
                    "controller_error": exc.controller}
        finally:
            if kind in ("steps", "dag"):  # as Argo's killDaemonedChildren: its daemons end with it
                self.pods.daemons.release(nid)

    def _timeout_at(self, call: Call, scope: Scope, nid: str) -> float | None:
        """When the template's ``timeout`` runs out (epoch seconds): counted from the node's creation, so time spent
        waiting for a lock counts (None: no timeout, or one the pod's own check reports)."""
        text = call.template.get("timeout")
        started = iso_epoch((self.rt.tree.get(nid) or {}).get("startedAt"))
        if text in (None, "") or started is None:
            return None
        try:
            return started + parse_duration(render(str(text), scope, "timeout"), "timeout")
        except (TemplateError, UserError):
            return None

    def _finish(self, nid: str, result: NodeResult) -> NodeRecord:
        """End the node with what its handler reported."""
        rt = self.rt
        phase = result.pop("phase")
        message = result.pop("message", None)
        if result.pop("controller_error", False):
            rt.mark_controller_error(nid)
        rt.publish_globals(result.get("outputs") or {})
        if rt.halted(nid) and phase not in PASSED_PHASES:
            phase, message = NodePhase.FAILED, rt.abort_reason or message
        return rt.finish_node(nid, phase, message, **result)

    def acquire_sync(self, sync: Mapping[str, Any] | None, nid: str | None, until: float | None = None) -> list[Any]:
        """Hold the mutexes and ConfigMap semaphores ``sync`` names (waiting as Argo shows it); ``nid`` None
        for the workflow's own ``spec.synchronization``; a node still waiting at the epoch ``until`` (its template's
        ``timeout``) fails "timeout", as Argo's checkTemplateTimeout fails a Pending node."""
        if not sync:
            return []
        rt = self.rt
        try:
            return self.mutexes.acquire_sync(sync, SyncSite(rt.workflow, rt.tree, rt.status, nid), until)
        except TimeoutError as exc:
            raise NodeFailure(str(exc), NodePhase.FAILED, terminal=True) from exc
        except InterruptedError as exc:
            raise NodeFailure(rt.stop_reason, NodePhase.FAILED) from exc
        except SyncError as exc:
            raise NodeFailure(str(exc), NodePhase.ERROR, terminal=True, controller=True) from exc


def _displayed(ref: NodeRef, template: Mapping[str, Any], scope: Scope) -> NodeRef:
    """``ref`` under the display name the template's ``workflows.argoproj.io/display-name`` annotation gives, with
    the invocation's inputs substituted (Argo's executeTemplate renames the node so); a name that is not one line
    of printable characters, at most 256, is the node's error."""
    text = (template.get("annotations") or {}).get(DISPLAY_NAME_ANNOTATION)
    if not text:
        return ref
    where = f"annotations.{DISPLAY_NAME_ANNOTATION}"
    try:
        name = render(str(text), scope, where)
    except TemplateError as exc:
        raise NodeFailure(str(exc), NodePhase.ERROR) from exc
    if not name:
        return ref
    if len(name) > MAX_DISPLAY_NAME or not name.isprintable():
        raise NodeFailure(f"{where}: the display name must be one line of printable characters, at most "
                          f"{MAX_DISPLAY_NAME}: {name[:MAX_DISPLAY_NAME]!r}", NodePhase.ERROR)
    return dataclasses.replace(ref, display=name)
