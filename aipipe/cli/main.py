"""The ``aipipe`` command: a thin typer app over the library.

Each area of the CLI lives in its own module with ``register(app)``; errors that are the
user's (``UserError``) print one line and exit 2, unreachable services exit 3, no traceback.
"""

from __future__ import annotations

import importlib
import sqlite3
import sys

import typer
from rich.console import Console
from rich.markup import escape
from typer._click import exceptions as click_errors  # typer 0.29 ships its own click (pinned in pyproject)

from aipipe.errors import AipipeError

AREAS = (
    "aipipe.cli.build",  # compile, lint, submit, templates apply, cron apply
    "aipipe.cli.runs",  # run, list, get, logs, stop, retry, resubmit, templates list, server
    "aipipe.cli.deploy",  # deploy status|stop
    "aipipe.cli.demo",  # the quick start's main job
    "aipipe.cli.triggers",  # triggers apply|register-label-studio|watch, cron list|get|suspend|resume
    "aipipe.cli.gpus",  # gpus: the machine's GPU pool
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
    run_app(app, "aipipe")


def run_app(typer_app: typer.Typer, prog_name: str) -> None:
    """Run a typer app the way ``aipipe`` runs: one error line and the contract's exit code, no traceback."""
    try:
        code = typer_app(standalone_mode=False, prog_name=prog_name)
    except AipipeError as exc:
        _fail(str(exc), int(exc.exit_code))
    except typer.Abort:
        _fail("aborted", 130)
    except click_errors.UsageError as exc:
        _fail(f"{exc.format_message()}{_help_hint(exc)}", 2)
    except click_errors.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (OSError, sqlite3.Error) as exc:  # the machine's state (a read-only home, a full disk): not a bug
        _fail(_os_message(exc), 1)
    sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, code: int) -> None:
    """One line on stderr, then exit ``code``."""
    err_console.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    sys.exit(code)


def _help_hint(exc: click_errors.UsageError) -> str:
    """`` (see `aipipe get --help`)`` for a usage error inside a command."""
    ctx = exc.ctx
    return f" (see `{ctx.command_path} --help`)" if ctx is not None else ""


def _os_message(exc: OSError | sqlite3.Error) -> str:
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


if __name__ == "__main__":
    main()
