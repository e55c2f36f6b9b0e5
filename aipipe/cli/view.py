"""How a run looks in the terminal: the node tree, each node's progress and latest line, transitions.

Progress: a Pod node shows what its step reported through ``ARGO_PROGRESS_FILE`` (train's steps,
export's images); the run and every DAG/steps node show finished pods / pods below them, computed
from the same nodes, so the header and the root row always agree. A node's *note* is the last line
its step wrote (secret values are already masked in the store): the reason a step is waiting or failed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.text import Text
from rich.tree import Tree

from aipipe.engine.names import pod_name
from aipipe.engine.nodes import owned_nodes

PHASE_STYLE = {
    "Succeeded": ("✔", "green"), "Failed": ("✖", "red"), "Error": ("⚠", "red"), "Running": ("●", "cyan"),
    "Pending": ("◷", "yellow"), "Skipped": ("○", "dim"), "Omitted": ("○", "dim"),
}
FINISHED = frozenset({"Succeeded", "Failed", "Error", "Skipped", "Omitted"})
NOTE_CHARS = 160  # a note longer than this is cut (one line on the screen)
_GROUP_TYPES = {"StepGroup", "TaskGroup"}

Nodes = Mapping[str, Mapping[str, Any]]


def _time(stamp: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None


def duration(item: Mapping[str, Any]) -> str:
    """``1m02s`` between startedAt and finishedAt (or now while running); "" before the start."""
    start = _time(item.get("startedAt"))
    if start is None:
        return ""
    end = _time(item.get("finishedAt")) or dt.datetime.now(dt.UTC)
    seconds = max(0, int((end - start).total_seconds()))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def age(seconds: int) -> str:
    """``3d``, ``2h``, ``5m`` or ``40s``."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def phase_text(phase: str) -> Text:
    symbol, style = PHASE_STYLE.get(phase, ("?", "white"))
    return Text(f"{symbol} {phase or 'Pending'}", style=style)


def pods_progress(nodes: Nodes, root: str | None = None) -> str:
    """``finished/total`` over the Pod nodes ``root`` contains (every Pod node of the run when None)."""
    ids = set(nodes) if root is None else set(owned_nodes(nodes, root))
    pods = [nodes[i] for i in ids if nodes[i].get("type") == "Pod"]
    return f"{sum(p.get('phase') in FINISHED for p in pods)}/{len(pods)}"


def node_progress(nodes: Nodes, node_id: str) -> str:
    """What the node's progress column shows: a pod's own report (N/M with M > 1), else pods below it."""
    node = nodes[node_id]
    if node.get("type") == "Pod":
        done, _, total = str(node.get("progress") or "").partition("/")
        reported = done.isdigit() and total.isdigit() and int(total) > 1
        return f"{done}/{total}" if reported else ""
    progress = pods_progress(nodes, node_id)
    return "" if progress.endswith("/0") else progress


def note_of(text: str) -> str:
    """The last non-empty line of ``text``, cut to one screen line ("" when there is none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= NOTE_CHARS else last[: NOTE_CHARS - 1] + "…"


def note_for(nodes: Nodes, notes: Mapping[str, str], node_id: str) -> str:
    """A pod's own note; a retry node's is its latest attempt's (the reason it is retrying or failed)."""
    node = nodes[node_id]
    if node.get("type") == "Retry" and node.get("children"):
        return notes.get(node["children"][-1], "")
    return notes.get(node_id, "") if node.get("type") == "Pod" else ""


def node_label(nodes: Nodes, node_id: str, note: str = "", pod: str = "") -> Text:
    """One node's line: symbol, name, template, duration, progress, message and the step's latest line."""
    node = nodes[node_id]
    phase = node.get("phase", "")
    symbol, style = PHASE_STYLE.get(phase, ("◷", "yellow"))
    label = Text(f"{symbol} ", style=style)
    label.append(node.get("displayName") or node.get("name", "?"), style="bold")
    template = node.get("templateName") or (node.get("templateRef") or {}).get("template")
    if template:
        label.append(f" ({template})", style="dim")
    extras = [x for x in (duration(node), node_progress(nodes, node_id)) if x]
    if extras:
        label.append("  " + "  ".join(extras))
    if pod:
        label.append(f"  {pod}", style="dim")
    message = node.get("message") if phase not in ("Succeeded", "Running") else ""
    if message:
        label.append(f"  {message}", style=style)
    if note and phase not in ("Succeeded", "Skipped", "Omitted"):
        label.append(f"  {note}", style=style if message else "dim")
    return label


