"""DAG templates: tasks start when their ``depends`` can be decided; failFast, target, loops as TaskGroups."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import partial
from typing import Any

from aipipe.engine import graph, reconcile, settle
from aipipe.engine.calls import Call, NodeFailure
from aipipe.engine.children import BadLoop, ChildRunner
from aipipe.engine.gate import FAIL_FAST_MESSAGE, ChildGate
from aipipe.engine.handler import NodeResult
from aipipe.engine.items import item_label, item_scope
from aipipe.engine.itemstart import holds_a_slot, slot_first_pool, start_item
from aipipe.engine.manifest import DagBody, StepSpec
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import outbound_nodes
from aipipe.engine.phases import DONE_PHASES, FAILED_PHASES, NodePhase, NodeType
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.template import Scope, render, resolve_nested


class DagHandler:
    """Runs a dag template: a scheduler loop that waits on a condition variable for finished tasks."""

    def __init__(self, rt: Runtime, children: ChildRunner) -> None:
        self.rt = rt
        self.children = children

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        return _DagRun(self.rt, self.children, call, node, scope).run()


class _DagRun:
    """One invocation of a dag template: its tasks' states and the threads running them."""

    def __init__(self, rt: Runtime, children: ChildRunner, call: Call, node: NodeRef, scope: Scope) -> None:
        self.rt, self.children, self.call, self.node = rt, children, call, node
        body = DagBody.of(resolve_nested(call.template, scope))
        self.tasks: Mapping[str, StepSpec] = body.tasks
        self.trees = {n: graph.task_tree(t.source) for n, t in self.tasks.items()}
        target_text = render(body.target, scope, "dag.target").strip()
        if target_text:
            self.targets = [t for t in target_text.replace(",", " ").split() if t]
            unknown = [t for t in self.targets if t not in self.tasks]
            if unknown:
                raise NodeFailure(f"dag.target: unknown task(s) {unknown}")
            self.wanted = graph.ancestors(self.targets, self.trees)
        else:
            self.targets = [t for t in self.tasks if not any(t in graph.deps_of(self.trees[o]) for o in self.tasks
                                                             if self.trees[o] is not None)]
            self.wanted = set(self.tasks)
        self.gate = ChildGate(call.head, scope)
        self.scope = scope.child()
        self.cond = threading.Condition()
        self.states: dict[str, graph.TaskState] = {}
        self.running: set[str] = set()
        self.never: set[str] = set()  # held back by the template's failFast
        self.order = [t for t in self.tasks if t in self.wanted]
        self.positions = {t: i for i, t in enumerate(self.tasks)}
        self.view = reconcile.DagView(self.order, self.trees, frozenset(self.wanted))

    def task_ref(self, label: str, parent: str | None = None, item: int | None = None) -> NodeRef:
        """The node of a task (or of its loop item ``item``, labelled ``label``, under the TaskGroup ``parent``); in
        the walk, the tasks come in the order the template lists them."""
        task = label if item is None else label[:label.rindex("(")]
        place = (*self.node.order, self.positions[task], *(() if item is None else (item,)))
        return self.rt.ref(f"{self.node.name}.{label}", label, parent or self.node.id, self.node.id, place)

    def deps(self, tname: str) -> set[str]:
        tree = self.trees[tname]
        return graph.deps_of(tree) if tree is not None else set()

    # ------------------------------------------------------------------ scheduling

    def run(self) -> NodeResult:
        with self.cond:
            while True:
                if self._start_ready():
                    continue
                if not self.running:
                    break
                settle.settled()  # the DAG waits for its tasks: Argo's walk moves on
                self.cond.wait()
        if self.gate.tripped.is_set():
            return {"phase": NodePhase.FAILED, "message": FAIL_FAST_MESSAGE}
        if self.rt.cancelled.is_set():
            return {"phase": NodePhase.FAILED, "message": self.rt.abort_reason}
        task_nodes = [self.rt.tree.get(self.task_ref(t).id) or {} for t in self.order]
        lifecycle_error = self.children.lifecycle_error(task_nodes)
        if lifecycle_error is not None:  # as Argo's executeDAG: a task's hook it cannot evaluate errors the DAG
            return {"phase": NodePhase.ERROR, "message": lifecycle_error}
        hook_error = self.children.hook_error(task_nodes)
        if hook_error is not None:  # as Argo's executeDAG: an exit hook that could not be evaluated errors the DAG
            return {"phase": NodePhase.ERROR, "message": hook_error}
        # As Argo's assessDAGPhase: only the target tasks' branches decide (a failure no target's branch carries,
        # such as one a dependant names with .Failed, or one an `||` passes over, does not fail the DAG).
        with self.rt.tree.lock:
            nodes = dict(self.rt.tree.nodes)
        branch = branch_phases(nodes, self.node.id, {self.task_ref(t).id for t in self.targets})
        # as Argo's executeDAG, a Failed or Errored DAG gets its outbound nodes too (its target or leaf tasks'), so
        # a dependant of the DAG (or of a loop of it) that is Omitted hangs under the failed branch and carries it
        outbound = [o for t in self.targets for o in outbound_nodes(nodes, self.task_ref(t).id)]
        for tname in self.targets:
            reached = branch.get(self.task_ref(tname).id)
            if self.tasks[tname].continue_on.fails_parent(reached):
                return {"phase": NodePhase(str(reached)), "message": self._failure_message(nodes, tname),
                        "outboundNodes": outbound}
        return {"phase": NodePhase.SUCCEEDED, "outputs": self.children.outputs.of_template(self.call, self.scope),
                "outboundNodes": outbound}

    def _failure_message(self, nodes: Mapping[str, NodeRecord], target: str) -> str:
        """As Argo's boundaryFailureMessage: "child '<node>' failed", naming the first task in the template's order
        that failed or errored (the failed target's own node when none did, as when it was Omitted)."""
        failed = [t for t in self.order if (nodes.get(self.task_ref(t).id) or {}).get("phase") in FAILED_PHASES]
        return f"child '{self.node.name}.{(failed or [target])[0]}' failed"

    def _start_ready(self) -> bool:
        """Under ``cond``: one reconcile pass over the tasks' states, then its actions (omit the tasks whose
        depends is decided false, start those decided true); False when the pass found nothing to do."""
        holding = self._holding()
        if holding:
            self._take_ended()
        unfinished = self._left_unfinished() if holding else frozenset()
        actions = reconcile.dag_pass(self.view, dict(self.states), frozenset(self.running | self.never), holding,
                                     unfinished)
        if self.gate.tripped.is_set():  # the template's failFast: Argo's checkParallelism fails the DAG before
            actions = [a for a in actions if a[1] != reconcile.OMIT]  # executeDAG would omit anything
        for tname, action in actions:
            if action == reconcile.OMIT:
                self.cond.release()
                try:
                    self._omit(tname)
                finally:
                    self.cond.acquire()
                self.states[tname] = graph.TaskState(phase=NodePhase.OMITTED)
            elif not self._holding() or tname in unfinished:  # failFast may have tripped during this pass
                self.running.add(tname)
                self._start_task(tname)
        return bool(actions)

    def _start_task(self, tname: str) -> None:
        """Under ``cond``: start the task's thread; in walk order, ``cond`` is free while it settles (its end takes
        ``cond``)."""
        if not self.rt.walk_in_order():
            settle.start(partial(self._launch, tname), False)
            return
        self.cond.release()
        try:
            settle.start(partial(self._launch, tname), True)
        finally:
            self.cond.acquire()

    def _holding(self) -> bool:
        """Whether no task may start now: failFast tripped, or the run ended (a shut-down run's tasks still
        start, and their pod nodes are created Failed)."""
        return (self.rt.cancelled.is_set() and not self.rt.shutdown) or self.gate.tripped.is_set()

    def _take_ended(self) -> None:
        """While nothing may start: a task an earlier driver ended gives the state the store holds for it, so the
        pass decides its dependants from it (as Argo's operator reads its nodes), and it does not run again."""
        for tname in self.order:
            if tname in self.states or tname in self.running:
                continue
            ref = self.task_ref(tname)
            with self.rt.tree.lock:
                record = None if ref.id in self.rt.owned else self.rt.tree.nodes.get(ref.id)
            if record is None or record.get("phase") not in DONE_PHASES:
                continue
            self._finish(tname, record, self._loop_children(record, ref) if self.tasks[tname].loop else [])

    def _loop_children(self, group: NodeRecord, ref: NodeRef) -> list[NodeRecord]:
        """The stored item nodes of a looped task's TaskGroup (not the tasks it leads to)."""
        kids = [self.rt.tree.get(c) for c in group.get("children", [])]
        return [k for k in kids if k and str(k.get("name", "")).startswith(ref.name + "(")]

    def _left_unfinished(self) -> frozenset[str]:
        """The tasks whose node (or loop's TaskGroup) an earlier driver opened and left unfinished."""
        return frozenset(t for t in self.order if t not in self.states and t not in self.running
                         and self.rt.orphaned(self.task_ref(t)) is not None)

    def _omit(self, tname: str) -> None:
        self._link(tname)
        node = self.rt.skip_node(self.task_ref(tname), NodePhase.OMITTED, "omitted: depends condition not met", None)
        self.children.outputs.register(f"tasks.{tname}", self.tasks[tname], [node], self.scope, self.call.tset)

    def _finish(self, tname: str, node: NodeRecord, children: list[NodeRecord]) -> None:
        task = self.tasks[tname]
        for record in children or [node]:
            self._word_controller_error(record)
        child_phases = [c.get("phase") for c in children] or [node.get("phase")]
        state = graph.TaskState(
            phase=node.get("phase", NodePhase.ERROR), continue_failed=task.continue_on.failed,
            continue_error=task.continue_on.error,
            any_succeeded=any(p == NodePhase.SUCCEEDED for p in child_phases),
            all_failed=all(p == NodePhase.FAILED for p in child_phases),  # as Argo: an Error item is not Failed
            daemoned=bool(node.get("daemoned")))
        self.children.outputs.register(f"tasks.{tname}", task, children or [node], self.scope, self.call.tset,
                                       group=node if task.loop is not None else None)
        with self.cond:
            self.states[tname] = state
            self.running.discard(tname)
            self.cond.notify_all()

    def _word_controller_error(self, record: NodeRecord) -> None:
        """A task node the controller errored (``Runtime.controller_errors``) says so as Argo's executeDAGTask
        words it: "task '<node name>' errored: <the error>"."""
        if record.get("id") not in self.rt.controller_errors:
            return
        self.rt.tree.put(str(record["id"]), message=f"task '{record.get('name')}' errored: {record.get('message', '')}")
        self.rt.tree.commit()

    def _link(self, tname: str) -> None:
        deps = self.deps(tname)
        self.rt.edges.after(f"{self.node.name}.{tname}",
                            [self.task_ref(d).id for d in self.order if d in deps], self.node.id)

    # ------------------------------------------------------------------ one task

    def _launch(self, tname: str) -> None:
        try:
            self._launch_unguarded(tname)
        except Exception as exc:  # never leave the scheduler waiting on a task that died with a bug
            node = self.rt.fail_node(self.task_ref(tname), NodeFailure(f"engine error: {exc!r}"))
            self._finish(tname, node, [])

    def _launch_unguarded(self, tname: str) -> None:
        task = self.tasks[tname]
        ref = self.task_ref(tname)
        self._link(tname)
        try:
            items = self.children.expand_items(task, self.scope, tname)
        except BadLoop as exc:  # Argo's expandTask: a Skipped-type node ended Error
            self._finish(tname, self.rt.skip_node(ref, NodePhase.ERROR, str(exc), None), [])
            return
        except NodeFailure as exc:
            self._finish(tname, self.rt.fail_node(ref, exc), [])
            return
        if items == []:
            self._finish(tname, self.children.skip_empty_loop(task, ref, self.call.tset), [])
            return
        holds = holds_a_slot(self.rt, task, self.scope, self.call.tset, self.gate.slots)
        if items is None:
            if not self.gate.enter(ref.order, holds):  # failFast: it never starts (and has no node), as in Argo
                with self.cond:
                    self.running.discard(tname)
                    self.never.add(tname)
                    self.cond.notify_all()
                return
            node = None
            try:
                node = self.children.run(task, ref, self.scope.child(), self.call.tset, "tasks", self.gate.stops_at)
            finally:
                self.gate.leave(node, holds)
            self._finish(tname, node, [])
            return
        self._run_group(tname, ref, items, holds)

    def _run_group(self, tname: str, ref: NodeRef, items: list[Any], holds: bool) -> None:
        """A looped task: a TaskGroup node with one child per item (``holds``: each item holds its slot of the
        template's parallelism while it runs)."""
        group_id, kept = self.rt.start_node(ref, NodeType.TASK_GROUP, None)
        if kept is not None:
            self._finish(tname, kept, self._loop_children(kept, ref))
            return
        self.rt.tree.commit()
        children: list[NodeRecord] = []
        threads = []
        lock = threading.Lock()
        pool = slot_first_pool(self.rt, self.tasks[tname], self.scope, self.call.tset)
        for i, item in enumerate(items):
            vals, raw = item_scope(item)
            child_scope = self.scope.child(vals, raw=raw)
            child_ref = self.task_ref(f"{tname}({i}:{item_label(item)})", group_id, i)
            if not self.gate.enter(child_ref.order, holds):
                break

            def work(child_ref: NodeRef = child_ref, child_scope: Scope = child_scope) -> None:
                node = None
                try:
                    node = self.children.run(self.tasks[tname], child_ref, child_scope, self.call.tset, "tasks",
                                             self.gate.stops_at)
                    with lock:
                        children.append(node)
                finally:
                    self.gate.leave(node, holds)

            threads.append(start_item(self.rt, work, child_ref.order, pool))
        if any(thread.is_alive() for thread in threads):
            settle.settled()  # the task group waits for its items: Argo's walk moves on
        for thread in threads:
            thread.join()
        bad = [c for c in children if c.get("phase") in FAILED_PHASES]
        phase = NodePhase.SUCCEEDED
        if bad:
            phase = NodePhase.ERROR if any(c.get("phase") == NodePhase.ERROR for c in bad) else NodePhase.FAILED
        group = self.rt.finish_node(group_id, phase, f"child '{bad[0].get('name')}' failed" if bad else None)
        self._finish(tname, group, children)


