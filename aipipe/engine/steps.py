"""Steps templates: groups run one after another, the steps of a group (and loop children) in parallel."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from aipipe.engine.arguments import optional_inputs, render_arguments
from aipipe.engine.calls import Call, NodeFailure, TemplateSet
from aipipe.engine.edges import Edges
from aipipe.engine.expr import ExprError, evaluate_condition
from aipipe.engine.gate import FAIL_FAST_MESSAGE, ChildGate
from aipipe.engine.nodes import node_id, outbound_nodes
from aipipe.engine.phases import NodePhase, NodeType
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

EMPTY_LOOP = "Skipped, empty params"  # Argo's message on the node of an empty loop


class StepsMixin:
    """``_run_steps`` and what steps and DAG tasks share: when, loops, arguments, step-level hooks."""

    edges: Edges

    def _run_steps(self, call: Call, nid: str, name: str, scope: Scope) -> dict[str, Any]:
        tmpl = call.template
        gate = ChildGate(tmpl, scope, self.cancelled)
        scope = scope.child()
        groups = tmpl.get("steps") or []
        for gi, group in enumerate(groups):
            gname = f"{name}[{gi}]"
            if gi:  # Argo chains the groups: the previous group's steps (their outbound nodes) lead to this one
                prev = node_id(self.name, f"{name}[{gi - 1}]")
                self.edges.after(gname, self._group_members(prev) or [prev], nid)
            gid, kept = self._start_node(gname, f"[{gi}]", NodeType.STEP_GROUP, None, nid, nid)
            if kept is not None:
                for step in group:
                    self._register_kept(step, gname, scope, call.tset)
                continue
            self.tree.commit()
            results: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
            threads: list[threading.Thread] = []
            group_lock = threading.Lock()
            for step in group or []:
                self._launch_step(step, gname, gid, nid, scope, call.tset, gate, results, threads, group_lock)
            for thread in threads:
                thread.join()
            failed = [(s, n) for s, ns in results for n in ns if _unhandled(s, n)]
            for step, nodes in results:
                self._register_outputs(f"steps.{step['name']}", step, nodes, scope, call.tset)
            if failed or gate.tripped.is_set():
                message = f"child '{failed[0][1].get('name')}' failed" if failed else FAIL_FAST_MESSAGE
                self._finish_node(gid, NodePhase.FAILED, message)
                return {"phase": NodePhase.FAILED, "message": FAIL_FAST_MESSAGE if gate.tripped.is_set() else message}
            self._finish_node(gid, NodePhase.SUCCEEDED)
        outputs = self._template_outputs(call, scope)
        last = self._group_members(node_id(self.name, f"{name}[{len(groups) - 1}]")) if groups else []
        with self.tree.lock:  # as Argo, only a Succeeded steps node gets outbound nodes: its last group's
            tree_nodes = dict(self.tree.nodes)
        outbound = [o for child in last for o in outbound_nodes(tree_nodes, child)]
        return {"phase": NodePhase.SUCCEEDED, "outputs": outputs, "outboundNodes": outbound}

    def _group_members(self, gid: str) -> list[str]:
        """A step group's own children (its steps and their loop items), not the next group it leads to."""
        group = self.tree.get(gid) or {}
        prefix = f"{group.get('name', '')}."
        return [c for c in group.get("children", [])
                if str((self.tree.get(c) or {}).get("name", "")).startswith(prefix)]

    def _launch_step(self, step: dict[str, Any], gname: str, gid: str, boundary: str, scope: Scope,
                     tset: TemplateSet, gate: ChildGate, results: list, threads: list,
                     group_lock: threading.Lock) -> None:
        base = f"{gname}.{step['name']}"
        try:
            items = self._expand_items(step, scope, base)
        except NodeFailure as exc:
            node = self._fail_node(base, step["name"], gid, boundary, exc)
            results.append((step, [node]))
            return
        if items == []:  # as Argo: an empty loop is one Skipped node
            results.append((step, [self._skip_empty_loop(step, base, step["name"], gid, boundary, tset)]))
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
            if not gate.enter():
                return  # failFast: nothing more starts once a child failed

            def work(cname: str = cname, cdisplay: str = cdisplay, child_scope: Scope = child_scope) -> None:
                node = None
                try:
                    node = self._run_child(step, cname, cdisplay, gid, boundary, child_scope, tset, "steps")
                    with group_lock:
                        collected.append(node)
                finally:
                    gate.leave(node)

            thread = threading.Thread(target=work, daemon=True)
            threads.append(thread)
            thread.start()

    def _skip_empty_loop(self, step: Mapping[str, Any], name: str, display: str, parent: str, boundary: str,
                         tset: TemplateSet) -> dict[str, Any]:
        """The node of a step or task whose withItems/withParam/withSequence has no items."""
        try:
            call: Call | None = self._resolve_call(step, tset)
        except NodeFailure:
            call = None
        return self._skip_node(name, display, parent, boundary, NodePhase.SKIPPED, EMPTY_LOOP, call)

    def _run_child(self, step: dict[str, Any], name: str, display: str, parent: str, boundary: str, scope: Scope,
                   tset: TemplateSet, prefix: str) -> dict[str, Any]:
        """One step or task; an unexpected engine fault fails this node (with its cause), not the whole run."""
        try:
            return self._run_child_unguarded(step, name, display, parent, boundary, scope, tset, prefix)
        except Exception as exc:  # a bug must not leave the node Running and its parent waiting
            return self._fail_node(name, display, parent, boundary, NodeFailure(f"engine error: {exc!r}"))

    def _run_child_unguarded(self, step: dict[str, Any], name: str, display: str, parent: str, boundary: str,
                             scope: Scope, tset: TemplateSet, prefix: str) -> dict[str, Any]:
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
                    return self._skip_node(name, display, parent, boundary, NodePhase.SKIPPED,
                                           f"when '{rendered}' evaluated false", call)
            except TemplateError as exc:
                return self._fail_node(name, display, parent, boundary, NodeFailure(str(exc), terminal=exc.absent),
                                       call)
            except ExprError as exc:
                return self._fail_node(name, display, parent, boundary,
                                       NodeFailure(f"{display}.when: invalid condition: {exc}"), call)
        try:
            call.arguments = render_arguments(step.get("arguments") or {}, scope, display, optional_inputs(call))
        except NodeFailure as exc:
            return self._fail_node(name, display, parent, boundary, exc, call)
        hooks = step.get("hooks") or {}
        if step.get("onExit"):
            hooks = {**hooks, "exit": {"template": step["onExit"]}}
        if hooks and len(hooks) > (1 if "exit" in hooks else 0):
            hook_scope = scope.child({f"{prefix}.{step['name']}.status": NodePhase.RUNNING.value})
            self._fire_hooks(hooks, hook_scope, name, parent)
        node = self.execute(call, name, display, parent, boundary, scope)
        if hooks:
            after = scope.child()
            self._register_outputs(f"{prefix}.{step['name']}", step, [node], after, tset)
            self._fire_hooks(hooks, after, name, parent)
            if hooks.get("exit"):
                self._run_step_exit(hooks["exit"], name, display, parent, boundary, after, tset)
        return node

    def _run_step_exit(self, hook: Mapping[str, Any], owner: str, display: str, parent: str, boundary: str,
                       scope: Scope, tset: TemplateSet) -> None:
        name = f"{owner}.onExit"
        self.edges.from_node(name, owner)  # as Argo: a child of its step
        try:
            call = self._resolve_call(hook, tset)
            call.arguments = render_arguments(hook.get("arguments") or {}, scope, f"{display}.onExit",
                                              optional_inputs(call))
        except NodeFailure as exc:
            self._fail_node(name, f"{display}.onExit", parent, boundary, exc)
            return
        self.execute(call, name, f"{display}.onExit", parent, boundary, scope)

    def _expand_items(self, step: Mapping[str, Any], scope: Scope, where: str) -> list[Any] | None:
        """A step's or task's loop items (None without a loop); a loop that would pass engine.max_nodes is refused."""
        items = self._loop_items(step, scope, where)
        if items is not None:
            self._reserve_nodes(len(items))
        return items

    def _loop_items(self, step: Mapping[str, Any], scope: Scope, where: str) -> list[Any] | None:
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

    def _register_kept(self, step: Mapping[str, Any], gname: str, scope: Scope, tset: TemplateSet) -> None:
        base = f"{gname}.{step['name']}"
        group = self.tree.get(node_id(self.name, gname)) or {}
        nodes = [n for n in (self.tree.get(c) for c in group.get("children", []))
                 if n and (n.get("name") == base or str(n.get("name", "")).startswith(base + "("))]
        self._register_outputs(f"steps.{step['name']}", step, nodes, scope, tset)


def _unhandled(step: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    phase = node.get("phase")
    cont = step.get("continueOn") or {}
    if phase == NodePhase.FAILED:
        return not cont.get("failed")
    if phase == NodePhase.ERROR:
        return not cont.get("error")
    return False


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
