"""Where a node sits in the run: one frozen value instead of four arguments passed along every call."""

from __future__ import annotations

from dataclasses import dataclass, field

from aipipe.engine.nodes import node_id


@dataclass(frozen=True)
class NodeRef:
    """A node of the workflow ``workflow``: its name (Argo's hierarchical name, from which its ``id`` derives),
    display name, parent node id and boundary node id.

    ``parent`` is the node that starts this one (a step group, a DAG, a retry node); ``boundary`` is the
    steps/DAG node whose template this node belongs to (Argo's ``boundaryID``; "" at the top); ``order`` is where
    Argo's walk of the run meets it (:data:`aipipe.engine.slots.WalkOrder`), which decides who gets a free slot.
    """

    workflow: str
    name: str
    display: str
    parent: str | None = None
    boundary: str = ""
    order: tuple[int, ...] = field(default=(), compare=False)
    id: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", node_id(self.workflow, self.name))

    def sibling(self, name: str, display: str) -> NodeRef:
        """A node with the same parent and boundary (a step's exit handler)."""
        return NodeRef(self.workflow, name, display, self.parent, self.boundary, self.order)

    def attempt(self, n: int) -> NodeRef:
        """Attempt ``n`` of this retry node: a child of it, in the same boundary."""
        return NodeRef(self.workflow, f"{self.name}({n})", f"{self.display}({n})", self.id, self.boundary,
                       (*self.order, n))

    def child(self, name: str, display: str, boundary: str | None = None, place: tuple[int, ...] = ()) -> NodeRef:
        """A node this one starts (``boundary`` defaults to this node's), ``place`` in this node's walk."""
        return NodeRef(self.workflow, name, display, self.id, self.boundary if boundary is None else boundary,
                       (*self.order, *place))
