"""The whole retrain loop on the embedded engine, on CPU, with real servers.

Label Studio (seeded with the export step's helper), MLflow (sqlite) and an S3 endpoint (moto)
run for real; the compiled ``pipelines/retrain.py`` runs on the embedded engine three times:
1. fresh annotations: export → train → evaluate → convert-trt → deploy all Succeed and the local
   endpoint answers a prediction with class names;
2. no new annotations: the run Succeeds with train/evaluate/convert/deploy Skipped or Omitted and
   the same endpoint still serving;
3. training labels relabelled at random (a worse model): the gate keeps the champion, convert and
   deploy do not run, and the champion keeps serving;
4. true labels back and a convert that cannot work here (``backend=tensorrt`` without TensorRT): the
   candidate passes the gate but the run Fails at convert, and the MLflow alias ``champion`` still
   names the version that serves.
The runs use the demo's training settings, so the first model clears the gate's accuracy floor.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from mlflow import MlflowClient

from aipipe.compile import compile_pipeline
from aipipe.config import Config, load_config
from aipipe.engine.service import EngineService
from aipipe.storage import Storage, join
from pipelines.demo import DEMO_PARAMS, PIPELINE
from steps.convert_trt.convert import tensorrt_available
from steps.deploy.local import LocalDeployments
from steps.export_annotations.fixtures import digit_images
from steps.export_annotations.seed import choice_result, seed_project

MODEL = "e2e-classifier"
LATER_STEPS = ("train", "evaluate", "convert-trt", "deploy")
NOT_RUN = {"Skipped", "Omitted"}


@dataclass
class Loop:
    cfg: Config
    project: int
    label_studio: Any

    def run(self, **extra: str) -> dict[str, Any]:
        # the demo's settings at half its data: batch 16 keeps ~375 optimizer steps, enough to clear the floor
        params = {**DEMO_PARAMS, "project": str(self.project), "epochs": "25", "batch_size": "16", "lr": "0.05"}
        compiled = compile_pipeline(PIPELINE, self.cfg, {**params, **extra})
        service = EngineService(self.cfg)
        workflow = service.submit(compiled.workflow, templates=compiled.templates)
        return service.drive(workflow)

    def endpoint(self) -> str:
        instance = LocalDeployments(self.cfg.home).current(MODEL)
        assert instance is not None, "no local deployment recorded"
        return instance.url


def _write_secret(home: Path, key: str, value: str) -> None:
    path = home / "secrets" / "aipipe-secrets" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value)


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory, label_studio: Any, s3_server: Any,
         mlflow_server: str) -> Iterator[Loop]:
    home = tmp_path_factory.mktemp("aipipe-home")
    _write_secret(home, "label-studio-api-key", label_studio.token)
    _write_secret(home, "aws-access-key-id", s3_server.access_key)
    _write_secret(home, "aws-secret-access-key", s3_server.secret_key)
    cfg = load_config(env={}, cli={
        "home": str(home), "storage.root": s3_server.fresh_root(), "storage.s3_endpoint": s3_server.endpoint,
        "storage.s3_access_key": s3_server.access_key, "storage.s3_secret_key": s3_server.secret_key,
        "label_studio.url": label_studio.url, "mlflow.tracking_uri": mlflow_server, "mlflow.model_name": MODEL,
    })
    seeded = seed_project(label_studio.source(), images=300, title="e2e loop", size=32)
    try:
        yield Loop(cfg, seeded.id, label_studio)
    finally:
        deployments = LocalDeployments(home)
        if deployments.current(MODEL) is not None:
            deployments.stop(MODEL)


def _phases(workflow: dict[str, Any]) -> dict[str, str]:
    """Phase of each pipeline task, by display name."""
    return {n["displayName"]: n["phase"] for n in workflow["status"]["nodes"].values()}


def _outputs(workflow: dict[str, Any], task: str) -> dict[str, str]:
    for node in workflow["status"]["nodes"].values():
        if node["displayName"] == task:
            return {p["name"]: p.get("value", "") for p in node.get("outputs", {}).get("parameters", [])}
    raise AssertionError(f"no node {task}")


def _predict(endpoint: str) -> dict[str, Any]:
    pngs, _ = digit_images(32)
    resp = requests.post(f"{endpoint}/v1/predict", data=pngs[0], headers={"Content-Type": "image/png"}, timeout=30)
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def _relabel_train_split(loop: Loop, dataset_uri: str, *, wrong: bool) -> int:
    """Give every training-split task a new annotation: a random wrong label, or its true label; returns how many."""
    storage = Storage.from_config(loop.cfg)
    manifest = json.loads(storage.get_text(join(dataset_uri, "manifest.json")))
    classes = manifest["classes"]
    rng = random.Random(7)
    train_items = [item for item in manifest["items"] if item["split"] == "train"]
    for item in train_items:
        label = rng.choice([c for c in classes if c != item["label"]]) if wrong else item["label"]
        loop.label_studio.annotate(int(item["id"]), choice_result(label))
    return len(train_items)


def _champion(loop: Loop) -> str | None:
    aliases = MlflowClient(loop.cfg.mlflow_tracking_uri).get_registered_model(MODEL).aliases
    return str(aliases["champion"]) if "champion" in aliases else None


def test_retrain_loop_end_to_end(loop: Loop) -> None:
    # 1. fresh annotations: every step runs and the endpoint answers with class names
    first = loop.run()
    phases = _phases(first)
    assert first["status"]["phase"] == "Succeeded", (first["status"].get("message"), phases)
    for task in ("export-annotations", *LATER_STEPS):
        assert phases[task] == "Succeeded", (phases, _outputs(first, "evaluate"))
    assert _outputs(first, "evaluate")["promote"] == "true"
    endpoint = loop.endpoint()
    answer = _predict(endpoint)
    classes = json.loads(_outputs(first, "export-annotations")["classes"])
    assert answer["predictions"] and all(p["class"] in classes for p in answer["predictions"])
    champion_version = answer["model_version"]
    assert _champion(loop) == champion_version  # deploy moved the alias once the version served

    # 2. nothing new in Label Studio: the run Succeeds and skips everything after export
    second = loop.run()
    phases = _phases(second)
    assert second["status"]["phase"] == "Succeeded", (second["status"].get("message"), phases)
    assert _outputs(second, "export-annotations")["changed"] == "false"
    assert all(phases.get(task, "Omitted") in NOT_RUN for task in LATER_STEPS), phases
    assert loop.endpoint() == endpoint
    assert _predict(endpoint)["model_version"] == champion_version

    # 3. random training labels: a worse candidate; the gate keeps the champion, nothing is deployed
    relabelled = _relabel_train_split(loop, _outputs(first, "export-annotations")["dataset_uri"], wrong=True)
    assert relabelled > 0
    third = loop.run()
    phases = _phases(third)
    assert third["status"]["phase"] == "Succeeded", (third["status"].get("message"), phases)
    assert phases["train"] == "Succeeded" and phases["evaluate"] == "Succeeded", phases
    assert _outputs(third, "evaluate")["promote"] == "false"
    assert all(phases.get(task, "Omitted") in NOT_RUN for task in ("convert-trt", "deploy")), phases
    assert _predict(loop.endpoint())["model_version"] == champion_version
    assert _champion(loop) == champion_version

    # 4. true labels again (a good candidate) but a convert that cannot work: champion stays on the serving version
    if tensorrt_available():
        pytest.skip("TensorRT is installed here: backend=tensorrt would not break convert")
    _relabel_train_split(loop, _outputs(first, "export-annotations")["dataset_uri"], wrong=False)
    fourth = loop.run(backend="tensorrt", margin="1")
    phases = _phases(fourth)
    assert fourth["status"]["phase"] == "Failed", phases
    assert _outputs(fourth, "evaluate")["promote"] == "true" and phases["convert-trt"] == "Failed", phases
    assert phases.get("deploy", "Omitted") in NOT_RUN, phases
    candidate = _outputs(fourth, "train")["model_version"]
    aliases = MlflowClient(loop.cfg.mlflow_tracking_uri).get_registered_model(MODEL).aliases
    assert aliases["candidate"] == candidate != champion_version and aliases["champion"] == champion_version
    assert _predict(loop.endpoint())["model_version"] == champion_version
