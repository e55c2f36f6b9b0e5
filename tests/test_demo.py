"""The README's main job, ``aipipe demo``, on a fresh AIPIPE_HOME and its own defaults: it starts its own
Label Studio, seeds the demo project, runs the retrain loop on the embedded engine and gets a prediction;
the model it serves reaches >= 0.85 top-1 on the dataset's held-out split, asked over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import requests

from aipipe.services.process import free_port
from steps.deploy.local import LocalDeployments

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_TIMEOUT_S = 1500
MIN_SERVED_ACCURACY = 0.85


def served_accuracy(endpoint: str, dataset: Path) -> tuple[float, int]:
    """Top-1 accuracy of the endpoint on a dataset version's val split (each image POSTed as it is stored)."""
    manifest = json.loads((dataset / "manifest.json").read_text())
    held_out = [item for item in manifest["items"] if item["split"] == "val"]
    hits = 0
    with requests.Session() as session:
        for item in held_out:
            resp = session.post(f"{endpoint}/v1/predict", data=(dataset / item["image"]).read_bytes(),
                                headers={"Content-Type": "image/png"}, timeout=30)
            assert resp.status_code == 200, resp.text
            hits += resp.json()["predictions"][0]["class"] == item["label"]
    return hits / len(held_out), len(held_out)


def test_demo_runs_the_loop_and_the_endpoint_answers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "AIPIPE_HOME": str(home), "LABEL_STUDIO_URL": f"http://127.0.0.1:{free_port()}",
           "AIPIPE_CONFIG": "", "MLFLOW_TRACKING_URI": "", "AIPIPE_STORAGE_ROOT": "", "COLUMNS": "200"}
    for name in ("LABEL_STUDIO_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AIPIPE_S3_ENDPOINT"):
        env.pop(name, None)
    aipipe = [sys.executable, "-m", "aipipe.cli.main"]
    try:
        done = subprocess.run([*aipipe, "demo"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=DEMO_TIMEOUT_S)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "Succeeded" in done.stdout and "prediction for a sample digit" in done.stdout, done.stdout
        deployment = LocalDeployments(home).current("aipipe-classifier")
        assert deployment is not None and deployment.url in done.stdout
        datasets = sorted((home / "store" / "datasets").glob("*/*/manifest.json"))
        assert len(datasets) == 1, datasets
        accuracy, count = served_accuracy(deployment.url, datasets[0].parent)
        assert count >= 100 and accuracy >= MIN_SERVED_ACCURACY, (accuracy, count)
        assert "Label Studio keeps running" in done.stdout and "aipipe demo --stop-label-studio" in done.stdout
        stopped = subprocess.run([*aipipe, "demo", "--stop-label-studio"], env=env, capture_output=True, text=True,
                                 timeout=120)
        assert stopped.returncode == 0 and "stopped Label Studio" in stopped.stdout, stopped.stdout + stopped.stderr
    finally:
        subprocess.run([*aipipe, "demo", "--stop-label-studio"], env=env, capture_output=True, timeout=120)
        if LocalDeployments(home).current("aipipe-classifier") is not None:
            subprocess.run([*aipipe, "deploy", "stop", "aipipe-classifier"], env=env, capture_output=True,
                           timeout=120)


def _finished(promote: str, candidate: str, champion: str = "") -> dict:
    params = [{"name": "promote", "value": promote}, {"name": "candidate_metric", "value": candidate},
              {"name": "champion_metric", "value": champion}]
    return {"metadata": {"name": "aipipe-retrain-x"}, "status": {"phase": "Succeeded", "nodes": {
        "n1": {"displayName": "evaluate", "outputs": {"parameters": params}}}}}


def test_a_refused_model_is_named_with_its_accuracy() -> None:
    from pipelines.demo import gate_refusal

    said = gate_refusal(_finished("false", "0.412000"))
    assert "held-out top-1 0.412000)" in said and "aipipe logs aipipe-retrain-x evaluate" in said
    assert "champion 0.950000" in gate_refusal(_finished("false", "0.900000", "0.950000"))
    assert gate_refusal(_finished("true", "0.950000")) == ""
    assert gate_refusal({"metadata": {"name": "r"}, "status": {"nodes": {}}}) == ""  # evaluate skipped: nothing new
