"""``aipipe demo``: the quick start's main job, which lives in ``pipelines/demo.py`` (it needs the pipeline and
the steps, which the platform never imports); this command runs ``python -m pipelines.demo`` with its arguments."""

from __future__ import annotations

import subprocess
import sys

import typer

DEMO_MODULE = "pipelines.demo"


def demo(ctx: typer.Context) -> None:
    """Run the retrain loop on the embedded defaults; exit 0 only when the endpoint answers (`aipipe demo --help`)."""
    raise typer.Exit(subprocess.call([sys.executable, "-m", DEMO_MODULE, *ctx.args]))


def register(app: typer.Typer) -> None:
    app.command("demo", add_help_option=False,
                context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(demo)
