"""``aipipe deploy status|stop``: the local deployments the deploy step started (``--target local``).

The deploy step owns its records: these commands run ``python -m steps.deploy.manage`` and show
what it prints, so the platform imports no step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Annotated, Any

import typer
from rich.console import Console

from aipipe.cli.output import OutputOpt, emit_objects, output_format

MANAGE_MODULE = "steps.deploy.manage"
MANAGE_TIMEOUT_S = 120

deploy_app = typer.Typer(help="Local inference deployments (started by the deploy step).", no_args_is_help=True)
console = Console()


def _manage(*args: str) -> Any:
    """Run the deploy step's manage command; its error line and exit code become ours."""
    done = subprocess.run([sys.executable, "-m", MANAGE_MODULE, *args], capture_output=True, text=True,
                          timeout=MANAGE_TIMEOUT_S, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise typer.Exit(done.returncode)
    return json.loads(done.stdout)


@deploy_app.command("status")
def status(
    name: Annotated[str | None, typer.Argument(help="deployment name; all when omitted")] = None,
    output: OutputOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="the same as -o json")] = False,
) -> None:
    """Show each deployment's version, URL, process and readiness."""
    fmt = output_format("json" if as_json else output)
    rows: list[dict[str, Any]] = _manage("status", *([name] if name else []))
    if fmt and emit_objects(fmt, rows, lambda: [str(r["name"]) for r in rows]):
        return
    if not rows:
        console.print("no local deployments")
        return
    for row in rows:  # one line each, the URL never truncated
        state = "ready" if row["ready"] else "running, not ready" if row["alive"] else "stopped"
        console.print(f"{row['name']}  version {row['model_version']}  {state}  {row['url']}  "
                      f"(pid {row['pid']}, since {row['started_at']})", highlight=False, soft_wrap=True)


@deploy_app.command("stop")
def stop(name: Annotated[str, typer.Argument(help="deployment name (see `aipipe deploy status`)")]) -> None:
    """Stop a local deployment's server and forget it."""
    inst = _manage("stop", name)
    console.print(f"stopped {inst['name']} (version {inst['model_version']}, was {inst['url']})")


def register(app: typer.Typer) -> None:
    app.add_typer(deploy_app, name="deploy")
