"""The ``aipipe`` command: a thin typer app over the library.

Each area of the CLI lives in its own module with ``register(app)``; errors that are the
user's (``UserError``) print one line and exit 2, unreachable services exit 3, no traceback.
"""

from __future__ import annotations

import importlib
import sys

import click
import typer
from rich.console import Console

from aipipe.errors import AipipeError

AREAS = (
    "aipipe.cli.build",  # compile, lint, submit, templates apply, cron apply
    "aipipe.cli.runs",  # run, list, get, logs, stop, retry, resubmit, templates list, server
    "aipipe.cli.deploy",  # deploy status|stop
    "aipipe.cli.demo",  # the quick start's main job
)

app = typer.Typer(
    name="aipipe",
    help="AI pipeline orchestrator on Argo Workflows (Hera pipelines, embedded Argo-compatible engine).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err_console = Console(stderr=True, soft_wrap=True)  # one error line, never wrapped


def _register_areas() -> None:
    for module_name in AREAS:
        importlib.import_module(module_name).register(app)


def main() -> None:
    """Console-script entry point."""
    _register_areas()
    try:
        code = app(standalone_mode=False)
    except AipipeError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(int(exc.exit_code))
    except click.exceptions.Abort:
        err_console.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
