"""MLflow for the train and evaluate steps: run tracking, model registration, aliases.

MLflow is imported inside functions, so the training code imports on GPU images without it.
Every call goes through :func:`mlflow_errors`: an unreachable or failing server becomes
:class:`ServiceUnavailable` (exit 3, retried), a missing object :class:`NotFoundError` (exit 2).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

from aipipe.errors import AipipeError, NotFoundError, ServiceUnavailable, UserError
from aipipe.mlflow_ui import ui_base
from aipipe.storage import Storage, join

CHAMPION = "champion"  # the version serving (moved by the deploy step once it is healthy)
CANDIDATE = "candidate"  # the version that passed the gate and is on its way to serving
PREVIOUS = "previous"
BUNDLE_ARTIFACT_PATH = "model"
TAG_DATASET_VERSION = "dataset_version"
TAG_BUNDLE_URI = "bundle_uri"
TAG_WORKFLOW_RUN = "workflow_run_id"


def configure_client_env() -> None:
    """For step processes: fail fast when the server is down (Argo retries the step), send no telemetry."""
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "2")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "1")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "30")
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")


@contextmanager
def mlflow_errors(tracking_uri: str) -> Iterator[None]:
    """Map MLflow/HTTP failures to the step contract's errors."""
    import requests
    from mlflow.exceptions import MlflowException

    try:
        yield
    except AipipeError:
        raise
    except requests.RequestException as exc:
        raise ServiceUnavailable(f"MLflow at {tracking_uri} unreachable: {exc.__class__.__name__}") from exc
    except MlflowException as exc:
        code = getattr(exc, "error_code", "")
        message = str(exc).splitlines()[0][:300]
        if code == "RESOURCE_DOES_NOT_EXIST":
            raise NotFoundError(message, field="mlflow") from exc
        if code in ("INVALID_PARAMETER_VALUE", "RESOURCE_ALREADY_EXISTS", "PERMISSION_DENIED", "UNAUTHENTICATED"):
            raise UserError(message, field="mlflow") from exc
        raise ServiceUnavailable(f"MLflow at {tracking_uri} failed: {message}") from exc


def check_reachable(tracking_uri: str) -> None:
    """Fail fast (before any training) when the tracking server does not answer."""
    import requests

    parsed = urlparse(tracking_uri)
    if parsed.scheme in ("http", "https"):
        try:
            response = requests.get(tracking_uri.rstrip("/") + "/health", timeout=10)
        except requests.RequestException as exc:
            raise ServiceUnavailable(f"MLflow at {tracking_uri} unreachable: {exc.__class__.__name__}") from exc
        if response.status_code >= 500:
            raise ServiceUnavailable(f"MLflow at {tracking_uri} answered {response.status_code}")
    elif parsed.scheme == "sqlite":
        db_path = Path(parsed.path[1:] if parsed.path.startswith("//") else parsed.path)
        db_path.parent.mkdir(parents=True, exist_ok=True)


def client(tracking_uri: str) -> Any:
    """An ``MlflowClient`` for the tracking server (and its model registry)."""
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)


def model_version_url(tracking_uri: str, name: str, version: str) -> str:
    """The MLflow UI page of a registered model version; empty without a server."""
    base = ui_base(tracking_uri)
    return f"{base}/#/models/{quote(name, safe='')}/versions/{version}" if base else ""


def default_artifact_location(tracking_uri: str, storage_root: str, experiment: str) -> str | None:
    """For the embedded sqlite tracking store, artifacts land under the storage root; a server decides itself."""
    if urlparse(tracking_uri).scheme in ("http", "https", "databricks"):
        return None
    return join(storage_root, "mlflow-artifacts", experiment)


