"""Graph edges between nodes (``children``) as Argo's controller adds them.

A DAG node's children are its root tasks and a task's children are the tasks that depend on it,
linked from the task's outbound nodes; a step group leads on from the steps of the previous group; a
step's or task's hooks hang off that node. Everything else is a child of the node that started it.
"""

from __future__ import annotations

from aipipe.engine.nodes import NodeTree, node_id, outbound_nodes


class Edges:
    """Decides which nodes a new node joins as a child, and adds it there when it is created."""

    def __init__(self, workflow_name: str, tree: NodeTree) -> None:
        self.workflow_name = workflow_name
        self.tree = tree
        self._sources: dict[str, list[str]] = {}  # node id -> the nodes whose ``children`` it joins
        self._pending: dict[str, list[str]] = {}  # node id not created yet -> children waiting for it

    def from_node(self, name: str, owner: str) -> None:
        """The node ``name`` (a hook) will be a child of the node named ``owner``."""
        self._sources[node_id(self.workflow_name, name)] = [node_id(self.workflow_name, owner)]

    def after(self, name: str, sources: list[str], fallback: str) -> None:
        """The node ``name`` will follow the outbound nodes of ``sources`` (node ids; a source without any,
        e.g. a failed DAG, stands for itself), or be a child of ``fallback`` when there are no sources."""
        with self.tree.lock:
            nodes = dict(self.tree.nodes)
        ids = [o for sid in sources if sid in nodes for o in (outbound_nodes(nodes, sid) or [sid])]
        self._sources[node_id(self.workflow_name, name)] = list(dict.fromkeys(ids)) or [fallback]

    def link(self, nid: str, parent: str | None) -> None:
        """Add the edges into the node ``nid`` just created (or kept on resume): from the sources chosen
        for it, else from ``parent``. A source not created yet (a step whose hook fires as it starts)
        gets its edge when it is."""
        chosen: list[str | None] = [*self._sources.get(nid, [])]
        with self.tree.lock:
            for source in chosen or [parent]:
                if source is not None and self.tree.get(source) is None:
                    self._pending.setdefault(source, []).append(nid)
                else:
                    self.tree.add_child(source, nid)
            for child in self._pending.pop(nid, []):
                self.tree.add_child(nid, child)
