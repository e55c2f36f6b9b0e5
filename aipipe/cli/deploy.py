"""``aipipe deploy status|stop``: the local deployments the deploy step started (``--target local``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from aipipe.cli.output import OutputOpt, emit_objects, output_format
from aipipe.config import load_config

if TYPE_CHECKING:
    from steps.deploy.local import LocalDeployments

deploy_app = typer.Typer(help="Local inference deployments (started by the deploy step).", no_args_is_help=True)
console = Console()


def _deployments() -> LocalDeployments:
    from steps.deploy.local import LocalDeployments  # lazy: keeps `aipipe --help` fast

    return LocalDeployments(load_config().home)


@deploy_app.command("status")
def status(
    name: Annotated[str | None, typer.Argument(help="deployment name; all when omitted")] = None,
    output: OutputOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="the same as -o json")] = False,
) -> None:
    """Show each deployment's version, URL, process and readiness."""
    fmt = output_format("json" if as_json else output)
    deployments = _deployments()
    rows = [deployments.status(n) for n in ([name] if name else deployments.names())]
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
    inst = _deployments().stop(name)
    console.print(f"stopped {inst.name} (version {inst.model_version}, was {inst.url})")


def register(app: typer.Typer) -> None:
    app.add_typer(deploy_app, name="deploy")
