"""The state one run's template handlers share: the node tree, the run's bounds and abort state, template
resolution and the workflow-level scope. Handlers receive it explicitly (no mixins)."""

from __future__ import annotations

import copy
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from aipipe.engine.bounds import OverBudget, node_cap_message
from aipipe.engine.calls import USER_STOP, Call, NodeFailure, TemplateSet, strategic_merge
from aipipe.engine.control import STOP
from aipipe.engine.edges import Edges
from aipipe.engine.execution import ExecutionContext
from aipipe.engine.manifest import TEMPLATE_KINDS, is_dynamic_ref, kind_of
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import DONE_PHASES, KEPT_ON_RESUME, Clock, NodeTree, iso_epoch, now_iso, subtree_progress
from aipipe.engine.phases import FAILED_PHASES, NodePhase, NodeType, plain
from aipipe.engine.runcontrol import RunControl
from aipipe.engine.slots import Slots
from aipipe.engine.template import Scope, TemplateError, render
from aipipe.engine.wfmeta import creation_variables, workflow_variables
from aipipe.errors import UserError
from aipipe.validation import check_name

CONTROLLER_ERRORS = "aipipe.dev/controller-errors"  # annotation: the ids of the nodes the controller errored
# fields of a reopened node (failed, or left Running or waiting by a dead driver) that describe its earlier attempt
REOPEN_CLEARS = ("message", "outputs", "synchronizationStatus", "pid", "hostNodeName", "resourcesDuration")

NodeRecord = dict[str, Any]


