"""The quick start's main job: the whole retrain loop on the embedded defaults (``python -m pipelines.demo``,
``make demo``, ``aipipe demo``).

Starts (or reuses) a local Label Studio, seeds a labelled demo project once, runs the compiled
``pipelines/retrain.py`` on the embedded engine (export → train → evaluate → convert → deploy)
and asks the deployed local endpoint for a prediction. Succeeds only when the run Succeeded and
the endpoint answered with class names. A Label Studio the demo started keeps running for the next
commands (``aipipe run pipelines/retrain.py``); :func:`stop_label_studio` stops it.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

import requests
import typer
from rich.console import Console

from aipipe.cli.preflight import check_writable
from aipipe.config import Config, load_config
from aipipe.errors import NotFoundError, ServiceUnavailable, UserError
from aipipe.services.labelstudio import start_label_studio
from aipipe.services.process import ServerProcess, process_alive

DEMO_TITLE = "aipipe digits demo"
API_KEY_SECRET = "label-studio-api-key"
PIPELINE = Path(__file__).resolve().parent / "retrain.py"
# Training settings that reach >= 0.85 top-1 on the held-out split on 2 CPU cores in well under a minute
# of training; the pipeline's own defaults suit real photos (64 px, flips) and do not learn digits this fast.
DEMO_IMAGES = 800  # labelled digits seeded into the project: ~640 to train on, ~160 held out
DEMO_EPOCHS = 20
DEMO_PARAMS = {
    "batch_size": "32",
    "lr": "0.1",
    "image_size": "32",  # the digits are 8x8 scans: 32 px loses nothing and trains fast on a CPU
    "hflip": "false",  # a mirrored 2 or 7 is no digit
}
PID_FILE = "label-studio.pid"  # under <home>/labelstudio: the Label Studio the demo started
STOP_GRACE_SECONDS = 15.0


@dataclass(frozen=True)
class DemoResult:
    """What the demo did: the run, its phase, and the endpoint's answer."""

    run_name: str
    phase: str
    endpoint: str
    prediction: dict[str, Any]


def read_or_create_secret(path: Path) -> str:
    """A random secret kept in a 0600 file (created on first use)."""
    if path.is_file():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(20)
    path.touch(mode=0o600)
    path.write_text(value)
    return value


