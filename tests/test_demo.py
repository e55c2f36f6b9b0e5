"""The README's main job, ``aipipe demo``, on a fresh AIPIPE_HOME: it starts its own Label Studio,
seeds the demo project, runs the retrain loop on the embedded engine and gets a prediction."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aipipe.services.process import free_port
from steps.deploy.local import LocalDeployments

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_TIMEOUT_S = 1500


def test_demo_runs_the_loop_and_the_endpoint_answers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "AIPIPE_HOME": str(home), "LABEL_STUDIO_URL": f"http://127.0.0.1:{free_port()}",
           "AIPIPE_CONFIG": "", "MLFLOW_TRACKING_URI": "", "AIPIPE_STORAGE_ROOT": "", "COLUMNS": "200"}
    for name in ("LABEL_STUDIO_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AIPIPE_S3_ENDPOINT"):
        env.pop(name, None)
    aipipe = [sys.executable, "-m", "aipipe.cli.main"]
    try:
        done = subprocess.run([*aipipe, "demo", "--images", "40", "--epochs", "2"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=DEMO_TIMEOUT_S)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "Succeeded" in done.stdout and "prediction for a sample digit" in done.stdout, done.stdout
        deployment = LocalDeployments(home).current("aipipe-classifier")
        assert deployment is not None and deployment.url in done.stdout
        assert "Label Studio keeps running" in done.stdout and "aipipe demo --stop-label-studio" in done.stdout
        stopped = subprocess.run([*aipipe, "demo", "--stop-label-studio"], env=env, capture_output=True, text=True,
                                 timeout=120)
        assert stopped.returncode == 0 and "stopped Label Studio" in stopped.stdout, stopped.stdout + stopped.stderr
    finally:
        subprocess.run([*aipipe, "demo", "--stop-label-studio"], env=env, capture_output=True, timeout=120)
        if LocalDeployments(home).current("aipipe-classifier") is not None:
            subprocess.run([*aipipe, "deploy", "stop", "aipipe-classifier"], env=env, capture_output=True,
                           timeout=120)
