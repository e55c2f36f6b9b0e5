"""Steps templates: groups run one after another, the steps of a group (and loop children) in parallel."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from aipipe.engine import settle
from aipipe.engine.calls import Call, NodeFailure, TemplateSet
from aipipe.engine.children import BadLoop, ChildRunner
from aipipe.engine.expr import ExprError, should_execute
from aipipe.engine.gate import FAIL_FAST_MESSAGE, ChildGate
from aipipe.engine.handler import NodeResult
from aipipe.engine.items import item_label, item_scope
from aipipe.engine.itemstart import holds_a_slot, slot_first_pool, start_feeder, start_item
from aipipe.engine.manifest import StepsBody, StepSpec
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import node_id, outbound_nodes
from aipipe.engine.phases import FAILED_PHASES, NOT_RUN, NodePhase, NodeType
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.template import ABSENT, Scope, TemplateError, exact_reference, render, resolve_nested

StepResults = list[tuple[StepSpec, list[NodeRecord]]]  # each step of a group with its nodes


class StepsHandler:
    """Runs a steps template's groups; a group ends when all its steps (and their loop items) have."""

    def __init__(self, rt: Runtime, children: ChildRunner) -> None:
        self.rt = rt
        self.children = children

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        scope = scope.child()
        groups = StepsBody.of(resolve_nested(call.template, scope)).groups
        ended = self._run_groups(call, node, scope, groups)
        if ended is not None and ended["phase"] == NodePhase.ERROR:  # an exit hook's error: Argo returns at once
            return ended
        # Argo's executeSteps sets the outbound nodes (the last group's) before it fails the node or reads the
        # template's outputs, so a DAG's dependants of a failed steps task hang under them too
        outbound = self._outbound(node, len(groups))
        if ended is not None:
            return {**ended, "outboundNodes": outbound}
        try:
            outputs = self.children.outputs.of_template(call, scope)
        except NodeFailure as exc:
            return {"phase": exc.phase, "message": str(exc), "terminal": exc.terminal,
                    "controller_error": exc.controller, "outboundNodes": outbound}
        return {"phase": NodePhase.SUCCEEDED, "outputs": outputs, "outboundNodes": outbound}

    def _outbound(self, node: NodeRef, count: int) -> list[str]:
        """The outbound nodes of the steps node: its last created group's steps' (Argo's updateOutboundNodes)."""
        rt = self.rt
        for gi in range(count - 1, -1, -1):
            gid = node_id(rt.name, f"{node.name}[{gi}]")
            if rt.tree.get(gid) is not None:
                with rt.tree.lock:
                    tree_nodes = dict(rt.tree.nodes)
                return [o for child in self._group_members(gid) for o in outbound_nodes(tree_nodes, child)]
        return []

    def _run_groups(self, call: Call, node: NodeRef, scope: Scope,
                    groups: Sequence[Sequence[StepSpec]]) -> NodeResult | None:
        """Run the groups in order; how the steps node ended when a group did not succeed (None: all did)."""
        rt = self.rt
        gate = ChildGate(call.head, scope)
        for gi, group in enumerate(groups):
            gref = node.child(f"{node.name}[{gi}]", f"[{gi}]", boundary=node.id, place=(gi,))
            if gi:  # Argo chains the groups: the previous group's steps (their outbound nodes) lead to this one
                prev = node_id(rt.name, f"{node.name}[{gi - 1}]")
                rt.edges.after(gref.name, self._group_members(prev) or [prev], node.id)
            gid, kept = rt.start_node(gref, NodeType.STEP_GROUP, None)
            if kept is not None and kept.get("phase") in FAILED_PHASES:  # an earlier driver ended it so: as Argo's
                return {"phase": NodePhase.FAILED, "message": kept.get("message")}  # executeSteps, the steps fail
            if kept is not None:
                for step in group:
                    self._register_kept(step, gref, scope, call.tset)
                self._restart_daemons(group, gref, scope, call.tset, gate)
                continue
            rt.tree.commit()
            message = self._unresolved_reference(group, scope)
            if message is not None:  # Argo's resolveReferences: the group errs before any of its steps starts
                rt.finish_node(gid, NodePhase.ERROR, message)
                return {"phase": NodePhase.FAILED, "message": message}
            results: StepResults = []
            threads: list[threading.Thread] = []
            group_lock = threading.Lock()
            on_done = self._sibling_hooks(group, gref, scope, group_lock)
            for si, step in enumerate(group):
                if self._launch_step(step, si, gref, scope, call.tset, gate, results, threads, group_lock, on_done):
                    break  # as Argo's executeStepGroup: a loop item whose when errs ends the group's launches
            if any(thread.is_alive() for thread in threads):
                settle.settled()  # the group waits for its steps: Argo's walk moves on
            for thread in threads:
                thread.join()
            failed = [(s, n) for s, ns in results for n in ns if s.continue_on.fails_parent(n.get("phase"))]
            for step, nodes in results:
                self.children.outputs.register(f"steps.{step.name}", step, nodes, scope, call.tset)
            lifecycle_error = self.children.lifecycle_error(n for _, ns in results for n in ns)
            if lifecycle_error is not None:  # Argo's executeStepGroup: a hook it cannot evaluate errs the group
                rt.finish_node(gid, NodePhase.ERROR, lifecycle_error)
                return {"phase": NodePhase.FAILED, "message": lifecycle_error}
            hook_error = self.children.hook_error(n for _, ns in results for n in ns)
            if hook_error is not None:  # Argo's executeSteps: the group errors, and the steps template with it
                rt.finish_node(gid, NodePhase.ERROR, hook_error)
                return {"phase": NodePhase.ERROR, "message": hook_error}
            errored = self._controller_error(group, [(s, n) for s, ns in results for n in ns])
            if errored is not None:  # Argo's executeStepGroup errs the group with it, before continueOn is read
                rt.finish_node(gid, NodePhase.ERROR, errored)
                return {"phase": NodePhase.FAILED, "message": errored}
            if failed or gate.tripped.is_set():
                message = f"child '{failed[0][1].get('name')}' failed" if failed else FAIL_FAST_MESSAGE
                rt.finish_node(gid, NodePhase.FAILED, message)
                return {"phase": NodePhase.FAILED, "message": FAIL_FAST_MESSAGE if gate.tripped.is_set() else message}
            rt.finish_node(gid, NodePhase.SUCCEEDED)
        return None

    def _unresolved_reference(self, group: Sequence[StepSpec], scope: Scope) -> str | None:
        """Argo's resolveReferences over the group's unlooped steps, in order (a loop's are judged per item, once
        expanded): the message of the first ``when`` govaluate cannot evaluate, or, for a step that will run, of the
        first artifact argument whose ``from`` names no artifact (a producer that did not make a non-optional one, or
        was skipped) and that is not itself ``optional``. A tag that cannot be resolved is the step's own failure."""
        scope = self.rt.with_global_outputs(scope)
        for step in group:
            if step.loop is not None:
                continue
            if step.when is not None:
                try:
                    if not should_execute(render(step.when, scope, f"{step.name}.when", lenient=True)):
                        continue
                except TemplateError:
                    pass
                except ExprError as exc:
                    return f"Failed to resolve references: {exc}"
            for art in step.arguments.get("artifacts") or []:
                ref = exact_reference(str(art.get("from") or ""))
                if ref is not None and not art.get("optional") and ref.startswith("steps.") and \
                        scope.artifacts.get(ref) in (None, ABSENT):
                    return f"unable to resolve references: Unable to resolve: {json.dumps(ref)}"
        return None

    def _controller_error(self, group: Sequence[StepSpec], failed: list[tuple[StepSpec, NodeRecord]]) -> str | None:
        """The group's message when a failed child's error was the controller's (the first such child in the
        group's order): a ``when`` it could not evaluate or a loop it could not expand (a Skipped-type node ended
        Error) gives that error as it is, as Argo's executeStepGroup errs the group with it; a template it could not
        execute gives "step group deemed errored due to child <name> error: <its error>"; else None."""
        order = {id(step): i for i, step in enumerate(group)}
        errored = [(order.get(id(step), len(group)), node) for step, node in failed
                   if node.get("id") in self.rt.controller_errors or _not_started_by_the_controller(node)]
        if not errored:
            return None
        _, node = min(errored, key=lambda pair: pair[0])
        if _not_started_by_the_controller(node):
            return str(node.get("message", ""))
        return f"step group deemed errored due to child {node.get('name')} error: {node.get('message', '')}"

    def _group_members(self, gid: str) -> list[str]:
        """A step group's own children (its steps and their loop items), not the next group it leads to."""
        group = self.rt.tree.get(gid) or {}
        prefix = f"{group.get('name', '')}."
        return [c for c in group.get("children", [])
                if str((self.rt.tree.get(c) or {}).get("name", "")).startswith(prefix)]

    def _sibling_hooks(self, group: Sequence[StepSpec], gref: NodeRef, scope: Scope,
                       group_lock: threading.Lock) -> Callable[[StepSpec, NodeRecord], None]:
        """What runs as each step of a group ends: as Argo re-reads a group's hooks on every pass with every
        sibling's status in scope, the expression hooks of the group's (unlooped) steps are tried again, except a
        skipped step's."""
        hooked = [s for s in group if s.expression_hooks and s.loop is None]
        statuses: dict[str, str] = {}

        def on_done(step: StepSpec, node: NodeRecord) -> None:
            if not hooked:
                return
            with group_lock:
                statuses[step.name] = str(node.get("phase", ""))
                known = dict(statuses)
            hook_scope = scope.child({f"steps.{s.name}.status": known.get(s.name, NodePhase.RUNNING.value)
                                      for s in group})
            for sibling in hooked:
                if known.get(sibling.name) in NOT_RUN:  # a step its when skipped never ran: no hooks
                    continue
                owner = gref.child(f"{gref.name}.{sibling.name}", sibling.name, boundary=gref.boundary)
                self.children.fire_hooks(sibling.hooks, hook_scope, owner.name, owner.parent, owner.boundary)
        return on_done

    def _restart_daemons(self, group: Sequence[StepSpec], gref: NodeRef, scope: Scope, tset: TemplateSet,
                         gate: ChildGate) -> None:
        """A group that had ended when an earlier driver died is kept, but the daemons it left serving died with
        that driver: each runs again (as the same node) and the groups after it wait until it is ready again, as
        they waited the first time."""
        kept = self.rt.tree.get(gref.id) or {}
        serving = {str(left["name"]): str(left["id"]) for left in map(self.rt.tree.get, kept.get("children", []))
                   if left is not None and left.get("daemoned") and left.get("phase") == NodePhase.RUNNING
                   and left.get("id") not in self.rt.owned}
        results: StepResults = []
        threads: list[threading.Thread] = []
        lock = threading.Lock()
        for si, step in enumerate(group):
            base = f"{gref.name}.{step.name}"
            if any(name == base or name.startswith(base + "(") for name in serving):
                self._launch_step(step, si, gref, scope, tset, gate, results, threads, lock, lambda _s, _n: None,
                                  only=lambda ref: ref.id in serving.values())
        for thread in threads:
            thread.join()

    def _launch_step(self, step: StepSpec, index: int, group: NodeRef, scope: Scope, tset: TemplateSet, gate: ChildGate,
                     results: StepResults, threads: list[threading.Thread], group_lock: threading.Lock,
                     on_done: Callable[[StepSpec, NodeRecord], None],
                     only: Callable[[NodeRef], bool] | None = None) -> bool:
        """Start the group's step ``index`` (each loop item in a thread of its own), adding its nodes to ``results``;
        with ``only``, just the nodes it holds for. True when a loop item's ``when`` cannot be evaluated: Argo
        creates that item's Error node and no node after it in the group."""
        base = group.child(f"{group.name}.{step.name}", step.name, boundary=group.boundary, place=(index,))
        try:
            items = self.children.expand_items(step, scope, base.name)
        except BadLoop as exc:  # Argo's expandStep: a Skipped-type node ended Error, whose group errs with it
            results.append((step, [self.rt.skip_node(base, NodePhase.ERROR, str(exc), None)]))
            return False
        except NodeFailure as exc:
            results.append((step, [self.rt.fail_node(base, exc)]))
            return False
        if items == [] and only is None:  # as Argo: an empty loop is one Skipped node
            results.append((step, [self.children.skip_empty_loop(step, base, tset)]))
            return False
        collected: list[NodeRecord] = []
        results.append((step, collected))
        targets: list[tuple[NodeRef, Scope]] = [(base, scope)] if items is None else [
            (group.child(f"{base.name}({i}:{item_label(it)})", f"{step.name}({i}:{item_label(it)})",
                         boundary=group.boundary, place=(index, i)), _item_child(scope, it))
            for i, it in enumerate(items)]
        pool = slot_first_pool(self.rt, step, scope, tset) if items is not None and only is None else None
        holds = holds_a_slot(self.rt, step, scope, tset, gate.slots)

        def launch(started: list[threading.Thread]) -> bool:
            for ref, child_scope in targets:
                if only is not None and not only(ref):
                    continue
                if not gate.enter(ref.order, holds):
                    return False  # failFast: nothing more starts once a child failed
                halt = items is not None and only is None and _when_errs(step.when, child_scope)

                def work(ref: NodeRef = ref, child_scope: Scope = child_scope) -> None:
                    node = None
                    try:
                        node = self.children.run(step, ref, child_scope, tset, "steps", gate.stops_at)
                        with group_lock:
                            collected.append(node)
                        if not gate.stops_at(node):
                            on_done(step, node)
                    finally:
                        gate.leave(node, holds)

                started.append(start_item(self.rt, work, ref.order, pool))
                if halt:
                    return True
            return False

        if pool is None:
            return launch(threads)
        # the group's later steps must not wait while this loop's items wait for slots: a feeder starts them
        threads.append(start_feeder(launch, self.rt.walk_in_order()))
        return False

    def _register_kept(self, step: StepSpec, group: NodeRef, scope: Scope, tset: TemplateSet) -> None:
        """On resume, a kept group's steps still give their outputs to the groups after it."""
        base = f"{group.name}.{step.name}"
        kept = self.rt.tree.get(group.id) or {}
        nodes = [n for n in (self.rt.tree.get(c) for c in kept.get("children", []))
                 if n and (n.get("name") == base or str(n.get("name", "")).startswith(base + "("))]
        self.children.outputs.register(f"steps.{step.name}", step, nodes, scope, tset)


def _when_errs(when: str | None, scope: Scope) -> bool:
    """Whether a loop item's ``when`` renders but cannot be evaluated (govaluate refuses it)."""
    if when is None:
        return False
    try:
        should_execute(render(when, scope, "when", lenient=True))
    except ExprError:
        return True
    except TemplateError:
        return False
    return False


def _item_child(scope: Scope, item: Any) -> Scope:
    values, raw = item_scope(item)
    return scope.child(values, raw=raw)


def _not_started_by_the_controller(node: NodeRecord) -> bool:
    """A step whose ``when`` could not be evaluated or whose loop could not be expanded: Argo's Skipped-type node in
    the Error phase."""
    return node.get("type") == NodeType.SKIPPED and node.get("phase") == NodePhase.ERROR
