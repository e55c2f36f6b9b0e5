"""MLflow plumbing: the embedded sqlite store keeps artifacts under the storage root; failures map to exit codes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from aipipe.errors import NotFoundError, ServiceUnavailable, UserError
from aipipe.storage import Storage
from mlkit.fixtures import write_tiny_model_bundle
from mlkit.tracking import (
    MlflowTracker,
    check_reachable,
    client,
    default_artifact_location,
    mlflow_errors,
    model_version,
    register_bundle,
)


def test_embedded_sqlite_tracking_puts_artifacts_under_the_storage_root(tmp_path: Path) -> None:
    tracking_uri = f"sqlite:///{tmp_path / 'home' / 'mlflow.db'}"
    store = (tmp_path / "store").as_uri()
    check_reachable(tracking_uri)  # creates the folder of the database
    location = default_artifact_location(tracking_uri, store, "exp")
    assert location == f"{store}/mlflow-artifacts/exp"
    tracker = MlflowTracker(tracking_uri, "exp", artifact_location=location, run_name="r")
    bundle = write_tiny_model_bundle(tmp_path / "bundle", num_classes=2, image_size=32)
    version, bundle_uri = register_bundle(tracker, bundle, "embedded", Storage(), store, {"dataset_version": "d1"})
    tracker.finish()
    artifacts = tmp_path / "store" / "mlflow-artifacts" / "exp"
    assert (next(artifacts.rglob("model.onnx"))).is_file()
    assert bundle_uri == f"{store}/models/embedded/{version}"
    assert json.loads((tmp_path / "store" / "models" / "embedded" / version / "classes.json").read_text())
    found = model_version(client(tracking_uri), tracking_uri, "embedded", version)
    assert found.tags["bundle_uri"] == bundle_uri and found.tags["dataset_version"] == "d1"
    with pytest.raises(NotFoundError):
        model_version(client(tracking_uri), tracking_uri, "embedded", "99")
    assert default_artifact_location("http://mlflow:5000", store, "exp") is None  # the server decides


def test_unreachable_server_is_service_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ServiceUnavailable, match="unreachable"):
        check_reachable(f"http://127.0.0.1:{port}")


def test_mlflow_exceptions_map_to_contract_errors() -> None:
    from mlflow.exceptions import MlflowException
    from mlflow.protos.databricks_pb2 import INTERNAL_ERROR, INVALID_PARAMETER_VALUE, RESOURCE_DOES_NOT_EXIST

    with pytest.raises(ServiceUnavailable), mlflow_errors("http://x"):
        raise MlflowException("boom", error_code=INTERNAL_ERROR)
    with pytest.raises(NotFoundError), mlflow_errors("http://x"):
        raise MlflowException("gone", error_code=RESOURCE_DOES_NOT_EXIST)
    with pytest.raises(UserError), mlflow_errors("http://x"):
        raise MlflowException("bad", error_code=INVALID_PARAMETER_VALUE)
