"""``aipipe gpus``: the machine's GPU pool, as every engine process on it shares it (grants, leases, queue)."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from aipipe.cli.output import OutputOpt, emit_objects, output_format
from aipipe.config import load_config
from aipipe.engine.context import pool_policy
from aipipe.engine.gpu import detect_inventory
from aipipe.engine.gpupool import pool_report

console = Console()


def _gpu_table(report: dict[str, Any]) -> Table:
    sharing = report["sharing"]
    kept = f"shared through MPS at {sharing['pipe']}" if sharing["mode"] == "mps" else "time-sliced (no MPS daemon)"
    table = Table(title=f"GPUs ({report['inventorySource']}; {kept})")
    for column in ("GPU", "MODEL", "MEMORY MiB", "GRANTED MiB", "FREE MiB", "FREE COMPUTE %", "LEASES"):
        table.add_column(column)
    for gpu in report["gpus"]:
        leases = "\n".join(f"{lease['run']} {lease['node']} ({lease['share']}, priority {lease['priority']}"
                           + (", preemptible" if lease["preemptible"] else "")
                           + (", preempting" if lease["preempting"] else "") + ")" for lease in gpu["leases"])
        table.add_row(str(gpu["index"]), gpu["name"], str(gpu["memoryMiB"] or "?"),
                      "whole" if gpu["wholeGranted"] else str(gpu["grantedMiB"]), str(gpu["freeMiB"]),
                      str(gpu["freeCores"]), leases or "-")
    return table


def _queue_table(report: dict[str, Any]) -> Table:
    table = Table(title="Queue")
    for column in ("POSITION", "PRIORITY", "AGED", "RUN", "NODE", "REQUEST"):
        table.add_column(column)
    for waiter in report["queue"]:
        table.add_row(str(waiter["position"]), str(waiter["priority"]), str(waiter["effectivePriority"]),
                      waiter["run"], waiter["node"], waiter["request"])
    return table


def gpus(output: OutputOpt = None) -> None:
    """Each GPU of this machine: memory, what is granted and to whom; the nodes waiting for a GPU."""
    fmt = output_format(output)
    home = load_config().home
    report = pool_report(home, detect_inventory(home), pool_policy()[0])
    if fmt in ("json", "yaml", "name") and emit_objects(fmt, report, lambda: [str(g["index"]) for g in report["gpus"]]):
        return
    console.print(_gpu_table(report))
    if report["queue"]:
        console.print(_queue_table(report))
    elif not report["gpus"]:
        console.print("no GPU found (nvidia-ml-py, nvidia-smi) and nothing queued")


def register(app: typer.Typer) -> None:
    app.command("gpus")(gpus)