class MlflowTracker:
    """One MLflow run: created, or reopened when a retried step resumes from its checkpoint."""

    def __init__(self, tracking_uri: str, experiment: str, *, artifact_location: str | None = None,
                 run_id: str | None = None, run_name: str | None = None, tags: Mapping[str, str] | None = None) -> None:
        self.tracking_uri = tracking_uri
        self.client = client(tracking_uri)
        with mlflow_errors(tracking_uri):
            found = self.client.get_experiment_by_name(experiment)
            experiment_id = (found.experiment_id if found is not None
                             else self.client.create_experiment(experiment, artifact_location=artifact_location))
            self.experiment_id = str(experiment_id)
            if run_id:
                self.client.update_run(run_id, status="RUNNING")
                self.run_id = run_id
            else:
                created = self.client.create_run(experiment_id, run_name=run_name, tags=dict(tags or {}))
                self.run_id = created.info.run_id
            self._params = dict(self.client.get_run(self.run_id).data.params)

    @property
    def run_url(self) -> str:
        """The MLflow UI page of this run; empty without a server."""
        base = ui_base(self.tracking_uri)
        return f"{base}/#/experiments/{self.experiment_id}/runs/{self.run_id}" if base else ""

    def log_params(self, params: Mapping[str, Any]) -> None:
        """Log params not logged yet (a resumed run keeps its first values)."""
        from mlflow.entities import Param

        new = [Param(k, str(v)) for k, v in params.items() if k not in self._params]
        with mlflow_errors(self.tracking_uri):
            for start in range(0, len(new), 100):
                self.client.log_batch(self.run_id, params=new[start:start + 100])
        self._params.update({p.key: p.value for p in new})

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        with mlflow_errors(self.tracking_uri):
            self.client.log_batch(self.run_id, metrics=[Metric(k, float(v), now, step) for k, v in metrics.items()])

    def log_artifacts(self, local_dir: Path, artifact_path: str | None = None) -> None:
        with mlflow_errors(self.tracking_uri):
            self.client.log_artifacts(self.run_id, str(local_dir), artifact_path)

    def log_artifact(self, local_file: Path) -> None:
        with mlflow_errors(self.tracking_uri):
            self.client.log_artifact(self.run_id, str(local_file))

    def finish(self, status: str = "FINISHED") -> None:
        with mlflow_errors(self.tracking_uri):
            self.client.set_terminated(self.run_id, status=status)


def register_version(mlflow_client: Any, tracking_uri: str, name: str, run_id: str,
                     tags: Mapping[str, str]) -> str:
    """Register the run's ``model`` artifacts as a version of ``name`` (once per run); returns the version."""
    with mlflow_errors(tracking_uri):
        if not mlflow_client.search_registered_models(filter_string=f"name = '{name}'"):
            mlflow_client.create_registered_model(name)
        existing = mlflow_client.search_model_versions(filter_string=f"name = '{name}' and run_id = '{run_id}'")
        if existing:
            version = str(existing[0].version)
        else:
            version = str(mlflow_client.create_model_version(
                name, source=f"runs:/{run_id}/{BUNDLE_ARTIFACT_PATH}", run_id=run_id, tags=dict(tags)).version)
        for key, value in tags.items():
            mlflow_client.set_model_version_tag(name, version, key, value)
    return version


def register_bundle(tracker: MlflowTracker, bundle: Path, name: str, storage: Storage, storage_root: str,
                    tags: Mapping[str, str]) -> tuple[str, str]:
    """Log a model bundle to the run, register it, copy it to ``<root>/models/<name>/<version>/``.

    Returns (version, bundle URI); the version's ``bundle_uri`` tag names the storage copy.
    """
    tracker.log_artifacts(bundle, BUNDLE_ARTIFACT_PATH)
    version = register_version(tracker.client, tracker.tracking_uri, name, tracker.run_id, tags)
    bundle_uri = join(storage_root, "models", name, version)
    storage.upload_dir(bundle, bundle_uri)
    with mlflow_errors(tracker.tracking_uri):
        tracker.client.set_model_version_tag(name, version, TAG_BUNDLE_URI, bundle_uri)
    return version, bundle_uri


def aliases(mlflow_client: Any, tracking_uri: str, name: str) -> dict[str, str]:
    """{alias: version} of a registered model."""
    with mlflow_errors(tracking_uri):
        model = mlflow_client.get_registered_model(name)
    return {alias: str(version) for alias, version in (model.aliases or {}).items()}


def model_version(mlflow_client: Any, tracking_uri: str, name: str, version: str) -> Any:
    """A registered model version (NotFoundError when absent)."""
    with mlflow_errors(tracking_uri):
        return mlflow_client.get_model_version(name, str(version))


def mark_candidate(mlflow_client: Any, tracking_uri: str, name: str, version: str) -> None:
    """Point ``candidate`` at a version that passed the gate (``champion`` moves only once it serves)."""
    with mlflow_errors(tracking_uri):
        mlflow_client.set_registered_model_alias(name, CANDIDATE, str(version))


def promote(mlflow_client: Any, tracking_uri: str, name: str, version: str) -> str | None:
    """Point ``champion`` at ``version``; the old champion becomes ``previous``; a ``candidate`` alias on
    ``version`` is dropped. Returns the old champion."""
    current = aliases(mlflow_client, tracking_uri, name)
    old = current.get(CHAMPION)
    with mlflow_errors(tracking_uri):
        if old is not None and old != str(version):
            mlflow_client.set_registered_model_alias(name, PREVIOUS, old)
        mlflow_client.set_registered_model_alias(name, CHAMPION, str(version))
        if current.get(CANDIDATE) == str(version):
            mlflow_client.delete_registered_model_alias(name, CANDIDATE)
    return old if old != str(version) else None
