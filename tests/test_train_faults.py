"""Bad datasets are refused before training; a NaN loss stops the run naming the step."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import torch

from aipipe.errors import UserError
from aipipe.storage import Storage
from mlkit.data import open_dataset
from steps.export_annotations.fixtures import write_tiny_dataset
from steps.train.trainer import NonFiniteLoss, TrainConfig, train
from tests.fixtures_s3 import S3Server

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_dataset(tmp_path_factory.mktemp("faults"), classes=("a", "b"), per_class=12, size=32)


def test_missing_success_marker_is_refused(small_dataset: Path, tmp_path: Path) -> None:
    copy = tmp_path / "incomplete"
    copy.mkdir()
    for name in ("manifest.json", "classes.json"):
        (copy / name).write_bytes((small_dataset / name).read_bytes())
    with pytest.raises(UserError, match="no _SUCCESS marker"):
        open_dataset(Storage(), copy.as_uri(), tmp_path / "cache")


def test_empty_dataset_is_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"version": "x", "task": "classification",
                                                        "classes": ["a", "b"], "items": []}))
    (tmp_path / "_SUCCESS").write_text("")
    with pytest.raises(UserError, match="empty"):
        open_dataset(Storage(), tmp_path.as_uri(), tmp_path / "cache")


def test_one_class_dataset_is_refused(tmp_path: Path) -> None:
    single = write_tiny_dataset(tmp_path / "single", classes=("only",), per_class=10, size=32)
    with pytest.raises(UserError, match="single class") as info:
        open_dataset(Storage(), single.as_uri(), tmp_path / "cache")
    assert info.value.field == "dataset-uri"


def test_dataset_is_read_from_s3_into_a_cache(small_dataset: Path, s3_server: S3Server, tmp_path: Path) -> None:
    storage = s3_server.storage()
    uri = s3_server.fresh_root() + "/datasets/tiny/v1"
    storage.upload_dir(small_dataset, uri)
    data = open_dataset(storage, uri, tmp_path / "cache")
    assert data.classes == ["a", "b"] and data.root.is_relative_to(tmp_path / "cache")
    downloads = storage.stats.downloads
    again = open_dataset(storage, uri, tmp_path / "cache")
    assert again.root == data.root and storage.stats.downloads == downloads  # served from the cache


def test_nan_loss_stops_with_the_step_named(small_dataset: Path, tmp_path: Path) -> None:
    data = open_dataset(Storage(), small_dataset.as_uri(), tmp_path / "cache")
    cfg = TrainConfig(lr=1e10, epochs=3, batch_size=4, image_size=32, num_workers=0, checkpoint_every=0)
    with pytest.raises(NonFiniteLoss, match=r"NaN/inf at global step \d+ \(epoch \d+\)") as info:
        train(cfg, data, device=torch.device("cpu"))
    assert info.value.exit_code == 2


def test_batch_larger_than_the_split_shrinks_and_impossible_steps_are_user_errors(
        small_dataset: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = open_dataset(Storage(), small_dataset.as_uri(), tmp_path / "cache")
    cfg = TrainConfig(batch_size=512, epochs=1, image_size=32, num_workers=0, checkpoint_every=0)
    with caplog.at_level(logging.WARNING, logger="aipipe.train"):
        result = train(cfg, data, device=torch.device("cpu"))
    assert result.global_step == 1 and f"using {len(data.train_items)}" in caplog.text
    with pytest.raises(UserError, match="cannot fill one step"):
        train(TrainConfig(grad_accum=512, image_size=32, num_workers=0), data, device=torch.device("cpu"))


def test_undecodable_image_names_the_file(tmp_path: Path) -> None:
    from mlkit.data import load_rgb

    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    with pytest.raises(UserError, match="cannot decode image") as info:
        load_rgb(broken, 32)
    assert info.value.field == str(broken)
