"""The evaluate gate against the real MLflow registry: an accuracy floor even for the first model; a model that
passes becomes ``candidate``; ``champion`` moves only when the deploy step has it serving; worse is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlflow import MlflowClient

from aipipe.config import load_config
from aipipe.storage import Storage
from mlkit.fixtures import write_tiny_model_bundle
from mlkit.tracking import MlflowTracker, register_bundle
from steps.deploy.step import mark_serving
from steps.evaluate.contract import CONTRACT as EVALUATE
from steps.evaluate.gate import decide
from tests.fixtures_train import CLASSES, StepRun, TrainSetup, assert_ok

MODEL = "gate-model"


def _register(setup: TrainSetup, bundle: Path, label: str) -> str:
    """Register a model bundle the way the train step does (run artifacts + version + storage copy)."""
    tracker = MlflowTracker(setup.tracking_uri, "gate-tests", run_name=label)
    version, _ = register_bundle(tracker, bundle, MODEL, Storage(), setup.store.as_uri(),
                                 {"dataset_version": setup.learnable.version})
    tracker.finish()
    return version


def _evaluate(setup: TrainSetup, version: str, label: str, margin: str = "0.01",
              min_accuracy: str | None = None) -> StepRun:
    args = ["--dataset-uri", setup.learnable.uri, "--model-name", MODEL, "--model-version", version,
            "--margin", margin, *(["--min-accuracy", min_accuracy] if min_accuracy is not None else [])]
    return assert_ok(setup.run_step("steps.evaluate", args, label), EVALUATE)


def _serve(setup: TrainSetup, version: str) -> dict:
    """What the deploy step does once ``version`` serves: move ``champion`` (its report's aliases)."""
    report: dict = {}
    cfg = load_config(cli={"home": str(setup.home), "mlflow.tracking_uri": setup.tracking_uri}, env={})
    mark_serving(MODEL, version, cfg, report)
    return report


def test_margin_rule() -> None:
    assert decide(0.80, None, 0.01).promote
    assert decide(0.795, 0.80, 0.01).promote  # within the margin
    assert not decide(0.78, 0.80, 0.01).promote
    assert decide(0.90, 0.80, 0.0).promote


def test_accuracy_floor_holds_with_and_without_a_champion() -> None:
    assert not decide(0.49, None, 0.01, 0.5).promote  # no champion: the first model must still reach the floor
    assert "min_accuracy 0.5" in decide(0.49, None, 0.01, 0.5).reason
    assert decide(0.5, None, 0.01, 0.5).promote
    assert not decide(0.45, 0.30, 1.0, 0.5).promote  # better than a poor champion, still below the floor
    assert not decide(0.84, 0.80, 0.01, 0.85).promote
    assert decide(0.86, 0.80, 0.01, 0.85).promote


def test_gate_marks_candidates_and_champion_moves_only_when_served(
        train_setup: TrainSetup, learnable_run: StepRun, shuffled_run: StepRun, tmp_path: Path) -> None:
    client = MlflowClient(train_setup.tracking_uri)
    untrained = write_tiny_model_bundle(tmp_path / "untrained", num_classes=3, image_size=32, classes=list(CLASSES))
    v_first = _register(train_setup, untrained, "untrained")

    # the default floor (0.5) refuses an untrained 3-class model although there is no champion
    refused = _evaluate(train_setup, v_first, "gate-floor")
    assert refused.outputs["promote"] == "false" and refused.outputs["champion_metric"] == ""
    assert float(refused.outputs["candidate_metric"]) < 0.5
    assert "min_accuracy 0.5" in refused.report("evaluate-report.json")["reason"]
    assert client.get_registered_model(MODEL).aliases == {}

    # without a floor the first model passes: it becomes candidate, champion moves only once it serves
    first = _evaluate(train_setup, v_first, "gate-first", min_accuracy="0")
    assert first.outputs["promote"] == "true" and first.outputs["champion_metric"] == ""
    assert client.get_registered_model(MODEL).aliases == {"candidate": v_first}
    assert _serve(train_setup, v_first)["aliases"] == {"champion": v_first, "previous": None}
    assert client.get_registered_model(MODEL).aliases == {"champion": v_first}
    first_accuracy = float(first.outputs["candidate_metric"])

    v_good = _register(train_setup, train_setup.bundle("digits", learnable_run.outputs["model_version"]), "good")
    better = _evaluate(train_setup, v_good, "gate-better")
    assert better.outputs["promote"] == "true"
    assert float(better.outputs["champion_metric"]) == pytest.approx(first_accuracy)
    assert float(better.outputs["candidate_metric"]) == pytest.approx(float(learnable_run.outputs["val_accuracy"]))
    assert better.report("evaluate-report.json")["aliases"] == {"champion": v_first, "previous": None,
                                                                "candidate": v_good}
    # convert or deploy failing now (nothing calls the deploy step's mark_serving) leaves the serving champion
    assert client.get_registered_model(MODEL).aliases == {"champion": v_first, "candidate": v_good}
    _serve(train_setup, v_good)
    assert client.get_registered_model(MODEL).aliases == {"champion": v_good, "previous": v_first}

    shuffled_bundle = train_setup.bundle("digits-shuffled", shuffled_run.outputs["model_version"])
    v_bad = _register(train_setup, shuffled_bundle, "shuffled")
    worse = _evaluate(train_setup, v_bad, "gate-worse")
    assert worse.outputs["promote"] == "false"
    assert float(worse.outputs["candidate_metric"]) < float(worse.outputs["champion_metric"]) - 0.01
    assert client.get_registered_model(MODEL).aliases == {"champion": v_good, "previous": v_first}

    report = worse.report("evaluate-report.json")
    assert report["champion_version"] == v_good and report["promote"] is False
    assert set(report["candidate"]["per_class_recall"]) == set(CLASSES)
    assert report["candidate"]["count"] == report["champion"]["count"] > 0
    assert report["candidate"]["loss"] > report["champion"]["loss"]
    assert client.get_model_version(MODEL, v_bad).tags["gate_promoted"] == "false"

    # a huge margin and no floor let even the worse model through, as candidate only
    lenient = _evaluate(train_setup, v_bad, "gate-lenient", margin="1", min_accuracy="0")
    assert lenient.outputs["promote"] == "true"
    assert client.get_registered_model(MODEL).aliases == {"champion": v_good, "previous": v_first,
                                                          "candidate": v_bad}

    # re-running the gate for the champion itself (a retried step) changes nothing
    again = _evaluate(train_setup, v_good, "gate-again")
    assert again.outputs["promote"] == "true"
    assert client.get_registered_model(MODEL).aliases == {"champion": v_good, "previous": v_first,
                                                          "candidate": v_bad}
