"""``aipipe demo``: the quick start's main job (see :mod:`aipipe.demo`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from aipipe.config import load_config

console = Console(soft_wrap=True)


def demo(
    images: Annotated[int, typer.Option(help="labelled images in the seeded Label Studio project")] = 120,
    epochs: Annotated[int, typer.Option(help="training epochs")] = 30,
) -> None:
    """Run the retrain loop on the embedded defaults; exit 0 only when the endpoint answers."""
    from aipipe.cli.runs import drive_foreground
    from aipipe.demo import run_demo

    cfg = load_config()
    result = run_demo(cfg, images=images, epochs=epochs, log=console.print,
                      drive=drive_foreground)
    if result.phase != "Succeeded":
        console.print(f"[red]run {result.run_name} ended {result.phase}[/red]: see `aipipe get {result.run_name}`")
        raise typer.Exit(1)
    top = result.prediction.get("predictions", [])[:3]
    answer = ", ".join(f"{p['class']} ({p['probability']:.2f})" for p in top)
    console.print(f"[green]run {result.run_name} Succeeded[/green]; the model serves at {result.endpoint}")
    console.print(f"prediction for a sample digit: {answer} (model version {result.prediction.get('model_version')})")
    console.print(f"stop it with `aipipe deploy stop {cfg.get('mlflow.model_name')}`")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
