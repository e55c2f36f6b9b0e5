"""``python -m steps.evaluate``: score the candidate and the champion on the same split; pass the gate or not.

A candidate passes when it reaches ``--min-accuracy`` and is not worse than the champion by more than
``--margin``; it is then marked with the ``candidate`` alias. ``champion`` names the version that serves:
the deploy step moves it once the new version is healthy, so a failed convert or deploy leaves it alone.

Both models are rebuilt from their model bundles (safetensors, never unpickled): the storage copy
named by the version's ``bundle_uri`` tag, else the version's MLflow artifacts.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from aipipe.config import load_config
from aipipe.stepkit import parse_step_args, write_outputs, write_report
from aipipe.storage import Storage
from mlkit.data import open_dataset
from mlkit.tracking import (
    CANDIDATE,
    CHAMPION,
    PREVIOUS,
    TAG_BUNDLE_URI,
    aliases,
    check_reachable,
    client,
    configure_client_env,
    mark_candidate,
    mlflow_errors,
    model_version,
)

from .contract import CONTRACT, EvaluateFlags
from .gate import Decision, decide, score_bundle

log = logging.getLogger("aipipe.evaluate")

REPORT_NAME = "evaluate-report.json"


def fetch_bundle(storage: Storage, tracking_uri: str, version: Any, dest: Path) -> Path:
    """The local folder of a model version's bundle."""
    bundle_uri = (version.tags or {}).get(TAG_BUNDLE_URI)
    if bundle_uri:
        local = storage.local_path(bundle_uri)
        return local if local is not None else storage.download_dir(bundle_uri, dest)
    import mlflow.artifacts

    with mlflow_errors(tracking_uri):
        path = mlflow.artifacts.download_artifacts(artifact_uri=f"models:/{version.name}/{version.version}",
                                                   dst_path=str(dest), tracking_uri=tracking_uri)
    return Path(path)


def main(argv: list[str] | None = None) -> None:
    flags = parse_step_args(CONTRACT, EvaluateFlags, argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s evaluate %(levelname)s %(message)s")
    margin, min_accuracy = flags.margin, flags.min_accuracy
    name, candidate_version = flags.model_name, flags.model_version
    config = load_config()
    storage = Storage.from_config(config)
    tracking_uri = config.mlflow_tracking_uri
    configure_client_env()
    check_reachable(tracking_uri)
    mlflow_client = client(tracking_uri)
    candidate = model_version(mlflow_client, tracking_uri, name, candidate_version)
    data = open_dataset(storage, flags.dataset_uri, config.home / "cache" / "datasets")
    before = aliases(mlflow_client, tracking_uri, name)
    champion_version = before.get(CHAMPION)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with tempfile.TemporaryDirectory(prefix="aipipe-evaluate-") as tmp:
        candidate_scores = score_bundle(fetch_bundle(storage, tracking_uri, candidate, Path(tmp) / "candidate"),
                                        data, device=device)
        champion_scores = None
        if champion_version == candidate_version:
            champion_scores = candidate_scores
        elif champion_version is not None:
            champion = model_version(mlflow_client, tracking_uri, name, champion_version)
            champion_scores = score_bundle(fetch_bundle(storage, tracking_uri, champion, Path(tmp) / "champion"),
                                           data, device=device)
    if champion_version == candidate_version:
        decision = Decision(True, "the candidate already is the champion")
    else:
        decision = decide(candidate_scores.accuracy, champion_scores.accuracy if champion_scores else None, margin,
                          min_accuracy)
    if decision.promote and champion_version != candidate_version:
        mark_candidate(mlflow_client, tracking_uri, name, candidate_version)
    log.info("%s v%s: %s -> %s", name, candidate_version, decision.reason,
             "passed the gate (alias candidate; champion moves once it serves)" if decision.promote
             else "not promoted")
    report = {
        "model_name": name, "candidate_version": candidate_version, "champion_version": champion_version,
        "dataset_uri": data.uri, "dataset_version": data.version, "margin": margin, "min_accuracy": min_accuracy,
        "metric": "accuracy", "candidate": candidate_scores.as_dict(),
        "champion": champion_scores.as_dict() if champion_scores else None,
        "promote": decision.promote, "reason": decision.reason,
        "aliases": {CHAMPION: champion_version, PREVIOUS: before.get(PREVIOUS),
                    CANDIDATE: candidate_version if decision.promote and champion_version != candidate_version
                    else before.get(CANDIDATE)},
    }
    report_path = write_report(REPORT_NAME, report)
    with mlflow_errors(tracking_uri):
        accuracy = f"{candidate_scores.accuracy:.6f}"
        mlflow_client.set_model_version_tag(name, candidate_version, "gate_accuracy", accuracy)
        mlflow_client.set_model_version_tag(name, candidate_version, "gate_promoted", str(decision.promote).lower())
        if candidate.run_id:
            mlflow_client.log_artifact(candidate.run_id, str(report_path))
    write_outputs(CONTRACT, {
        "promote": decision.promote, "candidate_metric": f"{candidate_scores.accuracy:.6f}",
        "champion_metric": f"{champion_scores.accuracy:.6f}" if champion_scores else "",
    })