def _reachable(url: str) -> bool:
    try:
        return requests.get(f"{url.rstrip('/')}/health", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def ensure_label_studio(cfg: Config, log: Callable[[str], None]) -> tuple[str, str, ServerProcess | None]:
    """(url, api key, process we started or None): reuse a running Label Studio, else start one locally."""
    url = str(cfg.get("label_studio.url")).rstrip("/")
    key_file = cfg.home / "secrets" / str(cfg.get("kubernetes.secret_name")) / API_KEY_SECRET
    # An API key from the environment reaches the steps through the engine's secret store's env
    # fallback; otherwise the demo keeps its own in the secret store, where the steps read it.
    token = str(cfg.get("label_studio.api_key")) or read_or_create_secret(key_file)
    if _reachable(url):
        log(f"using Label Studio at {url}")
        return url, token, None
    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost") or parsed.port is None:
        raise ServiceUnavailable(f"Label Studio at {url} is not reachable (the demo starts one only on 127.0.0.1)")
    root = cfg.home / "labelstudio"
    log(f"starting Label Studio at {url} (data in {root}; the first start runs migrations, ~1 min; "
        "LABEL_STUDIO_URL=http://127.0.0.1:PORT moves it)")
    password = read_or_create_secret(root / "admin-password")
    server = start_label_studio(root, port=parsed.port, token=token, password=password)
    (root / PID_FILE).write_text(str(server.proc.pid))
    return url, token, server


def demo_label_studio_pid(cfg: Config) -> int | None:
    """The pid of the Label Studio the demo started, when it still runs."""
    try:
        pid = int((cfg.home / "labelstudio" / PID_FILE).read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        cmdline = b""
    return pid if process_alive(pid) and b"label-studio" in cmdline else None


def stop_label_studio(cfg: Config) -> int | None:
    """Stop the Label Studio the demo started (its whole process group); its pid, or None when none runs."""
    pid = demo_label_studio_pid(cfg)
    if pid is not None:
        os.killpg(pid, signal.SIGTERM)  # the demo started it as a session (and group) leader
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if process_alive(pid):
            os.killpg(pid, signal.SIGKILL)
    (cfg.home / "labelstudio" / PID_FILE).unlink(missing_ok=True)
    return pid


def ensure_project(url: str, token: str, images: int, log: Callable[[str], None]) -> int:
    """The demo project's id; seeded with ``images`` labelled digits the first time."""
    from steps.export_annotations.client import LabelStudioSource, Retry
    from steps.export_annotations.seed import seed_project

    source = LabelStudioSource(url, token, Retry(3, 1.0))
    try:
        project = source.project(DEMO_TITLE)
        log(f"reusing project {project.id} {DEMO_TITLE!r}")
        return project.id
    except NotFoundError:
        seeded = seed_project(source, images=images, title=DEMO_TITLE)
        log(f"seeded project {seeded.id} {DEMO_TITLE!r} with {len(seeded.task_ids)} labelled images")
        return seeded.id


def predict_sample(endpoint: str) -> dict[str, Any]:
    """POST one digit image to the service; returns its JSON answer."""
    from steps.export_annotations.fixtures import digit_images

    pngs, _ = digit_images(64)
    try:
        resp = requests.post(f"{endpoint.rstrip('/')}/v1/predict", data=pngs[0],
                             headers={"Content-Type": "image/png"}, timeout=30)
    except requests.RequestException as exc:
        raise ServiceUnavailable(f"the deployed endpoint {endpoint} did not answer: {exc}") from exc
    if resp.status_code != 200:
        raise ServiceUnavailable(f"the deployed endpoint {endpoint} answered {resp.status_code}: {resp.text[:200]}")
    return dict(resp.json())


def current_endpoint(cfg: Config) -> str:
    """URL of the local deployment of the configured model."""
    from steps.deploy.local import LocalDeployments

    name = str(cfg.get("mlflow.model_name"))
    instance = LocalDeployments(cfg.home).current(name)
    if instance is None:
        raise NotFoundError(f"no local deployment of {name!r} (the deploy step never succeeded)", field="deploy")
    return instance.url


def gate_refusal(final: dict[str, Any]) -> str:
    """Why a Succeeded run deployed nothing: the gate's outcome from the evaluate node ('' when it passed)."""
    for node in final.get("status", {}).get("nodes", {}).values():
        if node.get("displayName") == "evaluate":
            out = {p["name"]: p.get("value", "") for p in node.get("outputs", {}).get("parameters", [])}
            if out.get("promote") == "false":
                champion = f", champion {out['champion_metric']}" if out.get("champion_metric") else ""
                return (f"the gate kept the new model from serving (held-out top-1 {out.get('candidate_metric')}"
                        f"{champion}); `aipipe logs {final['metadata']['name']} evaluate` says why")
    return ""


def run_demo(cfg: Config, *, images: int, epochs: int, log: Callable[[str], None],
             drive: Callable[[Any, dict[str, Any], str], dict[str, Any]]) -> DemoResult:
    """Run the loop; ``drive(service, workflow, driver_id)`` runs a stored workflow to completion."""
    import uuid

    from aipipe.compile import compile_pipeline
    from aipipe.compile.inline import inline_templates
    from aipipe.engine.service import EngineService

    if images < 10:
        raise UserError("the demo needs at least 10 images", field="--images")
    url, token, _ = ensure_label_studio(cfg, log)  # left running for the next commands (see stop_label_studio)
    project = ensure_project(url, token, images, log)
    params = {"project": str(project), "epochs": str(epochs), **DEMO_PARAMS}
    compiled = compile_pipeline(PIPELINE, cfg, params)
    service = EngineService(cfg)
    driver_id = uuid.uuid4().hex
    workflow = service.submit(inline_templates(compiled.workflow, compiled.templates), driver_id=driver_id)
    final = drive(service, workflow, driver_id)
    name, phase = final["metadata"]["name"], final.get("status", {}).get("phase", "")
    if phase != "Succeeded":
        return DemoResult(name, phase, "", {})
    refused = gate_refusal(final)
    if refused:
        raise UserError(refused, field="evaluate")
    endpoint = current_endpoint(cfg)
    return DemoResult(name, phase, endpoint, predict_sample(endpoint))


def cli(
    images: Annotated[int, typer.Option(help="labelled images in the seeded Label Studio project")] = DEMO_IMAGES,
    epochs: Annotated[int, typer.Option(help="training epochs")] = DEMO_EPOCHS,
    stop_label_studio_: Annotated[bool, typer.Option("--stop-label-studio",
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

    console = Console(soft_wrap=True)
    cfg = load_config()
    check_writable(cfg)
    if stop_label_studio_:
        pid = stop_label_studio(cfg)
        console.print(f"stopped Label Studio (pid {pid})" if pid else "no Label Studio started by the demo is running")
        return
    result = run_demo(cfg, images=images, epochs=epochs, log=console.print, drive=drive_foreground)
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


if __name__ == "__main__":
    from aipipe.cli.main import run_app

    demo_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    demo_app.command()(cli)
    run_app(demo_app, "python -m pipelines.demo")
