"""The train step learns, the shuffled-label control does not, and MLflow gets the run and the model."""

from __future__ import annotations

import json

import numpy as np
import onnxruntime as ort
import torch
from mlflow import MlflowClient
from PIL import Image

from mlkit.data import preprocess_image
from mlkit.model import load_model_bundle
from tests.fixtures_train import StepRun, TrainSetup

torch.set_num_threads(1)


def test_accuracy_floor_on_a_learnable_task(learnable_run: StepRun) -> None:
    assert float(learnable_run.outputs["val_accuracy"]) >= 0.8
    history = learnable_run.report("train-metrics.json")["history"]
    assert len(history) == 8
    assert history[-1]["train_loss"] < history[0]["train_loss"] * 0.7


def test_argo_progress_file_ends_at_total_steps(learnable_run: StepRun, train_setup: TrainSetup) -> None:
    done, total = (train_setup.work / "progress-wf-learn").read_text().split("/")
    assert done == total and int(total) == learnable_run.report("train-metrics.json")["global_step"]


def test_shuffled_labels_stay_near_chance(shuffled_run: StepRun) -> None:
    # 3 classes: chance is 1/3; a model that memorised shuffled labels cannot generalise
    assert float(shuffled_run.outputs["val_accuracy"]) <= 0.55


def test_outputs_point_at_the_model_bundle_in_storage(learnable_run: StepRun, train_setup: TrainSetup) -> None:
    out = learnable_run.outputs
    version = out["model_version"]
    assert out["model_uri"] == f"models:/digits/{version}"
    bundle = train_setup.bundle("digits", version)
    assert out["onnx_uri"] == (bundle / "model.onnx").as_uri()
    names = sorted(p.name for p in bundle.iterdir())
    assert names == ["classes.json", "model.onnx", "model.safetensors", "model_config.json", "preprocess.json"]
    assert json.loads((bundle / "classes.json").read_text()) == ["zero", "one", "two"]
    preprocess = json.loads((bundle / "preprocess.json").read_text())
    assert preprocess["input_size"] == 32 and preprocess["input_name"] == "input"


def test_onnx_export_of_the_trained_model_matches_torch(learnable_run: StepRun, train_setup: TrainSetup) -> None:
    bundle = train_setup.bundle("digits", learnable_run.outputs["model_version"])
    model, preprocess, classes = load_model_bundle(bundle)
    manifest = json.loads((train_setup.learnable.path / "manifest.json").read_text())
    val = [item for item in manifest["items"] if item["split"] == "val"][:16]
    batch = np.stack([preprocess_image(Image.open(train_setup.learnable.path / item["image"]), preprocess)
                      for item in val])
    session = ort.InferenceSession(str(bundle / "model.onnx"), providers=["CPUExecutionProvider"])
    (onnx_logits,) = session.run(["logits"], {"input": batch})
    with torch.no_grad():
        torch_logits = model(torch.from_numpy(batch)).numpy()
    assert np.abs(onnx_logits - torch_logits).max() < 1e-4
    accuracy = np.mean([classes[i] == item["label"] for i, item in zip(onnx_logits.argmax(1), val, strict=True)])
    assert accuracy >= 0.7  # serving's preprocessing reproduces training's validation transform
    assert learnable_run.report("train-metrics.json")["onnx_max_abs_diff"] < 1e-4


def test_mlflow_run_params_metrics_artifacts_and_registration(learnable_run: StepRun,
                                                              train_setup: TrainSetup) -> None:
    client = MlflowClient(train_setup.tracking_uri)
    run = client.get_run(learnable_run.outputs["mlflow_run_id"])
    assert run.info.status == "FINISHED"
    params = run.data.params
    for key in ("accel.num_workers", "accel.pin_memory", "accel.persistent_workers", "accel.prefetch_factor",
                "accel.cuda_prefetcher", "accel.precision", "accel.channels_last", "accel.compile",
                "accel.grad_accum", "accel.deterministic", "accel.world_size"):
        assert key in params, key
    assert params["accel.grad_accum"] == "2" and params["accel.precision"] == "fp32"
    assert params["dataset_version"] == train_setup.learnable.version
    for metric in ("train_loss", "train_accuracy", "val_loss", "val_accuracy", "images_per_s",
                   "data_wait_fraction"):
        assert len(client.get_metric_history(run.info.run_id, metric)) == 8, metric
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id, "model")}
    assert artifacts == {"model/model.onnx", "model/model.safetensors", "model/model_config.json",
                         "model/classes.json", "model/preprocess.json"}
    assert "train-metrics.json" in {a.path for a in client.list_artifacts(run.info.run_id)}

    version = client.get_model_version("digits", learnable_run.outputs["model_version"])
    assert version.run_id == run.info.run_id
    assert version.tags["dataset_version"] == train_setup.learnable.version
    assert version.tags["workflow_run_id"] == "wf-learn"
    assert version.tags["bundle_uri"] == train_setup.bundle("digits", version.version).as_uri()
