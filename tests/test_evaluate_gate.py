"""The evaluate gate against the real MLflow registry: first model → champion, better promoted, worse not."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlflow import MlflowClient

from aipipe.contract import EVALUATE
from aipipe.storage import Storage
from steps.evaluate.gate import decide
from steps.train.fixtures import write_tiny_model_bundle
from steps.train.tracking import MlflowTracker, register_bundle
from tests.fixtures_train import CLASSES, StepRun, TrainSetup, assert_ok

MODEL = "gate-model"


def _register(setup: TrainSetup, bundle: Path, label: str) -> str:
    """Register a model bundle the way the train step does (run artifacts + version + storage copy)."""
    tracker = MlflowTracker(setup.tracking_uri, "gate-tests", run_name=label)
    version, _ = register_bundle(tracker, bundle, MODEL, Storage(), setup.store.as_uri(),
                                 {"dataset_version": setup.learnable.version})
    tracker.finish()
    return version


def _evaluate(setup: TrainSetup, version: str, label: str, margin: str = "0.01") -> StepRun:
    args = ["--dataset-uri", setup.learnable.uri, "--model-name", MODEL, "--model-version", version,
            "--margin", margin]
    return assert_ok(setup.run_step("steps.evaluate", args, label), EVALUATE)


def test_margin_rule() -> None:
    assert decide(0.80, None, 0.01).promote
    assert decide(0.795, 0.80, 0.01).promote  # within the margin
    assert not decide(0.78, 0.80, 0.01).promote
    assert decide(0.90, 0.80, 0.0).promote


def test_gate_promotes_first_and_better_models_and_keeps_the_champion_against_a_worse_one(
        train_setup: TrainSetup, learnable_run: StepRun, shuffled_run: StepRun, tmp_path: Path) -> None:
    client = MlflowClient(train_setup.tracking_uri)
    untrained = write_tiny_model_bundle(tmp_path / "untrained", num_classes=3, image_size=32, classes=list(CLASSES))
    v_first = _register(train_setup, untrained, "untrained")

    first = _evaluate(train_setup, v_first, "gate-first")
    assert first.outputs["promote"] == "true" and first.outputs["champion_metric"] == ""
    assert client.get_registered_model(MODEL).aliases == {"champion": v_first}
    first_accuracy = float(first.outputs["candidate_metric"])

    v_good = _register(train_setup, train_setup.bundle("digits", learnable_run.outputs["model_version"]), "good")
    better = _evaluate(train_setup, v_good, "gate-better")
    assert better.outputs["promote"] == "true"
    assert float(better.outputs["champion_metric"]) == pytest.approx(first_accuracy)
    assert float(better.outputs["candidate_metric"]) == pytest.approx(float(learnable_run.outputs["val_accuracy"]))
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

    # a huge margin lets even the worse model through; the old champion becomes previous
    lenient = _evaluate(train_setup, v_bad, "gate-lenient", margin="1")
    assert lenient.outputs["promote"] == "true"
    assert client.get_registered_model(MODEL).aliases == {"champion": v_bad, "previous": v_good}

    # re-running the gate for the champion itself (a retried step) changes nothing
    again = _evaluate(train_setup, v_bad, "gate-again")
    assert again.outputs["promote"] == "true"
    assert client.get_registered_model(MODEL).aliases == {"champion": v_bad, "previous": v_good}
