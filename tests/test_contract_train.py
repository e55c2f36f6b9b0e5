"""The train step's contract: flags, outputs, exit codes (0 ok, 2 user error, 3 service unavailable)."""

from __future__ import annotations

import socket
import subprocess
import sys

from steps.train.contract import CONTRACT as TRAIN
from tests.fixtures_train import StepRun, TrainSetup


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _assert_one_line_error(run: StepRun, code: int, *needles: str) -> None:
    assert run.returncode == code, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("train: error:")]
    assert len(errors) == 1, run.stderr[-3000:]
    for needle in needles:
        assert needle in errors[0]


def test_help_lists_inputs_and_outputs() -> None:
    proc = subprocess.run([sys.executable, "-m", "steps.train", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0
    for item in TRAIN.inputs:
        assert f"--{item.name}" in proc.stdout
    for name in TRAIN.output_names():
        assert name in proc.stdout
    assert "--nproc-per-node" in proc.stdout and "--checkpoint-every" in proc.stdout


def test_outputs_are_written(learnable_run: StepRun) -> None:
    out = learnable_run.outputs
    assert set(TRAIN.output_names()) <= set(out)
    assert int(out["model_version"]) >= 1
    assert 0.0 <= float(out["val_accuracy"]) <= 1.0
    assert len(out["mlflow_run_id"]) == 32 and out["onnx_uri"].startswith("file:///")
    assert set(learnable_run.report("train-metrics.json")) >= {"history", "accel", "val_accuracy"}


def test_missing_flag_and_bad_number_exit_2(train_setup: TrainSetup) -> None:
    run = train_setup.run_step("steps.train", ["--dataset-uri", train_setup.learnable.uri], "missing-flag")
    assert run.returncode == 2 and "--dataset-version" in run.stderr
    args = train_setup.train_args(train_setup.learnable, "wf-bad", "bad", "--batch-size", "many")
    _assert_one_line_error(train_setup.run_step("steps.train", args, "bad-number"), 2, "batch-size")


def test_incomplete_dataset_and_wrong_version_exit_2_before_training(train_setup: TrainSetup, tmp_path) -> None:
    args = train_setup.train_args(train_setup.learnable, "wf-bad", "bad")
    args[args.index("--dataset-uri") + 1] = tmp_path.as_uri()  # an empty folder: no _SUCCESS
    run = train_setup.run_step("steps.train", args, "no-success")
    _assert_one_line_error(run, 2, "dataset-uri", "_SUCCESS")
    args = train_setup.train_args(train_setup.learnable, "wf-bad", "bad")
    args[args.index("--dataset-version") + 1] = "0000000000000000"
    _assert_one_line_error(train_setup.run_step("steps.train", args, "wrong-version"), 2, "dataset-version")
    assert not (train_setup.store / "checkpoints" / "bad").exists()


def test_mlflow_unreachable_exits_3(train_setup: TrainSetup) -> None:
    args = train_setup.train_args(train_setup.learnable, "wf-nomlflow", "nomlflow")
    run = train_setup.run_step("steps.train", args, "no-mlflow", env={"MLFLOW_TRACKING_URI": _closed_port_url()},
                               timeout=120)
    _assert_one_line_error(run, 3, "MLflow")
    assert not (train_setup.store / "checkpoints" / "nomlflow").exists()  # failed before any training
