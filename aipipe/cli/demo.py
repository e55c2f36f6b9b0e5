"""``aipipe demo``: the quick start's main job (see :mod:`aipipe.demo`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from aipipe.cli.preflight import check_writable
from aipipe.config import load_config
from aipipe.demo import DEMO_EPOCHS, DEMO_IMAGES

console = Console(soft_wrap=True)


def demo(
    images: Annotated[int, typer.Option(help="labelled images in the seeded Label Studio project")] = DEMO_IMAGES,
    epochs: Annotated[int, typer.Option(help="training epochs")] = DEMO_EPOCHS,
    stop_label_studio: Annotated[bool, typer.Option("--stop-label-studio",
                                                    help="stop the Label Studio an earlier demo started, and exit")]
    = False,
) -> None:
    """Run the retrain loop on the embedded defaults; exit 0 only when the endpoint answers.

    Ports: Label Studio at LABEL_STUDIO_URL (default http://127.0.0.1:8080; e.g.
    LABEL_STUDIO_URL=http://127.0.0.1:8081 aipipe demo moves it, and later commands need the same
    variable); the model server takes a free port on 127.0.0.1, printed at the end (`aipipe deploy
    status`). A Label Studio the demo starts keeps running for the next commands; --stop-label-studio
    stops it.
    """
    from aipipe.cli.runs import drive_foreground
    from aipipe.demo import demo_label_studio_pid, run_demo
    from aipipe.demo import stop_label_studio as stop

    cfg = load_config()
    check_writable(cfg)
    if stop_label_studio:
        pid = stop(cfg)
        console.print(f"stopped Label Studio (pid {pid})" if pid else "no Label Studio started by the demo is running")
        return
    result = run_demo(cfg, images=images, epochs=epochs, log=console.print,
                      drive=drive_foreground)
    pid = demo_label_studio_pid(cfg)
    still = (f"Label Studio keeps running at {cfg.get('label_studio.url')} (pid {pid}) for the next commands; "
             "stop it with `aipipe demo --stop-label-studio`") if pid else ""
    if result.phase != "Succeeded":
        console.print(f"[red]run {result.run_name} ended {result.phase}[/red]: see `aipipe get {result.run_name}`")
        if still:
            console.print(still)
        raise typer.Exit(1)
    top = result.prediction.get("predictions", [])[:3]
    answer = ", ".join(f"{p['class']} ({p['probability']:.2f})" for p in top)
    console.print(f"[green]run {result.run_name} Succeeded[/green]; the model serves at {result.endpoint}")
    console.print(f"prediction for a sample digit: {answer} (model version {result.prediction.get('model_version')})")
    console.print(f"stop it with `aipipe deploy stop {cfg.get('mlflow.model_name')}`")
    if still:
        console.print(still)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