class Runtime:
    """One run's shared state and the operations on its node records.

    ``workflow`` is the run's own copy; ``status`` its workflow-level status fields (the nodes live in
    ``tree``). ``spec`` is set once the run has been validated.
    """

    def __init__(self, workflow: dict[str, Any], ctx: ExecutionContext, shutdown: Callable[[str], None]) -> None:
        self.workflow = copy.deepcopy(workflow)
        self.ctx = ctx
        meta = self.workflow.setdefault("metadata", {})
        if not meta.get("name"):
            raise UserError("the workflow has no metadata.name", field="metadata.name")
        self.name: str = check_name(str(meta["name"]))
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("namespace", ctx.settings.namespace)
        meta.setdefault("creationTimestamp", now_iso())
        previous = self.workflow.get("status") or {}
        self.status: dict[str, Any] = {k: v for k, v in previous.items() if k != "nodes"}
        self.tree = NodeTree(self.name, previous.get("nodes") or {}, self.snapshot, ctx.on_change)
        self.owned: set[str] = set()  # nodes this driver opened; a stored Running node not here is an orphan
        self.opened_at: dict[str, float] = {}  # epoch seconds, to the microsecond, of the nodes this driver created
        # nodes that ended Error by the controller's hand, not their pod's (a pod that could not be created, a lock
        # that could not be taken, a retry expression that could not be evaluated): Argo's executeTemplate errors.
        # Stored in an annotation (CONTROLLER_ERRORS), so a driver that resumes the run words their parents alike
        self.controller_errors: set[str] = stored_controller_errors(self.workflow)
        (meta.get("annotations") or {}).pop(CONTROLLER_ERRORS, None)  # the snapshot writes it again while it holds
        self.cancelled = threading.Event()
        self.abort_reason: str | None = None
        self.deadline_at: float | None = None  # the run's activeDeadlineSeconds as a time (epoch seconds)
        self.abort_phase = NodePhase.FAILED
        # spec.shutdown's strategy once the run is shut down: as Argo, steps and dags keep being walked and each pod
        # node they reach is created Failed instead of started
        self.shutdown: str | None = None
        # exit handlers (of steps, tasks, the run) and every node below them: a Stop does not end them
        self.exit_nodes: set[str] = set()
        # the body's outcome, which ``workflow.status`` reads while the exit handler runs; the stored phase stays
        # Running until the handler ends, as in Argo (a client sees a final phase only once the run has ended)
        self.body_phase: str | None = None
        self.max_nodes = ctx.settings.max_nodes
        self.node_count = len(self.tree.nodes)
        self.depths: dict[str, int] = {}  # node id -> template call depth of the invocation it belongs to
        self.edges = Edges(self.name, self.tree)
        self.control = RunControl(self.tree, self.workflow, self.cancelled, shutdown)
        self.clock = Clock()
        self.global_params: dict[str, str] = {}
        self.global_artifacts: dict[str, dict[str, Any]] = {}
        self.spec: dict[str, Any] = {}
        self.kill_all: Callable[[], None] = _nothing  # ends every running process (set once pods can run)
        self.pod_slots: Slots | None = None  # the workflow's parallelism (set by the driver)
        self._take_stored_globals(previous)

    # ------------------------------------------------------------------ status

    def snapshot(self, nodes: dict[str, NodeRecord]) -> dict[str, Any]:
        """The whole workflow object with ``nodes`` as its node tree (called under the tree's lock)."""
        out = dict(self.workflow)
        if self.controller_errors:
            meta = out.get("metadata") or {}
            annotations = {**(meta.get("annotations") or {}),
                           CONTROLLER_ERRORS: json.dumps(sorted(self.controller_errors))}
            out["metadata"] = {**meta, "annotations": annotations}
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

    def set_status(self, **fields: Any) -> None:
        with self.tree.lock:
            self.status.update({k: plain(v) for k, v in fields.items()})
        self.tree.commit()

    def abort(self, reason: str, phase: NodePhase = NodePhase.FAILED) -> None:
        """End the run: the first reason wins; nothing new starts and running processes are killed."""
        with self.tree.lock:
            if self.abort_reason is None:
                self.abort_reason = reason
                self.abort_phase = phase
        self.cancelled.set()
        self.kill_all()

    def walk_in_order(self) -> bool:
        """Whether a fan-out starts its children one after another (aipipe.engine.settle): while the workflow's
        parallelism still has a free slot, which the first child in Argo's walk must take. Once every slot is held,
        a freed one goes to the waiter first in the walk, so children may start together."""
        slots = self.pod_slots
        return slots is not None and slots.free is not None and slots.free > 0

    def past_deadline(self) -> bool:
        """Whether the run's ``activeDeadlineSeconds`` has passed (its exit handler may still be running)."""
        return self.deadline_at is not None and time.time() >= self.deadline_at

    def spared(self, nid: str) -> bool:
        """Whether the run's end leaves node ``nid`` running: Argo's Stop still runs exit handlers (its
        ShutdownStrategy.ShouldExecute(onExitPod))."""
        return self.shutdown == STOP and nid in self.exit_nodes

    def halted(self, nid: str) -> bool:
        """Whether the run's end reaches node ``nid`` (cancelled, and not spared)."""
        return self.cancelled.is_set() and not self.spared(nid)

    def enter(self, ref: NodeRef) -> None:
        """Note that ``ref``'s node belongs to an exit handler when the node above it does."""
        if ref.parent in self.exit_nodes or ref.boundary in self.exit_nodes:
            self.exit_nodes.add(ref.id)

    @property
    def stop_reason(self) -> str:
        """The message a node cut short by the run's end carries."""
        return self.abort_reason or USER_STOP

    def ref(self, name: str, display: str, parent: str | None = None, boundary: str = "",
            order: tuple[int, ...] = ()) -> NodeRef:
        return NodeRef(self.name, name, display, parent, boundary, order)

    # ------------------------------------------------------------------ scope

    def workflow_scope(self) -> Scope:
        """``workflow.*`` variables as they read now (``wfmeta``'s set, the run's duration, the global outputs so
        far, and once the body has ended its status); the creation time's other forms are for plain tags only.

        As in Argo's operate(), ``workflow.status`` is set only after the entry template has run, so the body's
        own templates leave ``{{workflow.status}}`` unresolved; the workflow's hooks set it themselves."""
        values: dict[str, Any] = {
            **workflow_variables(self.workflow, self.spec),
            "workflow.duration": f"{self.clock.elapsed():.6f}",
        }
        if self.body_phase:
            values["workflow.status"] = self.body_phase
        tags = creation_variables(str(self.workflow["metadata"].get("creationTimestamp") or ""))
        return self.with_global_outputs(Scope(values, tags=tags))

    def with_global_outputs(self, scope: Scope) -> Scope:
        """``scope`` with the ``workflow.outputs.*`` published so far (Argo's addOutputsToGlobalScope: every
        later resolution sees them)."""
        with self.tree.lock:
            if not self.global_params and not self.global_artifacts:
                return scope
            values = {f"workflow.outputs.parameters.{k}": v for k, v in self.global_params.items()}
            artifacts = {f"workflow.outputs.artifacts.{k}": v for k, v in self.global_artifacts.items()}
        return scope.child(values, artifacts)

    # ------------------------------------------------------------------ template resolution

    def root_tset(self) -> TemplateSet:
        return TemplateSet({t["name"]: t for t in self.spec.get("templates") or []})

    def resolve_call(self, ref: Mapping[str, Any], tset: TemplateSet, scope: Scope | None = None) -> Call:
        """Find the template a step/task/hook names (template, templateRef or inline); a templateRef's name and
        template may be tags (``{{item.x}}``), read in the step's ``scope``."""
        arguments = dict(ref.get("arguments") or {})
        if ref.get("inline"):
            return Call(self._with_defaults(dict(ref["inline"])), tset, None, None, arguments)
        if ref.get("templateRef"):
            tref = _rendered_ref(ref["templateRef"], scope)
            kind = "ClusterWorkflowTemplate" if tref.get("clusterScope") else "WorkflowTemplate"
            manifest = self.ctx.templates(kind, str(tref.get("name")))
            if manifest is None:  # Argo's words (templateresolution), for either kind
                raise NodeFailure(f"workflow template {tref.get('name')} not found")
            templates = {t["name"]: t for t in (manifest.get("spec") or {}).get("templates") or []}
            tmpl = templates.get(str(tref.get("template")))
            if tmpl is None:
                raise NodeFailure(f"template {tref.get('template')} not found in workflow template {tref.get('name')}")
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
        return strategic_merge(applicable, tmpl)

    # ------------------------------------------------------------------ nodes

    def orphaned(self, ref: NodeRef) -> NodeRecord | None:
        """The stored record of ``ref``'s node if an earlier driver opened it and died before it ended (left
        Running/Pending, not opened by this driver): what it started may still run and must end first."""
        with self.tree.lock:
            record = None if ref.id in self.owned else self.tree.nodes.get(ref.id)
        if record is None or not record.get("startedAt"):
            return None
        return record if record.get("phase") in (NodePhase.RUNNING, NodePhase.PENDING) else None

    def start_node(self, ref: NodeRef, kind: NodeType, call: Call | None,
                   **fields: Any) -> tuple[str, NodeRecord | None]:
        """Open a node from its stored state; returns (id, kept record if it must not run again).

        Every invocation comes here first, on a run's first pass as after a driver's crash: a node the store
        has Succeeded/Skipped/Omitted is taken as it is, and so is one an earlier driver ended Failed or Error (as
        Argo's operator reads a node it finds completed); a node an earlier driver left Running or Pending, or one
        this driver ended and runs again, is reopened as the same attempt; a node the store lacks is created."""
        nid = ref.id
        existing = self.tree.get(nid)
        if existing is not None and (existing.get("phase") in KEPT_ON_RESUME or (
                existing.get("phase") in FAILED_PHASES and nid not in self.owned)):
            self.edges.link(nid, ref.parent)
            return nid, existing
        if existing is None:
            self.reserve_nodes(1, take=True)
        with self.tree.lock:
            self.owned.add(nid)
            if not (existing or {}).get("startedAt"):
                self.opened_at[nid] = time.time()
        self.depths.setdefault(nid, self.depths.get(ref.parent or "", 0))
        record: NodeRecord = {
            "id": nid, "name": ref.name, "displayName": ref.display, "type": kind, "phase": NodePhase.RUNNING,
            "startedAt": (existing or {}).get("startedAt") or now_iso(), "finishedAt": None,
            "boundaryID": ref.boundary or None, "children": (existing or {}).get("children", []),
        }
        if call is not None:
            if call.template_ref:
                record["templateRef"] = call.template_ref
            elif call.template_name:
                record["templateName"] = call.template_name
            record["templateScope"] = f"namespaced/{call.tset.name}" if call.tset.kind else "local/" + self.name
        record.update(fields)
        # what the earlier attempt's end (or wait) left on a reopened node goes: it runs again from the start
        stale = {key: None for key in REOPEN_CLEARS if key in (existing or {}) and key not in fields}
        self.tree.put(nid, **{k: v for k, v in record.items() if v is not None or k in ("finishedAt",)}, **stale)
        self.edges.link(nid, ref.parent)
        return nid, None

    def mark_controller_error(self, nid: str) -> None:
        """Node ``nid`` ends Error by the controller's hand (see ``controller_errors``)."""
        with self.tree.lock:
            self.controller_errors.add(nid)

    def started_at(self, nid: str) -> float:
        """When node ``nid`` started, in epoch seconds, as Argo's operator reads its ``startedAt`` (a suspend's
        duration and a retry's maxDuration count from it): precise for a node this driver created, else the
        stored second (an earlier driver's node); now for a node not started yet."""
        with self.tree.lock:
            if nid in self.opened_at:
                return self.opened_at[nid]
            record = self.tree.nodes.get(nid) or {}
        return iso_epoch(record.get("startedAt")) or time.time()

    def reserve_nodes(self, count: int, take: bool = False) -> None:
        """Refuse (and end the run ``Error``) when ``count`` more nodes would pass ``engine.max_nodes``;
        ``take`` counts them as created."""
        with self.tree.lock:
            over = self.node_count + count > self.max_nodes
            if take and not over:
                self.node_count += count
        if over:
            message = node_cap_message(self.max_nodes)
            self.abort(message, NodePhase.ERROR)
            raise OverBudget(message)

    @staticmethod
    def unrecorded(ref: NodeRef, exc: NodeFailure) -> NodeRecord:
        """The record of a node that could not be created because a bound of the run was reached."""
        return {"name": ref.name, "displayName": ref.display, "phase": exc.phase, "message": str(exc)}

    def finish_node(self, nid: str, phase: str, message: str | None = None, **fields: Any) -> NodeRecord:
        extra = {"message": message} if message else {}
        with self.tree.lock:
            node = self.tree.nodes.get(nid, {})
            if node.get("type") not in (NodeType.POD, NodeType.SKIPPED) and "progress" not in fields:
                extra["progress"] = subtree_progress(self.tree.nodes, nid)
        record = self.tree.put(nid, phase=phase, finishedAt=now_iso(), **extra, **fields)
        self.tree.commit()
        return record

    def fail_node(self, ref: NodeRef, exc: NodeFailure, call: Call | None = None) -> NodeRecord:
        """A node that ends ``exc.phase`` before anything of it ran (one the store has ended stands as it is)."""
        ntype = NodeType.POD if call is None else call.head.node_type
        try:
            nid, kept = self.start_node(ref, ntype, call)
        except OverBudget as over:
            return self.unrecorded(ref, over)
        if kept is not None:
            return kept
        if exc.controller:
            self.mark_controller_error(nid)
        return self.finish_node(nid, exc.phase, str(exc))

    def skip_node(self, ref: NodeRef, phase: NodePhase, message: str, call: Call | None) -> NodeRecord:
        """A Skipped-type node (when false, empty loop, depends not met) ending ``phase``."""
        try:
            nid, kept = self.start_node(ref, NodeType.SKIPPED, call)
        except OverBudget as over:
            return self.unrecorded(ref, over)
        if kept is not None:
            return kept
        return self.finish_node(nid, phase, message)

    def _take_stored_globals(self, previous: Mapping[str, Any]) -> None:
        """The ``workflow.outputs.*`` the run had before this driver: those of its kept nodes, in the order they
        finished (all a retried run has left), then the stored ``status.outputs`` (an interrupted run's)."""
        kept = sorted((n for n in (previous.get("nodes") or {}).values()
                       if n.get("phase") in KEPT_ON_RESUME and n.get("outputs")),
                      key=lambda n: str(n.get("finishedAt") or ""))
        for node in kept:
            self.publish_globals(node["outputs"])
        stored = previous.get("outputs") or {}
        self.global_params.update({p["name"]: p.get("value", "") for p in stored.get("parameters") or []})
        self.global_artifacts.update({a["name"]: a for a in stored.get("artifacts") or []})

    def publish_globals(self, outputs: Mapping[str, Any]) -> None:
        """A node's outputs with a ``globalName`` become ``workflow.outputs.*``."""
        with self.tree.lock:
            for p in outputs.get("parameters") or []:
                if p.get("globalName"):
                    self.global_params[p["globalName"]] = p.get("value", "")
            for a in outputs.get("artifacts") or []:
                if a.get("globalName"):
                    self.global_artifacts[a["globalName"]] = {**a, "name": a["globalName"]}


