"""What steps and DAG tasks share: loop items, ``when``, arguments, step-level hooks and exit handlers."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aipipe.engine.arguments import render_arguments
from aipipe.engine.calls import Call, NodeFailure, TemplateSet
from aipipe.engine.control import TERMINATE
from aipipe.engine.expr import ExprError, evaluate, should_execute
from aipipe.engine.items import parse_param_items
from aipipe.engine.lintrules import ITEM_TAG, text_without
from aipipe.engine.manifest import LOOP_KEYS, Loop, StepSpec
from aipipe.engine.noderef import NodeRef
from aipipe.engine.nodes import node_id
from aipipe.engine.outputs import Outputs
from aipipe.engine.phases import DONE_PHASES, NodePhase, NodeType
from aipipe.engine.runtime import NodeRecord, Runtime
from aipipe.engine.template import ABSENT, Scope, TemplateError, exact_reference, render, render_deep

EMPTY_LOOP = "Skipped, empty params"  # Argo's message on the node of an empty loop
HOOK_INFIX = ".hooks."  # a hook's node is named <its owner's node name>.hooks.<the hook's name>

Invoke = Callable[[Call, NodeRef, Scope], NodeRecord]  # runs one template invocation to its final node record


class ChildRunner:
    """Runs the children of steps and dag templates (and hooks) through ``invoke``."""

    def __init__(self, rt: Runtime, outputs: Outputs, invoke: Invoke) -> None:
        self.rt = rt
        self.outputs = outputs
        self.invoke = invoke
        self.hook_threads: list[threading.Thread] = []
        self.fired: set[str] = set()  # the hook nodes this driver fired (under the tree's lock)
        # step or task node id -> why its exit hook's expression could not be evaluated: Argo's runOnExitNode
        # returns that error, which errors the step group or the DAG instead of creating the hook's node
        self.hook_errors: dict[str, str] = {}
        # a step's or task's lifecycle hook whose expression cannot be evaluated: owner node id -> why
        self.lifecycle_errors: dict[str, str] = {}

    def hook_error(self, nodes: Iterable[NodeRecord]) -> str | None:
        """The first of ``nodes`` whose exit hook's expression could not be evaluated: why (None: none)."""
        return next((self.hook_errors[n["id"]] for n in nodes if n.get("id") in self.hook_errors), None)

    def lifecycle_error(self, nodes: Iterable[NodeRecord]) -> str | None:
        """The first of ``nodes`` whose lifecycle hook's expression could not be evaluated: why (None: none)."""
        return next((self.lifecycle_errors[n["id"]] for n in nodes if n.get("id") in self.lifecycle_errors), None)

    def skip_empty_loop(self, step: StepSpec, ref: NodeRef, tset: TemplateSet) -> NodeRecord:
        """The node of a step or task whose withItems/withParam/withSequence has no items."""
        try:
            call: Call | None = self.rt.resolve_call(step.source, tset)
        except NodeFailure:
            call = None
        return self.rt.skip_node(ref, NodePhase.SKIPPED, EMPTY_LOOP, call)

    def run(self, step: StepSpec, ref: NodeRef, scope: Scope, tset: TemplateSet, prefix: str,
            stops: Callable[[NodeRecord], bool] | None = None) -> NodeRecord:
        """One step or task; an unexpected engine fault fails this node (with its cause), not the whole run.
        ``stops``: whether the node's end stops its template's walk before its hooks (the template's failFast)."""
        try:
            return self._run_unguarded(step, ref, scope, tset, prefix, stops)
        except Exception as exc:  # a bug must not leave the node Running and its parent waiting
            return self.rt.fail_node(ref, NodeFailure(f"engine error: {exc!r}"))

    def _run_unguarded(self, step: StepSpec, ref: NodeRef, scope: Scope, tset: TemplateSet,
                       prefix: str, stops: Callable[[NodeRecord], bool] | None) -> NodeRecord:
        """One step or task (after loop expansion): when, arguments, the template, its exit/expression hooks."""
        scope = self.rt.with_global_outputs(scope)  # what earlier nodes published as workflow.outputs.*
        try:
            call = self.rt.resolve_call(step.source, tset, scope)
        except NodeFailure as exc:
            return self.rt.fail_node(ref, exc)
        if step.when is not None:
            try:
                rendered = render(step.when, scope, f"{ref.display}.when", lenient=True)
            except TemplateError as exc:
                return self.rt.fail_node(ref, NodeFailure(str(exc), terminal=exc.absent), call)
            try:
                proceed = should_execute(rendered)
            except ExprError as exc:  # as Argo's shouldExecute: a Skipped-type node that ends Error
                return self.rt.skip_node(ref, NodePhase.ERROR, str(exc), call)
            if not proceed:
                return self.rt.skip_node(ref, NodePhase.SKIPPED, f"when '{rendered}' evaluated false", call)
        try:
            call.arguments = render_arguments(step.arguments, scope, ref.display)
        except NodeFailure as exc:
            return self.rt.fail_node(ref, exc, call)
        if step.expression_hooks:
            hook_scope = scope.child({f"{prefix}.{step.name}.status": NodePhase.RUNNING.value})
            self.fire_hooks(step.hooks, hook_scope, ref.name, ref.parent, ref.boundary)
        node = self.invoke(call, ref, scope)
        if step.hooks and not (stops is not None and stops(node)):
            after = scope.child()
            self.outputs.register(f"{prefix}.{step.name}", step, [node], after, tset)
            # a step's hook expressions read its status, not its outputs: Argo's executeStepGroup evaluates them
            # before the group's outputs join the scope (argo-workflows#11273); the hooks' arguments read both
            judged_by = None if prefix == "tasks" else scope.child(
                {f"{prefix}.{step.name}.status": str(node.get("phase", ""))})
            self.fire_hooks(step.hooks, after, ref.name, ref.parent, ref.boundary, judged_by)
            if step.hooks.get("exit"):
                self._run_exit(step.hooks["exit"], ref, after, tset)
        return node

    def _run_exit(self, hook: Mapping[str, Any], owner: NodeRef, scope: Scope, tset: TemplateSet) -> None:
        """A step's or task's exit handler: a child of that node (as in Argo), in its parent's boundary; with an
        ``expression`` (read with the node's final status in scope), only when that holds."""
        if self.rt.shutdown == TERMINATE:  # Argo's runOnExitNode: a terminated run starts no exit handler
            return
        ref = owner.sibling(f"{owner.name}.onExit", f"{owner.display}.onExit")
        if hook.get("expression"):
            try:
                if evaluate(str(hook["expression"]), scope.env()) is not True:
                    return
            except ExprError as exc:
                self.hook_errors[owner.id] = f"{ref.display}: expression {hook['expression']!r}: {exc}"
                return
        self.rt.edges.from_node(ref.name, owner.name)
        self.rt.exit_nodes.add(ref.id)  # a Stop still runs it (and what it calls)
        try:
            call = self.rt.resolve_call(hook, tset)
            call.arguments = render_arguments(hook.get("arguments") or {}, scope, ref.display)
        except NodeFailure as exc:
            self.rt.fail_node(ref, exc)
            return
        self.invoke(call, ref, scope)

    def fire_hooks(self, hooks: Mapping[str, Any], scope: Scope, owner_name: str, parent: str | None,
                   boundary: str = "", judged_by: Scope | None = None) -> None:
        """Start each expression hook whose expression is true now (each fires at most once); ``boundary`` is
        the id of the steps/DAG node a step's or task's hook belongs to ("" for the workflow's hooks). The
        expressions read ``judged_by`` when given, the hooks' arguments ``scope``."""
        rt = self.rt
        env = (judged_by or scope).env()
        if boundary:  # a step's or task's hook is judged before operate() sets workflow.status (argo-workflows#11269)
            env = {**env, "workflow": {k: v for k, v in (env.get("workflow") or {}).items() if k != "status"}}
        for hook_name, hook in hooks.items():
            if hook_name == "exit" or not hook.get("expression"):
                continue
            name = f"{owner_name}.hooks.{hook_name}"
            ref = rt.ref(name, self._hook_display(name, boundary), parent)
            if self._fired(ref):
                continue
            try:
                fire = evaluate(str(hook["expression"]), env) is True
            except ExprError as exc:  # Argo's executeTmplLifeCycleHook returns it: the step group or DAG errs
                if boundary:
                    self.lifecycle_errors.setdefault(node_id(rt.name, owner_name), str(exc))
                fire = False
            if not fire:
                continue
            with rt.tree.lock:
                if self._fired(ref):
                    continue
                self.fired.add(ref.id)
                rt.tree.put(ref.id, id=ref.id, name=ref.name, displayName=ref.display, type=NodeType.POD,
                            phase=NodePhase.PENDING)
                if parent is not None:  # as Argo, a step's or task's hook hangs off that node
                    rt.edges.from_node(ref.name, owner_name)
            self._start_hook(self._hook_call, hook, ref, scope)

    def rerun_unfinished_hooks(self) -> None:
        """Run again each hook node an earlier driver started and left unfinished, from what its node records (its
        template and inputs): the walk may never reach its owner again (a step group or DAG that had ended), and
        the hook had fired, so its expression is not asked again. One that never started (Pending, nothing
        recorded) fires again when the walk reaches its owner."""
        rt = self.rt
        with rt.tree.lock:
            left = [(owner, dict(n)) for n in rt.tree.nodes.values()
                    if (owner := _hook_owner(str(n.get("name", ""))))
                    and n.get("phase") in (NodePhase.PENDING, NodePhase.RUNNING)
                    and _started(n) and n.get("id") not in self.fired and n.get("id") not in rt.owned]
        for owner, record in left:
            owner_id = node_id(rt.name, owner)
            if owner != rt.name and rt.tree.get(owner_id) is None:
                continue  # not a hook: a step or task that happens to be named so
            ref = rt.ref(str(record["name"]), str(record.get("displayName", record["name"])),
                         None if owner == rt.name else owner_id)
            with rt.tree.lock:
                self.fired.add(ref.id)
            scope = rt.workflow_scope()
            if owner == rt.name:  # the run's own hook fired while it ran: it read workflow.status then
                scope.set("workflow.status", rt.body_phase or NodePhase.RUNNING.value)
            self._start_hook(self._stored_hook_call, record, ref, scope)

    def _start_hook(self, make_call: Callable[[Mapping[str, Any], NodeRef, Scope], Call], source: Mapping[str, Any],
                    ref: NodeRef, scope: Scope) -> None:
        thread = threading.Thread(target=self._run_hook, args=(make_call, source, ref, scope), daemon=True)
        self.hook_threads.append(thread)
        thread.start()

    def _fired(self, ref: NodeRef) -> bool:
        """Whether the hook of ``ref`` has fired: this driver fired it, or the store has it ended. One an earlier
        driver fired and left unfinished fires again (its node is reopened as the same node), and so does one
        that ended without starting (its call could not be made): it errs again, and a workflow's hook ends the
        run again, as it did in the driver that fired it first."""
        with self.rt.tree.lock:
            node = self.rt.tree.nodes.get(ref.id)
            if node is None:
                return False
            never_started = not _started(node) and node.get("phase") == NodePhase.ERROR
            return ref.id in self.fired or (node.get("phase") in DONE_PHASES and not never_started)

    def _hook_display(self, name: str, boundary: str) -> str:
        """A hook node's display name as Argo's initializeNode derives it: the name without its boundary node's
        name and a leading ``[n].`` or ``.`` (``step-1.hooks.running``); workflow-level hooks keep their name."""
        owner = (self.rt.tree.get(boundary) or {}).get("name") if boundary else None
        if not owner or not name.startswith(str(owner)):
            return name
        return re.sub(r"^(\[\d+\])?\.", "", name[len(str(owner)):]) or name

    def _hook_call(self, hook: Mapping[str, Any], ref: NodeRef, scope: Scope) -> Call:
        """The call a hook makes: its template, with its arguments rendered in ``scope``."""
        args = render_arguments(hook.get("arguments") or {}, scope, ref.name)
        return self.rt.resolve_call({**hook, "arguments": args}, self.rt.root_tset())

    def _stored_hook_call(self, record: Mapping[str, Any], ref: NodeRef, scope: Scope) -> Call:
        """The call a hook's stored node records: its template (or templateRef) with its inputs as arguments."""
        target = {"templateRef": record["templateRef"]} if record.get("templateRef") else {
            "template": record["templateName"]}
        inputs = record["inputs"] or {}
        args = {key: inputs[key] for key in ("parameters", "artifacts") if inputs.get(key)}
        return self.rt.resolve_call({**target, "arguments": args}, self.rt.root_tset())

    def _run_hook(self, make_call: Callable[[Mapping[str, Any], NodeRef, Scope], Call], source: Mapping[str, Any],
                  ref: NodeRef, scope: Scope) -> None:
        try:
            call = make_call(source, ref, scope)
        except NodeFailure as exc:
            self.rt.fail_node(ref, exc)
            if ref.parent is None:  # Argo's operate: a workflow hook that cannot run errors the entry node
                self.rt.abort(str(exc), NodePhase.ERROR)
            return
        try:
            self.invoke(call, ref, scope)
        except Exception as exc:  # a fault must not leave the hook node Running in a finished run
            self.rt.fail_node(ref, NodeFailure(f"engine error: {exc!r}"))

    def expand_items(self, step: StepSpec, scope: Scope, where: str) -> list[Any] | None:
        """A step's or task's loop items (None without a loop); a loop that would pass engine.max_nodes is refused."""
        if step.loop is None:
            return None
        scope = self.rt.with_global_outputs(scope)
        try:
            items = _loop_items(step.loop, scope, where)
            _item_tags_resolve(step, items)
        except BadLoop:
            if _decided_false(step.when, scope):  # as Argo's expandStep/expandTask: a step that will not run
                return []
            raise
        self.rt.reserve_nodes(len(items))
        return items


