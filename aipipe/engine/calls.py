"""Shared pieces of the executor: a template invocation, node failures, parallelism slots, small helpers."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeGuard

from aipipe.engine.manifest import TemplateHead
from aipipe.engine.nodes import iso_epoch
from aipipe.engine.phases import NodePhase

USER_STOP = "terminated by user"
STEP_DEADLINE = "Step exceeded its deadline"


class NodeFailure(Exception):
    """A node ends before running anything (bad input, absent optional output…); ``controller``: the error is
    the controller's (see ``Runtime.controller_errors``)."""

    def __init__(self, message: str, phase: str = NodePhase.ERROR, terminal: bool = False,
                 controller: bool = False) -> None:
        super().__init__(message)
        self.phase = phase
        self.terminal = terminal
        self.controller = controller


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

    @cached_property
    def head(self) -> TemplateHead:
        """The template's kind, retries, locks and fan-out settings."""
        return TemplateHead.of(self.template)


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def int_or_none(text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise NodeFailure(f"parallelism must be an integer, got {text!r}") from exc


def loop_index(name: str) -> int:
    start = name.rfind("(")
    try:
        return int(name[start + 1:].split(":", 1)[0])
    except ValueError:
        return 0


def node_duration(node: Mapping[str, Any]) -> float:
    """Seconds from a node's stored start to its end (0 when either is missing)."""
    start, end = iso_epoch(node.get("startedAt")), iso_epoch(node.get("finishedAt"))
    return end - start if start is not None and end is not None else 0.0


# The patch merge key of the lists Kubernetes' types merge by something other than ``name``
_MERGE_KEYS = {"volumeMounts": "mountPath", "volumeDevices": "devicePath", "ports": "containerPort"}


def strategic_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on ``base`` as Argo's strategic merge patches (JoinWorkflowSpec, templateDefaults' MergeTo): objects
    join field by field, lists of items keyed by their merge key (``name``: env, volumes, DAG tasks…; ``mountPath``
    for volumeMounts) join item by item, anything else is ``over``'s. Neither input is changed."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        under = out.get(key)
        merge_key = _MERGE_KEYS.get(key, "name")
        if isinstance(under, Mapping) and isinstance(value, Mapping):
            out[key] = strategic_merge(under, value)
        elif _keyed_list(under, merge_key) and _keyed_list(value, merge_key):
            items = {item[merge_key]: item for item in under}
            for item in value:
                items[item[merge_key]] = strategic_merge(items.get(item[merge_key], {}), item)
            out[key] = list(items.values())
        else:
            out[key] = copy.deepcopy(value)
    return out


def _keyed_list(value: Any, merge_key: str) -> TypeGuard[list[Mapping[str, Any]]]:
    """A non-empty list of objects that each have a different ``merge_key``."""
    if not isinstance(value, list) or not value or not all(isinstance(i, Mapping) for i in value):
        return False
    keys = [i.get(merge_key) for i in value]
    return all(k not in (None, "") for k in keys) and len(set(map(str, keys))) == len(keys)
