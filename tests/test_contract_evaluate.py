"""The evaluate step's contract: flags, outputs, exit codes (2 for bad input, 3 when MLflow is down)."""

from __future__ import annotations

import socket
import subprocess
import sys

from steps.evaluate.contract import CONTRACT as EVALUATE
from tests.fixtures_train import StepRun, TrainSetup


def _args(setup: TrainSetup, version: str, *extra: str) -> list[str]:
    return ["--dataset-uri", setup.learnable.uri, "--model-name", "digits", "--model-version", version, *extra]


def _one_line_error(run: StepRun, code: int, needle: str) -> None:
    assert run.returncode == code, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("evaluate: error:")]
    assert len(errors) == 1 and needle in errors[0], run.stderr[-3000:]
    assert not (run.outputs_dir / "promote").exists()


def test_help_lists_inputs_and_outputs() -> None:
    proc = subprocess.run([sys.executable, "-m", "steps.evaluate", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0
    for item in EVALUATE.inputs:
        assert f"--{item.name}" in proc.stdout
    for name in EVALUATE.output_names():
        assert name in proc.stdout


def test_unknown_version_and_bad_margin_exit_2(train_setup: TrainSetup, learnable_run: StepRun) -> None:
    _one_line_error(train_setup.run_step("steps.evaluate", _args(train_setup, "9999"), "eval-unknown"), 2, "9999")
    version = learnable_run.outputs["model_version"]
    run = train_setup.run_step("steps.evaluate", _args(train_setup, version, "--margin", "-1"), "eval-margin")
    _one_line_error(run, 2, "margin")
    run = train_setup.run_step("steps.evaluate", _args(train_setup, version, "--min-accuracy", "1.5"), "eval-floor")
    _one_line_error(run, 2, "min-accuracy")


def test_mlflow_unreachable_exits_3(train_setup: TrainSetup) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = train_setup.run_step("steps.evaluate", _args(train_setup, "1"), "eval-down",
                               env={"MLFLOW_TRACKING_URI": f"http://127.0.0.1:{port}"}, timeout=120)
    _one_line_error(run, 3, "MLflow")