def _hook_owner(name: str) -> str:
    """The owner's node name when ``name`` is a hook's own node (``<owner>.hooks.<hook>``), else "": the nodes
    below a hook (``<owner>.hooks.<hook>[0].step``, ``….<hook>.task``, ``….<hook>(0)``) run again with it."""
    owner, infix, hook = name.rpartition(HOOK_INFIX)
    return owner if infix and hook and not any(c in hook for c in ".[(") else ""


def _started(record: NodeRecord) -> bool:
    """Whether a hook's node got as far as its start: its template and inputs are recorded on it."""
    return "inputs" in record and bool(record.get("templateName") or record.get("templateRef"))


class BadLoop(NodeFailure):
    """A loop's withParam that is not a JSON list, or a withSequence that is not a range: as Argo's expandStep and
    expandTask, the step or task becomes a Skipped-type node ended Error with these words."""


def _item_tags_resolve(step: StepSpec, items: list[Any]) -> None:
    """Each ``{{item…}}`` tag of the step names what every item has: ``item``, and a map item's top-level keys
    (Argo's processItem substitutes the expanded step refusing unresolved tags, so ``{{item.a.b}}`` or a key one
    item lacks fails the expansion)."""
    tags = {t.strip() for t in ITEM_TAG.findall(text_without(step.source, ("inline", *LOOP_KEYS)))}
    for item in items:
        keys = {f"item.{k}" for k in item} if isinstance(item, Mapping) else set()
        missing = sorted(t for t in tags if t != "item" and t not in keys)
        if missing:
            raise BadLoop(f"failed to resolve {{{{{missing[0]}}}}}")


