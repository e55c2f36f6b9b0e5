"""DAG templates: tasks start when their ``depends`` can be decided; failFast, target, loops as TaskGroups."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from aipipe.engine import graph
from aipipe.engine.calls import Call, NodeFailure
from aipipe.engine.edges import Edges
from aipipe.engine.gate import FAIL_FAST_MESSAGE, ChildGate
from aipipe.engine.nodes import node_id, outbound_nodes
from aipipe.engine.phases import NodePhase, NodeType
from aipipe.engine.template import Scope, item_label, item_scope, render


class DagMixin:
    """``_run_dag``: the scheduler loop waits on a condition variable for finished tasks."""

    edges: Edges

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
            targets = [t for t in tasks if not any(t in graph.deps_of(trees[o]) for o in tasks
                                                   if trees[o] is not None)]
            wanted = set(tasks)
        fail_fast = dag.get("failFast", True) not in (False, "false")
        gate = ChildGate(call.template, scope, self.cancelled)
        handled: set[str] = set()
        for tname in wanted:
            if trees[tname] is not None:
                handled |= graph.failure_handled_by(trees[tname])
        scope = scope.child()
        cond = threading.Condition()
        states: dict[str, graph.TaskState] = {}
        running: set[str] = set()
        never: set[str] = set()  # held back by the template's failFast
        order = [t for t in tasks if t in wanted]
        stopped = False

        def finish(tname: str, node: dict[str, Any], children: list[dict[str, Any]]) -> None:
            task = tasks[tname]
            cont = task.get("continueOn") or {}
            child_phases = [c.get("phase") for c in children] or [node.get("phase")]
            state = graph.TaskState(
                phase=node.get("phase", NodePhase.ERROR), continue_failed=bool(cont.get("failed")),
                continue_error=bool(cont.get("error")),
                any_succeeded=any(p == NodePhase.SUCCEEDED for p in child_phases),
                all_failed=all(p in (NodePhase.FAILED, NodePhase.ERROR) for p in child_phases))
            self._register_outputs(f"tasks.{tname}", task, children or [node], scope, call.tset)
            with cond:
                states[tname] = state
                running.discard(tname)
                cond.notify_all()

        def launch(tname: str) -> None:
            try:
                launch_unguarded(tname)
            except Exception as exc:  # never leave the scheduler waiting on a task that died with a bug
                node = self._fail_node(f"{name}.{tname}", tname, nid, nid, NodeFailure(f"engine error: {exc!r}"))
                finish(tname, node, [])

        def link(tname: str) -> None:
            deps = graph.deps_of(trees[tname]) if trees[tname] is not None else set()
            self.edges.after(f"{name}.{tname}", [node_id(self.name, f"{name}.{d}") for d in order if d in deps], nid)

        def launch_unguarded(tname: str) -> None:
            task = tasks[tname]
            tname_full = f"{name}.{tname}"
            link(tname)
            try:
                items = self._expand_items(task, scope, tname)
            except NodeFailure as exc:
                node = self._fail_node(tname_full, tname, nid, nid, exc)
                finish(tname, node, [])
                return
            if items == []:
                finish(tname, self._skip_empty_loop(task, tname_full, tname, nid, nid, call.tset), [])
                return
            if items is None:
                if not gate.enter():  # failFast: it never starts (and has no node), as in Argo
                    with cond:
                        running.discard(tname)
                        never.add(tname)
                        cond.notify_all()
                    return
                node = None
                try:
                    node = self._run_child(task, tname_full, tname, nid, nid, scope.child(), call.tset, "tasks")
                finally:
                    gate.leave(node)
                finish(tname, node, [])
                return
            group_id, kept = self._start_node(tname_full, tname, NodeType.TASK_GROUP, None, nid, nid)
            if kept is not None:
                kids = [self.tree.get(c) for c in kept.get("children", [])]
                finish(tname, kept, [k for k in kids if k and str(k.get("name", "")).startswith(tname_full + "(")])
                return
            self.tree.commit()
            children: list[dict[str, Any]] = []
            threads = []
            lock = threading.Lock()
            for i, item in enumerate(items):
                vals, raw = item_scope(item)
                child_scope = scope.child(vals, raw=raw)
                label = f"{tname}({i}:{item_label(item)})"
                if not gate.enter():
                    break

                def work(label: str = label, child_scope: Scope = child_scope) -> None:
                    node = None
                    try:
                        node = self._run_child(task, f"{name}.{label}", label, group_id, nid, child_scope,
                                               call.tset, "tasks")
                        with lock:
                            children.append(node)
                    finally:
                        gate.leave(node)

                thread = threading.Thread(target=work, daemon=True)
                threads.append(thread)
                thread.start()
            for thread in threads:
                thread.join()
            bad = [c for c in children if c.get("phase") in (NodePhase.FAILED, NodePhase.ERROR)]
            phase = NodePhase.SUCCEEDED
            if bad:
                phase = NodePhase.ERROR if any(c.get("phase") == NodePhase.ERROR for c in bad) else NodePhase.FAILED
            group = self._finish_node(group_id, phase, f"child '{bad[0].get('name')}' failed" if bad else None)
            finish(tname, group, children)

        with cond:
            while True:
                progressed = False
                for tname in order:
                    if tname in states or tname in running or tname in never:
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
                            link(tname)
                            node = self._skip_node(f"{name}.{tname}", tname, nid, nid, NodePhase.OMITTED,
                                                   "omitted: depends condition not met", None)
                            self._register_outputs(f"tasks.{tname}", tasks[tname], [node], scope, call.tset)
                        finally:
                            cond.acquire()
                        states[tname] = graph.TaskState(phase=NodePhase.OMITTED)
                        progressed = True
                        continue
                    if stopped or self.cancelled.is_set() or gate.tripped.is_set():
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
        if unhandled:
            phase = NodePhase.ERROR if any(states[t].phase == NodePhase.ERROR for t in unhandled) else NodePhase.FAILED
            return {"phase": phase, "message": FAIL_FAST_MESSAGE if gate.tripped.is_set()
                    else f"task '{name}.{unhandled[0]}' failed"}
        if self.cancelled.is_set():
            return {"phase": NodePhase.FAILED, "message": self.abort_reason}
        with self.tree.lock:  # as Argo, only a Succeeded DAG gets outbound nodes: its target (or leaf) tasks'
            nodes = dict(self.tree.nodes)
        outbound = [o for t in targets for o in outbound_nodes(nodes, node_id(self.name, f"{name}.{t}"))]
        return {"phase": NodePhase.SUCCEEDED, "outputs": self._template_outputs(call, scope), "outboundNodes": outbound}


def _failed_unhandled(task: str, state: graph.TaskState, handled: set[str]) -> bool:
    """A failed task no dependant handles explicitly and without continueOn for its phase."""
    if state.phase == NodePhase.FAILED:
        return task not in handled and not state.continue_failed
    if state.phase == NodePhase.ERROR:
        return task not in handled and not state.continue_error
    return False


def _missing_as_omitted(tree: Any, states: Mapping[str, graph.TaskState]) -> dict[str, graph.TaskState]:
    """Tasks outside the DAG's target set count as Omitted in depends expressions."""
    return {d: graph.TaskState(phase=NodePhase.OMITTED) for d in graph.deps_of(tree) if d not in states}