def root_id(workflow: Mapping[str, Any]) -> str | None:
    nodes = workflow.get("status", {}).get("nodes", {})
    name = workflow.get("metadata", {}).get("name")
    return name if name in nodes else next(iter(nodes), None)


def render_workflow(workflow: Mapping[str, Any], notes: Mapping[str, str] | None = None,
                    wide: bool = False) -> Group:
    """Header lines and the node tree (step/task groups folded into their parents); ``wide`` adds pod names."""
    meta, status = workflow.get("metadata", {}), workflow.get("status", {})
    nodes: Nodes = status.get("nodes", {})
    header = Text.assemble(("Name:     ", "bold"), meta.get("name", "?"), "\n", ("Status:   ", "bold"),
                           phase_text(status.get("phase", "")), "\n", ("Duration: ", "bold"), duration(status))
    if nodes:
        header.append_text(Text.assemble("\n", ("Progress: ", "bold"), pods_progress(nodes)))
    if status.get("message"):
        header.append_text(Text.assemble("\n", ("Message:  ", "bold"), status["message"]))
    top = root_id(workflow)
    if top is None:
        return Group(header)
    names = _pod_names(workflow) if wide else {}
    tree = Tree(node_label(nodes, top, note_for(nodes, notes or {}, top), names.get(top, "")))
    _add_children(tree, nodes, top, _containers(nodes), notes or {}, names)
    return Group(header, Text(""), tree)


def _pod_names(workflow: Mapping[str, Any]) -> dict[str, str]:
    name = workflow["metadata"]["name"]
    nodes = workflow.get("status", {}).get("nodes", {})
    return {nid: pod_name(name, n.get("name", nid), n.get("templateName", ""))
            for nid, n in nodes.items() if n.get("type") == "Pod"}


def _containers(nodes: Nodes) -> dict[str, list[str]]:
    """Each node's directly contained nodes, in run order. Containment comes from Argo's hierarchical node
    names (``wf.task``, ``wf.task(0)``, ``wf[0].step``); ``children`` are dependency edges, not containment."""
    by_name = {str(node.get("name", nid)): nid for nid, node in nodes.items()}
    contained: dict[str, list[str]] = {}
    for nid, node in nodes.items():
        name = str(node.get("name", nid))
        cut = max((i for i, c in enumerate(name) if c in ".([" and i > 0), default=0)
        while cut > 0 and name[:cut] not in by_name:
            cut = max((i for i, c in enumerate(name[:cut]) if c in ".([" and i > 0), default=0)
        if cut > 0:
            contained.setdefault(by_name[name[:cut]], []).append(nid)
    return contained


def _add_children(branch: Tree, nodes: Nodes, node_id: str, contained: Mapping[str, list[str]],
                  notes: Mapping[str, str], names: Mapping[str, str]) -> None:
    for child_id in contained.get(node_id, []):
        child = nodes[child_id]
        if child.get("type") in _GROUP_TYPES:
            _add_children(branch, nodes, child_id, contained, notes, names)
        else:
            label = node_label(nodes, child_id, note_for(nodes, notes, child_id), names.get(child_id, ""))
            _add_children(branch.add(label), nodes, child_id, contained, notes, names)


def transitions(before: Nodes, after: Nodes, skip: str | None = None) -> list[str]:
    """Node ids (but ``skip``) whose phase changed between two states of a run (new nodes included),
    in the order they changed."""
    changed = [nid for nid, node in after.items() if nid != skip and node.get("type") not in _GROUP_TYPES
               and node.get("phase") != before.get(nid, {}).get("phase")]
    return sorted(changed, key=lambda nid: str(after[nid].get("finishedAt") or after[nid].get("startedAt") or "~"))


def transition_line(nodes: Nodes, node_id: str, note: str = "") -> str:
    """``12:03:04 train: Succeeded 1m02s 360/360`` (plain text, for a log without a terminal)."""
    node = nodes[node_id]
    phase = node.get("phase") or "Pending"
    parts = [dt.datetime.now().strftime("%H:%M:%S"), f"{node.get('displayName') or node.get('name', '?')}:", phase]
    parts += [x for x in (duration(node) if phase in FINISHED else "", node_progress(nodes, node_id)) if x]
    if node.get("message") and phase not in ("Succeeded", "Running"):
        parts.append(f"({node['message']})")
    if note and phase in ("Failed", "Error"):
        parts.append(f"- {note}")
    return " ".join(parts)