def branch_phases(nodes: Mapping[str, NodeRecord], dag_id: str, targets: set[str]) -> dict[str, str]:
    """Each target task's phase as Argo's assessDAGPhase deduces it: walking the node graph from the DAG's
    children, a completed node sets its branch's phase and a Skipped or Omitted one inherits it (a failure
    wins over a success reached by another path); a Retry node leads on to its hooks and its attempts' children."""
    found: dict[str, str] = {}
    queue = [(c, str(NodePhase.SUCCEEDED)) for c in (nodes.get(dag_id) or {}).get("children", [])]
    seen: set[tuple[str, str]] = set()
    while queue:
        nid, phase = queue.pop(0)
        if (nid, phase) in seen or nid not in nodes:
            continue
        seen.add((nid, phase))
        node = nodes[nid]
        if node.get("phase") in (NodePhase.SUCCEEDED, *FAILED_PHASES):
            phase = str(node["phase"])
        if nid in targets and found.get(nid) not in FAILED_PHASES:
            found[nid] = phase
        children = node.get("children", [])
        if node.get("type") == NodeType.RETRY:
            children = _past_retry(nodes, node)
        queue.extend((c, phase) for c in children)
    return found


def _past_retry(nodes: Mapping[str, NodeRecord], retry: NodeRecord) -> list[str]:
    """Where the walk goes on from a Retry node (Argo's getRetryNodeChildrenIds): its hook nodes themselves and
    every attempt's children, the last child first (the dependants hang under the last attempt)."""
    attempt_prefix = f"{retry.get('name', '')}("
    onward: list[str] = []
    for child in reversed(retry.get("children", [])):
        record = nodes.get(child) or {}
        if str(record.get("name", "")).startswith(attempt_prefix):
            onward += record.get("children", [])
        else:  # a hook of the retried task or step
            onward.append(child)
    return onward
