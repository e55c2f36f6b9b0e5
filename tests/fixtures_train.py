"""Shared training fixtures: tiny digit datasets, and train-step runs against the real MLflow server.

The runs are session-scoped so the train, DDP, resume, evaluate and contract tests share them. All
runs use the same flags (``TRAIN_FLAGS``), so their results are comparable: one process with
``--batch-size 4 --grad-accum 2`` sees exactly the samples of a 2-rank DDP step of batch 4.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from aipipe.contract import StepSpec
from steps.export_annotations.fixtures import write_tiny_dataset
from steps.train.contract import CONTRACT as TRAIN

REPO_ROOT = Path(__file__).resolve().parents[1]
CLASSES = ("zero", "one", "two")
TRAIN_FLAGS = ["--epochs", "8", "--lr", "0.05", "--image-size", "32", "--num-workers", "0",
               "--min-crop-scale", "0.6", "--checkpoint-every", "5", "--deterministic", "--precision", "fp32"]
SINGLE_PROCESS = ["--batch-size", "4", "--grad-accum", "2"]
RUN_TIMEOUT_S = 600


@dataclass(frozen=True)
class Dataset:
    uri: str
    version: str
    path: Path


@dataclass
class StepRun:
    """A finished step process: exit code, output streams and its output parameters."""

    returncode: int
    stdout: str
    stderr: str
    outputs_dir: Path

    @property
    def outputs(self) -> dict[str, str]:
        return {p.name: p.read_text() for p in self.outputs_dir.iterdir() if p.is_file()} \
            if self.outputs_dir.is_dir() else {}

    def report(self, name: str) -> dict:
        return json.loads((self.outputs_dir / name).read_text())


def make_dataset(root: Path, **kw: object) -> Dataset:
    path = write_tiny_dataset(root, classes=CLASSES, per_class=60, size=32, **kw)  # type: ignore[arg-type]
    version = json.loads((path / "manifest.json").read_text())["version"]
    return Dataset(uri=path.as_uri(), version=version, path=path)


@dataclass
class TrainSetup:
    """Environment for step subprocesses: the MLflow server, a file:// store, one home."""

    tracking_uri: str
    store: Path
    home: Path
    work: Path
    learnable: Dataset
    shuffled: Dataset

    def env(self, **extra: str) -> dict[str, str]:
        env = {**os.environ, "MLFLOW_TRACKING_URI": self.tracking_uri, "AIPIPE_HOME": str(self.home),
               "AIPIPE_STORAGE_ROOT": self.store.as_uri(), "OMP_NUM_THREADS": "1",
               "PYTHONPATH": str(REPO_ROOT), "MLFLOW_DISABLE_TELEMETRY": "true"}
        env.pop("ARGO_PROGRESS_FILE", None)
        env.update(extra)
        return env

    def train_args(self, dataset: Dataset, run_id: str, model_name: str, *extra: str) -> list[str]:
        return ["--dataset-uri", dataset.uri, "--dataset-version", dataset.version, "--run-id", run_id,
                "--model-name", model_name, *TRAIN_FLAGS, *extra]

    def outputs_dir(self, label: str) -> Path:
        path = self.work / "outputs" / label
        path.mkdir(parents=True, exist_ok=True)
        return path

    def run_step(self, module: str, args: list[str], label: str, *, env: Mapping[str, str] | None = None,
                 timeout: float = RUN_TIMEOUT_S) -> StepRun:
        out = self.outputs_dir(label)
        proc = subprocess.run([sys.executable, "-m", module, *args], cwd=self.work, capture_output=True, text=True,
                              timeout=timeout, env=self.env(AIPIPE_OUTPUTS_DIR=str(out), **dict(env or {})))
        return StepRun(proc.returncode, proc.stdout, proc.stderr, out)

    def train(self, dataset: Dataset, run_id: str, model_name: str, *extra: str, label: str | None = None,
              env: Mapping[str, str] | None = None) -> StepRun:
        return self.run_step("steps.train", self.train_args(dataset, run_id, model_name, *extra),
                             label or run_id, env=env)

    def bundle(self, model_name: str, version: str) -> Path:
        return self.store / "models" / model_name / version


def assert_ok(run: StepRun, spec: StepSpec = TRAIN) -> StepRun:
    """The step exited 0 and wrote every output parameter of its contract."""
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stderr[-4000:]}"
    assert set(spec.output_names()) <= set(run.outputs), run.stderr[-2000:]
    return run


@pytest.fixture(scope="session")
def train_setup(mlflow_server: str, tmp_path_factory: pytest.TempPathFactory) -> TrainSetup:
    root = tmp_path_factory.mktemp("train")
    (root / "work").mkdir()
    return TrainSetup(tracking_uri=mlflow_server, store=root / "store", home=root / "home", work=root / "work",
                      learnable=make_dataset(root / "datasets"),
                      shuffled=make_dataset(root / "datasets-shuffled", shuffled_labels=True))


@pytest.fixture(scope="session")
def learnable_run(train_setup: TrainSetup) -> StepRun:
    """One process on the learnable digits (the reference for the DDP and resume tests)."""
    progress = train_setup.work / "progress-wf-learn"
    return assert_ok(train_setup.train(train_setup.learnable, "wf-learn", "digits", *SINGLE_PROCESS,
                                       env={"ARGO_PROGRESS_FILE": str(progress)}))


@pytest.fixture(scope="session")
def shuffled_run(train_setup: TrainSetup) -> StepRun:
    """The shuffled-label control."""
    return assert_ok(train_setup.train(train_setup.shuffled, "wf-shuffled", "digits-shuffled", *SINGLE_PROCESS))
