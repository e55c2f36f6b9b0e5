"""The convert step through its contract: `python -m steps.convert_trt` flags, outputs, report, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mlkit.engine.runtime import load_engine
from steps.convert_trt.contract import CONTRACT as CONVERT

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import torch

    torch.set_num_threads(1)
    from mlkit.fixtures import write_tiny_model_bundle
    from steps.export_annotations.fixtures import write_tiny_dataset

    root = tmp_path_factory.mktemp("store")
    dataset = write_tiny_dataset(root / "datasets", size=32)
    model = write_tiny_model_bundle(root / "models" / "m" / "1", image_size=32, classes=["0", "1", "2"])
    return {"root": root, "dataset": dataset, "model": model}


def _run(store: dict[str, Path], out: Path, *flags: str, env: dict[str, str] | None = None,
         onnx_uri: str = "", dataset_uri: str = "", model_name: str = "m") -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "AIPIPE_STORAGE_ROOT": store["root"].as_uri(), "AIPIPE_OUTPUTS_DIR": str(out),
                "AIPIPE_HOME": str(out / "home"), "MLFLOW_TRACKING_URI": f"sqlite:///{out / 'mlflow.db'}",
                "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO), **(env or {})}
    base = ["--onnx-uri", onnx_uri or (store["model"] / "model.onnx").as_uri(),
            "--dataset-uri", dataset_uri or store["dataset"].as_uri(),
            "--model-name", model_name, "--model-version", "1"]
    return subprocess.run([sys.executable, "-m", "steps.convert_trt", *base, *flags], cwd=REPO, env=full_env,
                          capture_output=True, text=True, timeout=300)


def test_convert_writes_every_output_and_a_runnable_bundle(store, tmp_path: Path):
    proc = _run(store, tmp_path, "--backend", "onnxruntime", "--validation-samples", "32")
    assert proc.returncode == 0, proc.stderr
    outputs = {name: (tmp_path / name).read_text() for name in CONVERT.output_names()}
    assert outputs["backend"] == "onnxruntime" and outputs["precision"] == "fp16"
    assert float(outputs["memory_mb"]) > 0 and float(outputs["latency_ms_b1"]) > 0
    assert float(outputs["throughput_b64"]) > 0
    bundle = Path(outputs["engine_uri"].removeprefix("file://"))
    assert outputs["precision_config_uri"] == outputs["engine_uri"] + "/precision_config.json"
    config = json.loads((bundle / "precision_config.json").read_text())
    assert config["FP32_LAYERS_FOR_FP16"] == [] and config["check-error-stat"] == "mean"
    report = json.loads((tmp_path / "precision-report.json").read_text())
    assert report["result"] == "ok" and report["debugger"]["evaluator"] == "onnx-reference"
    assert report["validation"]["top1_agreement"] >= 0.95
    assert "RSS" in report["measurement_note"] and "no FP16 kernels" in report["numerics_note"]
    assert report["mlflow"] == "skipped: model version m/1 is not registered in MLflow"
    runner = load_engine(bundle, device="cpu")
    assert runner.infer(np.zeros((2, 3, 32, 32), np.float32)).shape == (2, 3)

    # reuse the config: no search this time, same plan
    again = tmp_path / "again"
    proc = _run(store, again, "--backend", "onnxruntime", "--validation-samples", "32",
                "--precision-config-uri", outputs["precision_config_uri"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((again / "precision-report.json").read_text())
    assert report["debugger"] == {"skipped": f"reused {outputs['precision_config_uri']}"}


def _run_in_process(store: dict[str, Path], out: Path, monkeypatch: pytest.MonkeyPatch, *flags: str) -> int:
    """The step's real entry point (flags, error mapping, exit code) without a new interpreter."""
    from aipipe.stepkit import run_step
    from steps.convert_trt.__main__ import main

    for key, value in {"AIPIPE_STORAGE_ROOT": store["root"].as_uri(), "AIPIPE_OUTPUTS_DIR": str(out),
                       "AIPIPE_HOME": str(out / "home")}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "argv", ["steps.convert_trt", "--onnx-uri", (store["model"] / "model.onnx").as_uri(),
                                      "--dataset-uri", store["dataset"].as_uri(), "--model-version", "1", *flags])
    with pytest.raises(SystemExit) as exit_info:
        run_step(CONVERT.name, main)
    return int(exit_info.value.code or 0)