def _decided_false(when: str | None, scope: Scope) -> bool:
    """Whether a step's ``when`` (before its loop expands, so without item variables) is false."""
    try:
        return when is not None and not should_execute(render(when, scope, "when", lenient=True))
    except (TemplateError, ExprError):
        return False


def _loop_items(loop: Loop, scope: Scope, where: str) -> list[Any]:
    if loop.kind == "withItems":
        return [render_deep(i, scope, where) for i in loop.value or []]
    if loop.kind == "withParam":
        raw = str(loop.value)
        ref = exact_reference(raw)
        try:
            if ref is not None and scope.values.get(ref) is ABSENT:
                raise TemplateError(f"{where}.withParam: {raw} refers to an absent optional output", absent=True)
            text = render(raw, scope, f"{where}.withParam", lenient=True)  # resolveReferences leaves unresolved tags
        except TemplateError as exc:
            raise NodeFailure(str(exc), terminal=exc.absent) from exc
        try:
            items = parse_param_items(text)
        except json.JSONDecodeError as exc:
            raise BadLoop(f"withParam value could not be parsed as a JSON list: {text.strip()}: {exc}") from exc
        if not isinstance(items, list):
            raise BadLoop(f"withParam value could not be parsed as a JSON list: {text.strip()}: a JSON "
                          f"{type(items).__name__ if items is not None else 'null'}, not a list")
        return items
    return _sequence(loop.value, scope, where)


def _sequence(seq: Mapping[str, Any], scope: Scope, where: str) -> list[str]:
    try:
        rendered = {k: render(str(v), scope, f"{where}.withSequence.{k}") for k, v in seq.items()}
    except TemplateError as exc:
        raise NodeFailure(str(exc), terminal=exc.absent) from exc
    if "end" not in rendered and "count" not in rendered:  # Argo's expandSequence
        raise BadLoop("neither end nor count was specified in withSequence")
    try:
        start = int(rendered.get("start") or 0)
        if rendered.get("count") not in (None, ""):
            count = int(rendered["count"])
            numbers = list(range(start, start + count))
        else:
            end = int(rendered.get("end") or 0)
            numbers = list(range(start, end + 1)) if end >= start else list(range(start, end - 1, -1))
    except ValueError as exc:
        raise BadLoop(f"{where}.withSequence: start/end/count must be integers ({rendered})") from exc
    fmt = rendered.get("format")
    if fmt:
        try:
            return [fmt % n for n in numbers]  # Go's %d/%02d/%x verbs read the same in Python
        except (TypeError, ValueError) as exc:
            raise NodeFailure(f"{where}.withSequence.format: {exc}") from exc
    return [str(n) for n in numbers]
