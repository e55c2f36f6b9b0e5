"""A run's node graph as SVG, laid out by grandalf's Sugiyama layout.

Edges follow each node's ``children`` (Argo sets them so that the graph follows the dependencies), every
node is a box coloured by its phase with its name, phase, duration and progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grandalf.graphs import Edge, Graph, Vertex
from grandalf.layouts import SugiyamaLayout

from aipipe.server.page.render import duration_of, esc, format_duration, phase_badge, phase_colour

BOX_W, BOX_H = 168.0, 46.0
GAP_X, GAP_Y = 24.0, 44.0
MARGIN = 16.0
NAME_CHARS = 22
# grandalf's layout grows faster than linearly (200 nodes ~0.2 s, 1,000 ~9 s): bigger runs get a list
MAX_GRAPH_NODES = 300
MAX_LIST_ROWS = 1000


@dataclass
class _Box:
    """What grandalf places: a size in, a centre out."""

    w: float = BOX_W
    h: float = BOX_H
    xy: tuple[float, float] = (0.0, 0.0)


@dataclass
class _Route:
    """What grandalf routes: the points of one edge (centre to centre, through dummy vertices)."""

    points: list[tuple[float, float]] = field(default_factory=list)

    def setpath(self, points: list[tuple[float, float]]) -> None:
        self.points = [(float(x), float(y)) for x, y in points]


def edges_of(nodes: dict[str, Any]) -> list[tuple[str, str]]:
    """(parent, child) for every child id that names a node of the run."""
    return [(node_id, child) for node_id, node in nodes.items()
            for child in node.get("children") or [] if child in nodes]


def _layout(ids: list[str], pairs: list[tuple[str, str]]) -> tuple[dict[str, _Box], dict[tuple[str, str], _Route]]:
    vertices = {node_id: Vertex(node_id) for node_id in ids}
    for vertex in vertices.values():
        vertex.view = _Box()
    edges = []
    routes: dict[tuple[str, str], _Route] = {}
    for pair in pairs:
        edge = Edge(vertices[pair[0]], vertices[pair[1]])
        edge.view = routes.setdefault(pair, _Route())
        edges.append(edge)
    graph = Graph(list(vertices.values()), edges)
    offset = 0.0
    for component in graph.C:  # each connected component is laid out alone: place them side by side
        layout = SugiyamaLayout(component)
        layout.xspace, layout.yspace = GAP_X, GAP_Y
        layout.init_all()
        layout.draw()
        boxes = [v.view for v in component.sV]
        left = min(b.xy[0] - b.w / 2 for b in boxes)
        top = min(b.xy[1] - b.h / 2 for b in boxes)
        shift = (offset - left, -top)
        for box in boxes:
            box.xy = (box.xy[0] + shift[0], box.xy[1] + shift[1])
        for edge in component.sE:
            edge.view.points = [(x + shift[0], y + shift[1]) for x, y in edge.view.points]
        offset = max(b.xy[0] + b.w / 2 for b in boxes) + GAP_X * 2
    return {i: vertices[i].view for i in ids}, routes


def _edge_path(points: list[tuple[float, float]], src: _Box, dst: _Box) -> str:
    """From the bottom of ``src`` to the top of ``dst``, through the route's bends."""
    if len(points) < 2:
        points = [src.xy, dst.xy]
    inner = points[1:-1]
    if src.xy[1] <= dst.xy[1]:
        start, end = (src.xy[0], src.xy[1] + src.h / 2), (dst.xy[0], dst.xy[1] - dst.h / 2)
    else:  # an edge grandalf turned round to break a cycle
        start, end = (src.xy[0], src.xy[1] - src.h / 2), (dst.xy[0], dst.xy[1] + dst.h / 2)
    coords = [start, *inner, end]
    return "M" + " L".join(f"{x + MARGIN:.1f},{y + MARGIN:.1f}" for x, y in coords)


def _label(node: dict[str, Any], node_id: str) -> str:
    name = str(node.get("displayName") or node.get("name") or node_id)
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


def _detail(node: dict[str, Any]) -> str:
    parts = [str(node.get("phase") or "Pending"), format_duration(duration_of(node))]
    if node.get("progress"):
        parts.append(str(node["progress"]))
    return " · ".join(p for p in parts if p)


def render_svg(workflow: dict[str, Any]) -> str:
    """The SVG of ``workflow``'s nodes (an empty note when it has none yet)."""
    nodes: dict[str, Any] = (workflow.get("status") or {}).get("nodes") or {}
    if not nodes:
        return '<p class="muted">No nodes yet.</p>'
    ids = sorted(nodes, key=lambda i: (str(nodes[i].get("startedAt") or "~"), i))
    if len(ids) > MAX_GRAPH_NODES:
        return _node_list(nodes, ids)
    pairs = edges_of(nodes)
    boxes, routes = _layout(ids, pairs)
    width = max(b.xy[0] + b.w / 2 for b in boxes.values()) + 2 * MARGIN
    height = max(b.xy[1] + b.h / 2 for b in boxes.values()) + 2 * MARGIN
    out = [f'<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="node graph">'
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7b86"/></marker></defs>']
    for src, dst in pairs:
        path = _edge_path(routes[(src, dst)].points, boxes[src], boxes[dst])
        out.append(f'<path class="edge" data-from="{esc(src)}" data-to="{esc(dst)}" d="{path}" '
                   'marker-end="url(#arrow)"/>')
    for node_id in ids:
        node, box = nodes[node_id], boxes[node_id]
        x, y = box.xy[0] - box.w / 2 + MARGIN, box.xy[1] - box.h / 2 + MARGIN
        phase = str(node.get("phase") or "Pending")
        out.append(
            f'<g class="node" tabindex="0" data-node-id="{esc(node_id)}" data-phase="{esc(phase)}" '
            f'data-type="{esc(node.get("type") or "")}"><title>{esc(node.get("name") or node_id)}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.w:.0f}" height="{box.h:.0f}" rx="6" '
            f'fill="{phase_colour(phase)}"/>'
            f'<text class="name" x="{x + 10:.1f}" y="{y + 19:.1f}">{esc(_label(node, node_id))}</text>'
            f'<text class="detail" x="{x + 10:.1f}" y="{y + 36:.1f}">{esc(_detail(node))}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _node_list(nodes: dict[str, Any], ids: list[str]) -> str:
    """A run too big to draw: its nodes as rows, unfinished and failed ones first, at most MAX_LIST_ROWS."""
    first = sorted(ids, key=lambda i: nodes[i].get("phase") == "Succeeded")  # stable: start order within
    rows = []
    for node_id in first[:MAX_LIST_ROWS]:
        node = nodes[node_id]
        phase = str(node.get("phase") or "Pending")
        rows.append(f'<tr class="node" tabindex="0" data-node-id="{esc(node_id)}" data-phase="{esc(phase)}">'
                    f'<td>{esc(_label(node, node_id))}</td><td>{phase_badge(phase)}</td>'
                    f'<td>{esc(_detail(node))}</td></tr>')
    more = len(ids) - MAX_LIST_ROWS
    return (f'<p class="muted">{len(ids)} nodes: too many to draw, listed instead.</p>'
            '<table class="node-list"><thead><tr><th>node</th><th>phase</th><th></th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>"
            + (f'<p class="muted">and {more} more (succeeded) nodes</p>' if more > 0 else ""))
