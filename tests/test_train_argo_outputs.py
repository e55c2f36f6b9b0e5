"""What the train step shows in the Argo UI while and after it runs: ``ARGO_PROGRESS_FILE`` rising to ``N/N``
(read while the process runs, as Argo's executor does) and the MLflow run URL and model version URL outputs,
checked against the real MLflow server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.fixtures_train import RUN_TIMEOUT_S, StepRun, TrainSetup, assert_ok

PROGRESS = re.compile(r"(\d+)/(\d+)")


def run_and_watch(train_setup: TrainSetup, progress: Path, label: str) -> tuple[StepRun, list[str]]:
    """Run the train step, reading the progress file every 20 ms until it exits; returns the run and
    the distinct texts seen (an empty read between truncate and write is not counted)."""
    out = train_setup.outputs_dir(label)
    args = train_setup.train_args(train_setup.learnable, label, "argo-ui", "--batch-size", "4", "--epochs", "3")
    env = train_setup.env(AIPIPE_OUTPUTS_DIR=str(out), ARGO_PROGRESS_FILE=str(progress))
    seen: list[str] = []
    with subprocess.Popen([sys.executable, "-m", "steps.train", *args], cwd=train_setup.work, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while proc.poll() is None and time.monotonic() < deadline:
            text = progress.read_text() if progress.is_file() else ""
            if text and (not seen or seen[-1] != text):
                seen.append(text)
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
        stdout, stderr = proc.communicate(timeout=60)
    return StepRun(proc.returncode, stdout, stderr, out), seen


def test_train_reports_progress_and_mlflow_links(train_setup: TrainSetup, tmp_path: Path) -> None:
    progress = tmp_path / "progress"
    run, seen = run_and_watch(train_setup, progress, "argo-ui")
    assert_ok(run)
    total = json.loads((run.outputs_dir / "train-metrics.json").read_text())["global_step"]
    assert total >= 3 and progress.read_text() == f"{total}/{total}"
    parsed = [PROGRESS.fullmatch(text) for text in seen]
    assert all(parsed), seen
    done = [int(m.group(1)) for m in parsed if m]
    assert {int(m.group(2)) for m in parsed if m} == {total} and done == sorted(done) and done[-1] == total

    api = f"{train_setup.tracking_uri}/api/2.0/mlflow"
    out = run.outputs
    found = re.fullmatch(re.escape(train_setup.tracking_uri) + r"/#/experiments/(\d+)/runs/(\w+)",
                         out["mlflow_run_url"])
    assert found, out["mlflow_run_url"]
    mlflow_run = requests.get(f"{api}/runs/get", params={"run_id": found.group(2)}, timeout=30).json()["run"]
    assert mlflow_run["info"]["experiment_id"] == found.group(1) and found.group(2) == out["mlflow_run_id"]
    assert out["model_version_url"] == f"{train_setup.tracking_uri}/#/models/argo-ui/versions/{out['model_version']}"
    version = requests.get(f"{api}/model-versions/get", params={"name": "argo-ui", "version": out["model_version"]},
                           timeout=30).json()["model_version"]
    assert version["run_id"] == out["mlflow_run_id"]
