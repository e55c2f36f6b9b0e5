"""CPU time of processes and process trees, read from ``/proc`` (Linux): what the benchmarks charge to a
server and to its load generator over a measured window."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


def _stat(pid: int | str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of user + system so far) of one process from /proc (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu_s(pids: Sequence[int]) -> float:
    """CPU seconds (user + system) used so far by ``pids`` themselves (every thread, no children)."""
    return sum(stat[1] for stat in map(_stat, pids) if stat is not None)


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its live descendants (from /proc)."""
    stats = {int(entry.name): _stat(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()}
    parents = {p: stat[0] for p, stat in stats.items() if stat is not None}
    times = {p: stat[1] for p, stat in stats.items() if stat is not None}
    tree, frontier = {pid}, [pid]
    while frontier:
        current = frontier.pop()
        for child, parent in parents.items():
            if parent == current and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(times.get(p, 0.0) for p in tree)