@pytest.mark.parametrize(("flags", "message"), [
    (("--backend", "tensorrt"), "import tensorrt` fails"),
    (("--precision-config-uri", "file:///nonexistent/precision_config.json"), "precision_config.json"),
    (("--batch-profile", "8,4,2"), "batch profile"),
    (("--check-error-stat", "p99"), "invalid choice"),
])
def test_input_errors_exit_2_with_one_line(store, tmp_path: Path, monkeypatch, capsys, flags, message):
    assert _run_in_process(store, tmp_path, monkeypatch, *flags) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_malformed_onnx_exits_2(store, tmp_path: Path, monkeypatch, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("classes.json", "preprocess.json"):
        (bad / name).write_text((store["model"] / name).read_text())
    (bad / "model.onnx").write_bytes(b"not an onnx file")
    assert _run_in_process(dict(store, model=bad), tmp_path / "out", monkeypatch) == 2
    err = capsys.readouterr().err
    assert "not a valid ONNX model" in err and "Traceback" not in err


def test_pytorch_backend_over_s3_logs_to_the_mlflow_model_version(store, tmp_path: Path, s3_server, mlflow_server):
    """S3 storage (moto, minio SDK), a real MLflow server, the PyTorch backend: the bundle lands in S3 and MLflow."""
    import uuid

    import mlflow

    root = s3_server.fresh_root()
    storage = s3_server.storage()
    model_uri = storage.upload_dir(store["model"], f"{root}/models/m/1") and f"{root}/models/m/1/model.onnx"
    dataset_uri = f"{root}/datasets/tiny"
    storage.upload_dir(store["dataset"], dataset_uri)
    name = f"convert-{uuid.uuid4().hex[:8]}"
    client = mlflow.MlflowClient(tracking_uri=mlflow_server, registry_uri=mlflow_server)
    run = client.create_run(client.create_experiment(name))
    client.create_registered_model(name)
    client.create_model_version(name, f"runs:/{run.info.run_id}/model", run_id=run.info.run_id)

    proc = _run(store, tmp_path, "--backend", "pytorch", "--validation-samples", "16", onnx_uri=model_uri,
                dataset_uri=dataset_uri, model_name=name,
                env={**s3_server.env(root), "MLFLOW_TRACKING_URI": mlflow_server})
    assert proc.returncode == 0, proc.stderr
    engine_uri = (tmp_path / "engine_uri").read_text()
    assert engine_uri == f"{root}/engines/{name}/1"
    assert storage.exists(f"{engine_uri}/engine.json") and storage.exists(f"{engine_uri}/model.safetensors")
    assert json.loads(storage.get_text(f"{engine_uri}/engine.json"))["backend"] == "pytorch"
    report = json.loads((tmp_path / "precision-report.json").read_text())
    assert report["backend"] == "pytorch" and report["mlflow"].startswith("logged to run")
    tags = client.get_model_version(name, "1").tags
    assert tags["engine.backend"] == "pytorch" and tags["engine.precision"] == "fp16"
    assert tags["engine.gpu_arch"] == "cpu"
    logged = {a.path for a in client.list_artifacts(run.info.run_id, "engine-pytorch")}
    assert {"engine-pytorch/engine.json", "engine-pytorch/precision_config.json",
            "engine-pytorch/classes.json", "engine-pytorch/preprocess.json"} <= logged


def test_accuracy_drop_over_the_threshold_fails_with_a_report(store, tmp_path: Path, monkeypatch, capsys):
    code = _run_in_process(store, tmp_path, monkeypatch, "--backend", "onnxruntime", "--validation-samples", "16",
                           "--max-accuracy-delta", "-0.5")
    assert code == 2
    err = capsys.readouterr().err
    assert "engine accuracy" in err and "Traceback" not in err
    report = json.loads((tmp_path / "precision-report.json").read_text())
    assert report["result"] == "failed" and report["validation"]["passed"] is False
    assert not (tmp_path / "engine_uri").exists()
