"""Run control as Argo's server does it: suspend, resume, set a suspend node, stop and terminate.

Each action is a small dict (``{"action": "resume", "nodeFieldSelector": ...}``) applied by :func:`apply`
to a workflow's ``spec`` and node records. The service applies it to the stored run first (to refuse
bad requests with Argo's messages) and queues it in the run store; the run's driver applies the same
action to its live state, so ``aipipe server`` and ``aipipe run`` see the same semantics.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine.nodes import now_iso
from aipipe.engine.phases import NodePhase, NodeType
from aipipe.errors import UserError

SUSPEND, RESUME, SET, SHUTDOWN = "suspend", "resume", "set", "shutdown"
STOP, TERMINATE = "Stop", "Terminate"
SETTABLE_PHASES = (NodePhase.SUCCEEDED, NodePhase.FAILED, NodePhase.ERROR, "")
_FULFILLED = (NodePhase.SUCCEEDED, NodePhase.FAILED, NodePhase.ERROR, NodePhase.SKIPPED, NodePhase.OMITTED)


def shutdown_message(strategy: str) -> str:
    """The message Argo's controller gives the run and its running nodes on shutdown."""
    return f"Stopped with strategy '{strategy}'"


@dataclass
class Outcome:
    """What an action changed: the spec keys (None = remove) and whole node records."""

    spec: dict[str, Any] = field(default_factory=dict)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)


def parse_selector(text: str) -> list[tuple[str, bool, str]]:
    """A Kubernetes field selector (``key=value``, ``key==value``, ``key!=value``, comma-separated) as
    ``(key, negated, value)`` terms."""
    terms = []
    for raw in filter(None, (t.strip() for t in text.split(","))):
        negated = "!=" in raw
        key, sep, value = raw.partition("!=" if negated else ("==" if "==" in raw else "="))
        if not sep or not key.strip():
            raise UserError(f"invalid selector: {text!r}: expected key=value, key==value or key!=value",
                            field="nodeFieldSelector")
        terms.append((key.strip(), negated, value.strip()))
    return terms


def node_fields(node: dict[str, Any]) -> dict[str, str]:
    """The fields a node field selector can name (Argo's SelectorMatchesNode)."""
    fields = {"displayName": node.get("displayName", ""), "phase": node.get("phase", ""),
              "name": node.get("name", ""), "id": node.get("id", ""),
              "templateName": node.get("templateName") or (node.get("templateRef") or {}).get("template", "")}
    if node.get("templateRef"):
        fields["templateRef.name"] = node["templateRef"].get("name", "")
        fields["templateRef.template"] = node["templateRef"].get("template", "")
    for param in (node.get("inputs") or {}).get("parameters") or []:
        fields[f"inputs.parameters.{param.get('name')}.value"] = str(param.get("value", ""))
    return {k: str(v) for k, v in fields.items()}


def matches(node: dict[str, Any], terms: list[tuple[str, bool, str]]) -> bool:
    fields = node_fields(node)
    return all((fields.get(key, "") == value) != negated for key, negated, value in terms)


def active_suspend(node: dict[str, Any]) -> bool:
    return node.get("type") == NodeType.SUSPEND and node.get("phase") == NodePhase.RUNNING


def apply(action: dict[str, Any], spec: dict[str, Any], nodes: dict[str, dict[str, Any]],
          phase: str = NodePhase.RUNNING) -> Outcome:
    """The changes ``action`` makes to a run (``phase`` is the run's); UserError, in Argo's words, when refused."""
    kind = action.get("action")
    if kind == SUSPEND:
        if phase in (NodePhase.SUCCEEDED, NodePhase.FAILED, NodePhase.ERROR):
            raise UserError("cannot suspend completed workflows", field="name")
        return Outcome(spec={"suspend": True})
    if kind == RESUME:
        selector = str(action.get("nodeFieldSelector") or "")
        if selector:
            return _update_suspended(nodes, selector, NodePhase.SUCCEEDED.value, "", {})
        return Outcome(spec={"suspend": None}, nodes=_resume_all(nodes))
    if kind == SET:
        return _update_suspended(nodes, str(action.get("nodeFieldSelector") or ""), str(action.get("phase") or ""),
                                 str(action.get("message") or ""), action.get("outputParameters") or {})
    if kind == SHUTDOWN:
        selector = str(action.get("nodeFieldSelector") or "")
        if selector:  # Argo's stop of one suspend node
            return _update_suspended(nodes, selector, NodePhase.FAILED.value, str(action.get("message") or ""), {})
        return Outcome(spec={"shutdown": action["strategy"]})
    raise UserError(f"unknown control action {kind!r}", field="action")


