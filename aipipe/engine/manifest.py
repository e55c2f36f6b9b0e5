"""Typed, read-only views of the manifest parts the orchestration core reads: a step or DAG task (Argo's
``WorkflowStep`` / ``DAGTask``), the body of a steps or dag template, what is read of any template around its
kind's handler (its kind, retries, locks, its children's parallelism), and the run's spec as the driver reads it.

Own frozen dataclasses rather than Hera's generated models: those are mutable pydantic mirrors of Argo's Go
structs that wrap what they read (a loop's items become ``Item(root=...)``, counts ``IntOrString``), so every
reader would unwrap them again, and they parse a whole template (its container spec included) where the core
reads a dozen fields of a manifest already validated against the CRD. A view is built from the manifest's dict
once per invocation (a few µs for a step, about what Hera's parse of it costs); it keeps that dict as
``source`` for the parts handed on as written (the template reference to resolve, ``depends``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aipipe.engine.phases import FAILED_PHASES, NodePhase, NodeType

LOOP_KEYS = ("withItems", "withParam", "withSequence")
TEMPLATE_KINDS = ("container", "script", "steps", "dag", "suspend", "resource", "http", "data", "containerSet",
                  "plugin")
LEAF_KINDS = ("container", "script")


def kind_of(template: Mapping[str, Any]) -> str:
    """The template's kind: the first of :data:`TEMPLATE_KINDS` it sets ("unknown" for none)."""
    return next((k for k in TEMPLATE_KINDS if template.get(k) is not None), "unknown")


@dataclass(frozen=True)
class TemplateHead:
    """What is read of a template around its kind's handler: its kind, ``retryStrategy`` and
    ``synchronization``, ``daemon``, and for a steps or dag template its children's ``parallelism`` (as written:
    rendered in the invocation's scope) and the template-level ``failFast`` (default false)."""

    kind: str
    retry_strategy: Mapping[str, Any] | None
    synchronization: Mapping[str, Any] | None
    daemon: bool
    parallelism: str
    fail_fast: bool

    @classmethod
    def of(cls, template: Mapping[str, Any]) -> TemplateHead:
        return cls(kind=kind_of(template), retry_strategy=template.get("retryStrategy"),
                   synchronization=template.get("synchronization") or None,
                   daemon=template.get("daemon") in (True, "true"), parallelism=str(template.get("parallelism") or ""),
                   fail_fast=template.get("failFast") in (True, "true"))

    @property
    def node_type(self) -> NodeType:
        """The type of the node an invocation of the template gets."""
        return {"steps": NodeType.STEPS, "dag": NodeType.DAG, "suspend": NodeType.SUSPEND,
                "http": NodeType.HTTP}.get(self.kind, NodeType.POD)


@dataclass(frozen=True)
class ContinueOn:
    """``continueOn``: a failed or errored node that does not fail its steps/DAG parent."""

    failed: bool = False
    error: bool = False

    def covers(self, phase: str | None) -> bool:
        """Whether a node ending in ``phase`` is let through."""
        return (phase == NodePhase.FAILED and self.failed) or (phase == NodePhase.ERROR and self.error)

    def fails_parent(self, phase: str | None) -> bool:
        """Whether a node ending in ``phase`` fails its steps/DAG parent: a failure not let through."""
        return phase in FAILED_PHASES and not self.covers(phase)


@dataclass(frozen=True)
class Loop:
    """A step's loop: ``kind`` is one of :data:`LOOP_KEYS`, ``value`` its field as written."""

    kind: str
    value: Any


