"""The run page's graph stays cheap for big runs: past MAX_GRAPH_NODES the nodes are listed, not laid out."""

from __future__ import annotations

import time
from typing import Any

from aipipe.server.page.graph import MAX_GRAPH_NODES, MAX_LIST_ROWS, render_svg


def _fan_out(count: int) -> dict[str, Any]:
    nodes: dict[str, Any] = {"wf": {"name": "wf", "displayName": "wf", "phase": "Running", "type": "DAG",
                                    "children": [f"wf-{i}" for i in range(count)]}}
    for i in range(count):
        nodes[f"wf-{i}"] = {"name": f"wf.t{i}", "displayName": f"t{i}", "type": "Pod",
                            "phase": "Failed" if i == count - 1 else "Succeeded", "startedAt": f"2026-01-01T00:{i:05d}"}
    return {"metadata": {"name": "wf"}, "status": {"nodes": nodes}}


def test_a_run_within_the_limit_is_drawn_with_every_arrow() -> None:
    svg = render_svg(_fan_out(40))
    assert svg.startswith("<svg") and svg.count('class="edge"') == 40 and svg.count('class="node"') == 41


def test_a_huge_run_is_listed_fast_with_the_failed_node_first() -> None:
    started = time.perf_counter()
    html = render_svg(_fan_out(MAX_LIST_ROWS + 500))
    assert time.perf_counter() - started < 2.0  # the layout of 1,500 nodes would take tens of seconds here
    assert "<svg" not in html and f"{MAX_LIST_ROWS + 501} nodes: too many to draw" in html
    assert html.count('<tr class="node"') == MAX_LIST_ROWS and "and 501 more (succeeded) nodes" in html
    assert html.index('data-phase="Running"') < html.index('data-phase="Succeeded"')
    assert html.index('data-phase="Failed"') < html.index('data-phase="Succeeded"')
    assert MAX_GRAPH_NODES < MAX_LIST_ROWS
