"""Checkpoints: atomic commit, scoping by run and dataset version, pruning, corrupt-latest fallback."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from aipipe.storage import Storage, parse_uri
from mlkit.accel.seeding import capture_rng_state, restore_rng_state
from steps.train.checkpoint import MARKER_SUFFIX, CheckpointStore, checkpoint_prefix
from tests.fixtures_s3 import S3Server

torch.set_num_threads(1)


def _state(step: int) -> dict:
    return {"model": {"w": torch.full((3,), float(step))}, "global_step": step, "history": [{"loss": 1.0}]}


def _store(tmp_path: Path, run_id: str = "run-a", version: str = "v1") -> CheckpointStore:
    return CheckpointStore(Storage(), checkpoint_prefix(tmp_path.as_uri(), "model", run_id, version))


def test_prefix_is_scoped_to_run_and_dataset_version(tmp_path: Path) -> None:
    assert checkpoint_prefix("s3://b/root", "m", "wf-1", "abc") == "s3://b/root/checkpoints/m/wf-1/abc"
    _store(tmp_path).save(_state(5), 5)
    assert _store(tmp_path).load_latest()["global_step"] == 5  # a retry of the same run resumes
    assert _store(tmp_path, run_id="run-b").load_latest() is None  # tonight's run starts fresh
    assert _store(tmp_path, version="v2").load_latest() is None  # so does a new dataset version


def test_latest_loads_and_old_ones_are_pruned(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for step in (5, 10, 15, 20):
        store.save(_state(step), step)
    assert store.steps() == [20, 15]
    state = store.load_latest()
    assert state["global_step"] == 20 and torch.equal(state["model"]["w"], torch.full((3,), 20.0))


def test_corrupt_latest_falls_back_to_previous_with_a_warning(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    store = _store(tmp_path)
    store.save(_state(5), 5)
    uri = store.save(_state(10), 10)
    path = Path(parse_uri(uri).key)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # truncated, e.g. a disk fault
    with caplog.at_level(logging.WARNING, logger="aipipe.train"):
        state = store.load_latest()
    assert state["global_step"] == 5
    assert "ckpt-000000010.pt is unusable" in caplog.text and "falling back" in caplog.text


def test_checkpoint_that_needs_unpickling_code_is_refused(tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    store = _store(tmp_path)
    store.save(_state(5), 5)
    store.save({"model": {}, "global_step": 10, "payload": Path("/etc/passwd")}, 10)  # arbitrary object
    with caplog.at_level(logging.WARNING, logger="aipipe.train"):
        assert store.load_latest()["global_step"] == 5
    assert "unusable" in caplog.text


def test_checkpoint_without_commit_marker_is_invisible(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save(_state(5), 5)
    uri = store.save(_state(10), 10)
    Path(parse_uri(uri + MARKER_SUFFIX).key).unlink()  # killed between the data and its marker
    assert store.steps() == [5]
    assert store.load_latest()["global_step"] == 5


def test_no_usable_checkpoint_means_a_fresh_start(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.load_latest() is None
    uri = store.save(_state(5), 5)
    Path(parse_uri(uri).key).write_bytes(b"garbage")
    assert store.load_latest() is None


def test_rng_states_survive_a_weights_only_round_trip(tmp_path: Path) -> None:
    random.seed(1)
    np.random.seed(2)
    torch.manual_seed(3)
    torch.save({"rng": capture_rng_state()}, tmp_path / "rng.pt")
    expected = (random.random(), np.random.rand(), torch.rand(2))
    restore_rng_state(torch.load(tmp_path / "rng.pt", weights_only=True)["rng"])
    got = (random.random(), np.random.rand(), torch.rand(2))
    assert expected[0] == got[0] and expected[1] == got[1] and torch.equal(expected[2], got[2])


def test_checkpoints_on_s3(s3_server: S3Server, caplog: pytest.LogCaptureFixture) -> None:
    storage = s3_server.storage()
    store = CheckpointStore(storage, checkpoint_prefix(s3_server.fresh_root(), "m", "wf", "v"))
    store.save(_state(5), 5)
    uri = store.save(_state(10), 10)
    assert store.steps() == [10, 5]
    storage.put_bytes(uri, b"not a checkpoint")  # corrupt the latest object in place
    with caplog.at_level(logging.WARNING, logger="aipipe.train"):
        assert store.load_latest()["global_step"] == 5
    assert "falling back" in caplog.text