def set_request(body: dict[str, Any]) -> dict[str, Any]:
    """A ``set`` action from a WorkflowSetRequest body, refusing what Argo's server refuses."""
    phase = str(body.get("phase") or "")
    if phase not in SETTABLE_PHASES:
        raise UserError(f"{phase} is an invalid phase to set to", field="phase")
    outputs: dict[str, str] = {}
    raw = body.get("outputParameters") or ""
    if raw:
        try:
            outputs = json.loads(raw)
        except (TypeError, json.JSONDecodeError) as exc:
            raise UserError(f"unable to parse output parameter set request: {exc}", field="outputParameters") from exc
        if not isinstance(outputs, dict) or not all(isinstance(v, str) for v in outputs.values()):
            raise UserError("unable to parse output parameter set request: expected a JSON object of strings",
                            field="outputParameters")
    return {"action": SET, "nodeFieldSelector": str(body.get("nodeFieldSelector") or ""), "phase": phase,
            "message": str(body.get("message") or ""), "outputParameters": outputs}


def _resume_all(nodes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    changed = {}
    for nid, node in nodes.items():
        if active_suspend(node):
            record = copy.deepcopy(node)
            for param in (record.get("outputs") or {}).get("parameters") or []:
                value_from = param.get("valueFrom") or {}
                if "supplied" in value_from:
                    if "default" not in value_from:
                        raise UserError(f"raw output parameter '{param['name']}' has not been set and does not "
                                        "have a default value", field="name")
                    param["value"] = str(value_from["default"])
                    param.pop("valueFrom")
            changed[nid] = {**record, "phase": NodePhase.SUCCEEDED.value, "finishedAt": now_iso()}
    return changed


def _update_suspended(nodes: dict[str, dict[str, Any]], selector: str, phase: str, message: str,
                      outputs: dict[str, str]) -> Outcome:
    if not selector:
        raise UserError("nodeFieldSelector cannot be empty", field="nodeFieldSelector")
    terms = parse_selector(selector)
    changed: dict[str, dict[str, Any]] = {}
    for nid, node in nodes.items():
        if not (active_suspend(node) and matches(node, terms)):
            continue
        record = copy.deepcopy(node)
        updated = False
        if phase:
            record["phase"] = phase
            if phase in _FULFILLED:
                record["finishedAt"] = now_iso()
            updated = True
        if message:
            record["message"] = message
            updated = True
        if outputs:
            params = (record.get("outputs") or {}).get("parameters")
            if not params:
                raise UserError("cannot set output parameters because node is not expecting any raw parameters",
                                field="outputParameters")
            for name, value in outputs.items():
                param = next((p for p in params if p.get("name") == name), None)
                if param is None:
                    raise UserError(f"node is not expecting output parameter '{name}'", field="outputParameters")
                if "supplied" not in (param.get("valueFrom") or {}):
                    raise UserError(f"cannot set output parameter '{name}' because it does not use valueFrom.raw or "
                                    "it was already set", field="outputParameters")
                param["value"] = value
                param.pop("valueFrom")
            updated = True
        if updated:
            changed[nid] = record
    if not changed:
        raise UserError("currently, set only targets suspend nodes: no suspend nodes matching nodeFieldSelector: "
                        f"{selector}", field="nodeFieldSelector")
    return Outcome(nodes=changed)


def apply_to_workflow(action: dict[str, Any], workflow: dict[str, Any]) -> dict[str, Any]:
    """A copy of a stored run with ``action`` applied (no driver involved)."""
    out = copy.deepcopy(workflow)
    status = out.setdefault("status", {})
    outcome = apply(action, out.setdefault("spec", {}), status.get("nodes") or {},
                    status.get("phase", NodePhase.RUNNING))
    for key, value in outcome.spec.items():
        if value is None:
            out["spec"].pop(key, None)
        else:
            out["spec"][key] = value
    if outcome.nodes:
        status["nodes"] = {**(status.get("nodes") or {}), **outcome.nodes}
    return out