@dataclass(frozen=True)
class StepSpec:
    """One step of a steps template or one task of a dag template."""

    name: str
    source: Mapping[str, Any]  # the step as written (template, templateRef or inline; depends/dependencies)
    when: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    loop: Loop | None = None
    continue_on: ContinueOn = ContinueOn()
    hooks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # ``onExit`` is the "exit" hook

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> StepSpec:
        cont = raw.get("continueOn") or {}
        hooks = dict(raw.get("hooks") or {})
        if raw.get("onExit"):
            hooks["exit"] = {"template": raw["onExit"]}
        loop = next((Loop(k, raw[k]) for k in LOOP_KEYS if k in raw), None)
        when = raw.get("when")
        return cls(name=str(raw.get("name", "")), source=raw, when=None if when in (None, "") else str(when),
                   arguments=raw.get("arguments") or {}, loop=loop,
                   continue_on=ContinueOn(bool(cont.get("failed")), bool(cont.get("error"))), hooks=hooks)

    @property
    def expression_hooks(self) -> dict[str, Mapping[str, Any]]:
        """The hooks other than ``exit`` (those fire on their expression)."""
        return {k: v for k, v in self.hooks.items() if k != "exit"}


@dataclass(frozen=True)
class StepsBody:
    """A steps template's groups, run one after another."""

    groups: Sequence[Sequence[StepSpec]]

    @classmethod
    def of(cls, template: Mapping[str, Any]) -> StepsBody:
        return cls([[StepSpec.of(s) for s in group or []] for group in template.get("steps") or []])


@dataclass(frozen=True)
class DagBody:
    """A dag template's tasks (in the template's order) and its ``target`` as written. Its ``failFast`` needs no
    field: Argo's assessDAGPhase applies it only to targets not yet created when everything created has ended,
    and the embedded scheduler creates every task it can before it decides (see :mod:`aipipe.engine.dag`)."""

    tasks: Mapping[str, StepSpec]
    target: str

    @classmethod
    def of(cls, template: Mapping[str, Any]) -> DagBody:
        dag = template.get("dag") or {}
        return cls({t["name"]: StepSpec.of(t) for t in dag.get("tasks") or []}, str(dag.get("target") or ""))


@dataclass(frozen=True)
class RunSpec:
    """What the driver reads of a Workflow's (resolved) ``spec``: the entrypoint, the exit handler (``onExit``,
    else the ``exit`` hook) and the other workflow-level hooks, and the run-wide limits as written."""

    entrypoint: str
    exit_handler: Mapping[str, Any] | None  # what the exit handler calls: {"template": …} or {"templateRef": …}
    exit_arguments: Mapping[str, Any]
    hooks: Mapping[str, Mapping[str, Any]]  # the expression hooks (not ``exit``)
    parallelism: int | None
    priority: int
    active_deadline: Any  # ``activeDeadlineSeconds`` as written (None: none)
    synchronization: Mapping[str, Any] | None
    volumes: list[dict[str, Any]]  # ``volumes``, and each ``volumeClaimTemplates`` entry by its name
    security_context: Mapping[str, Any] | None

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> RunSpec:
        hooks = spec.get("hooks") or {}
        exit_hook = hooks.get("exit") or {}
        deadline = spec.get("activeDeadlineSeconds")
        target = {"template": spec["onExit"]} if spec.get("onExit") else {
            k: exit_hook[k] for k in ("template", "templateRef") if exit_hook.get(k)}
        return cls(entrypoint=str(spec["entrypoint"]), exit_handler=target or None,
                   # as Argo's GetExitHook: the exit hook's own arguments, else the workflow's
                   exit_arguments=exit_hook.get("arguments") or spec.get("arguments") or {},
                   hooks={k: v for k, v in hooks.items() if k != "exit"},
                   parallelism=int(spec.get("parallelism") or 0) or None, priority=int(spec.get("priority") or 0),
                   active_deadline=None if deadline in (None, "") else deadline,
                   synchronization=spec.get("synchronization") or None,
                   volumes=[*(spec.get("volumes") or []), *({"name": (c.get("metadata") or {}).get("name")}
                                                            for c in spec.get("volumeClaimTemplates") or [])],
                   security_context=spec.get("securityContext"))


def is_dynamic_ref(tref: Mapping[str, Any]) -> bool:
    """Whether a templateRef names its WorkflowTemplate or template with a tag (``{{item.x}}``): Argo resolves it
    when the step runs, not at submit."""
    return any("{{" in str(tref.get(k) or "") for k in ("name", "template"))