def _nothing() -> None:
    return None


def _rendered_ref(tref: Mapping[str, Any], scope: Scope | None) -> Mapping[str, Any]:
    """A templateRef with the tags in its name and template resolved (Argo resolves a dynamic reference when
    the step runs); without a scope to read them in, a tag is an error of the step."""
    if not is_dynamic_ref(tref):
        return tref
    if scope is None:
        raise NodeFailure(f"templateRef {tref.get('name')!r}/{tref.get('template')!r}: cannot be resolved here")
    try:
        return {**tref, **{k: render(str(tref[k]), scope, f"templateRef.{k}") for k in ("name", "template")
                           if tref.get(k)}}
    except TemplateError as exc:
        raise NodeFailure(str(exc)) from exc


def stored_controller_errors(workflow: Mapping[str, Any]) -> set[str]:
    """The nodes a stored run records as errored by the controller, those still Error (``aipipe retry`` drops
    failed nodes, and a node run again may end otherwise)."""
    text = ((workflow.get("metadata") or {}).get("annotations") or {}).get(CONTROLLER_ERRORS)
    try:
        ids = json.loads(text) if text else []
    except (TypeError, ValueError):  # not the engine's: a workflow may carry any annotation
        return set()
    if not isinstance(ids, list):
        return set()
    nodes = (workflow.get("status") or {}).get("nodes") or {}
    return {i for i in ids if isinstance(i, str) and (nodes.get(i) or {}).get("phase") == NodePhase.ERROR}
