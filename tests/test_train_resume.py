"""kill -9 mid-epoch and re-run: the retry resumes and ends with the weights of an uninterrupted run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch
from mlflow import MlflowClient
from safetensors.torch import load_file

from steps.train.checkpoint import MARKER_SUFFIX
from tests.fixtures_train import SINGLE_PROCESS, StepRun, TrainSetup, assert_ok


def _committed_steps(prefix: Path) -> list[int]:
    if not prefix.is_dir():
        return []
    return sorted(int(m.group(1)) for p in prefix.iterdir()
                  if (m := re.fullmatch(r"ckpt-(\d+)\.pt" + re.escape(MARKER_SUFFIX), p.name)))


def test_kill_9_mid_epoch_resumes_to_identical_weights(learnable_run: StepRun, train_setup: TrainSetup) -> None:
    data = train_setup.learnable
    args = train_setup.train_args(data, "wf-killed", "digits", *SINGLE_PROCESS)
    prefix = train_setup.store / "checkpoints" / "digits" / "wf-killed" / data.version
    out = train_setup.outputs_dir("wf-killed-attempt1")
    with (out / "stderr.log").open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "steps.train", *args], cwd=train_setup.work, stderr=log,
                                stdout=subprocess.DEVNULL, env=train_setup.env(AIPIPE_OUTPUTS_DIR=str(out)))
        deadline = time.monotonic() + 300
        while not (first_seen := _committed_steps(prefix)):
            assert proc.poll() is None, (out / "stderr.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint after 300 s"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    manifest = json.loads((data.path / "manifest.json").read_text())
    steps_per_epoch = manifest["counts"]["train"] // 8  # batch 4 x 2 micro-batches
    assert min(first_seen) % steps_per_epoch != 0  # --checkpoint-every 5: killed after a mid-epoch checkpoint
    seen = _committed_steps(prefix)
    assert max(seen) < 8 * steps_per_epoch and not (out / "model_version").exists()

    rerun = assert_ok(train_setup.train(data, "wf-killed", "digits", *SINGLE_PROCESS, label="wf-killed-attempt2"))
    report = rerun.report("train-metrics.json")
    assert report["resumed_from_step"] is not None and report["resumed_from_step"] >= max(seen)
    assert "resuming at step" in rerun.stderr

    reference = load_file(train_setup.bundle("digits", learnable_run.outputs["model_version"]) / "model.safetensors")
    resumed = load_file(train_setup.bundle("digits", rerun.outputs["model_version"]) / "model.safetensors")
    assert reference.keys() == resumed.keys()
    for name in reference:
        assert torch.equal(reference[name], resumed[name]), name
    assert rerun.outputs["val_accuracy"] == learnable_run.outputs["val_accuracy"]

    # the retry continued the same MLflow run instead of starting a second one
    client = MlflowClient(train_setup.tracking_uri)
    runs = client.search_runs([client.get_experiment_by_name("digits").experiment_id],
                              filter_string="tags.workflow_run_id = 'wf-killed'")
    assert [r.info.run_id for r in runs] == [rerun.outputs["mlflow_run_id"]]
    assert len(client.get_metric_history(rerun.outputs["mlflow_run_id"], "val_accuracy")) == 8
