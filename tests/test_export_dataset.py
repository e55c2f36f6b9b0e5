"""The dataset version code: split, content-addressed version, resumable publish, tiny fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aipipe.contract import CLASSES_FILE, DATASET_MANIFEST, SUCCESS_MARKER
from aipipe.storage import Storage
from steps.export_annotations.dataset import (
    CLASSIFICATION,
    DETECTION,
    Box,
    Item,
    build_manifest,
    publish,
    split_of,
    stage_image,
)
from steps.export_annotations.fixtures import write_tiny_dataset


def test_split_depends_on_task_id_only_and_matches_fraction() -> None:
    splits = [split_of(task_id, 0.2) for task_id in range(1, 5001)]
    assert splits == [split_of(task_id, 0.2) for task_id in range(1, 5001)]
    assert 0.17 < splits.count("val") / len(splits) < 0.23
    assert all(split_of(t, 0.0) == "train" for t in range(100))
    assert all(split_of(t, 1.0) == "val" for t in range(100))


def _items(staging: Path, labels: dict[int, str]) -> list[Item]:
    return [Item(task_id=t, sha256=stage_image(staging, f"img-{t}".encode(), "png"), ext="png", width=8, height=8,
                 label=label) for t, label in labels.items()]


def test_version_is_a_hash_of_images_labels_and_split(tmp_path: Path) -> None:
    base = build_manifest("p", CLASSIFICATION, ["a", "b"], _items(tmp_path, {1: "a", 2: "b"}), 0.5)
    reordered = build_manifest("p", CLASSIFICATION, ["a", "b"], _items(tmp_path, {2: "b", 1: "a"}), 0.5)
    relabelled = build_manifest("p", CLASSIFICATION, ["a", "b"], _items(tmp_path, {1: "b", 2: "b"}), 0.5)
    resplit = build_manifest("p", CLASSIFICATION, ["a", "b"], _items(tmp_path, {1: "a", 2: "b"}), 0.0)
    assert base["version"] == reordered["version"]
    assert len({base["version"], relabelled["version"], resplit["version"]}) == 3
    assert [r["label_id"] for r in base["items"]] == [0, 1]


def test_publish_is_idempotent_and_resumes(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    items = _items(staging, {t: "ab"[t % 2] for t in range(1, 11)})
    manifest = build_manifest("p", CLASSIFICATION, ["a", "b"], items, 0.3)
    root = (tmp_path / "store").as_uri()
    storage = Storage()
    keys = {t: f"{t}:2024" for t in range(1, 11)}
    first = publish(storage, root, "p", manifest, staging, keys)
    version_dir = tmp_path / "store" / "p" / manifest["version"]
    assert first.changed and first.num_new == 10 and first.uploaded == 10 + 2 + 1 + 1
    assert (version_dir / SUCCESS_MARKER).is_file()
    again = publish(storage, root, "p", manifest, staging, keys)
    assert (again.changed, again.num_new, again.uploaded, again.already_complete) == (False, 0, 0, True)
    # an interrupted upload: a few images there, no manifest, no marker
    for name in (SUCCESS_MARKER, DATASET_MANIFEST, CLASSES_FILE):
        (version_dir / name).unlink()
    for image in sorted((version_dir / "images").iterdir())[:6]:
        image.unlink()
    resumed = publish(Storage(), root, "p", manifest, staging, keys)
    assert resumed.uploaded == 6 + 2 + 1  # the missing images, classes + manifest, marker; pointer unchanged
    assert json.loads((version_dir / DATASET_MANIFEST).read_text()) == manifest


def test_detection_version_has_yolo_labels_and_coco(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    sha = stage_image(staging, b"det", "png")
    item = Item(task_id=7, sha256=sha, ext="png", width=100, height=50,
                boxes=(Box("cat", 1, 0.5, 0.5, 0.2, 0.4),))
    manifest = build_manifest("d", DETECTION, ["dog", "cat"], [item], 0.0)
    result = publish(Storage(), (tmp_path / "store").as_uri(), "d", manifest, staging)
    folder = tmp_path / "store" / "d" / result.version
    assert (folder / f"labels/{sha}.txt").read_text() == "1 0.500000 0.500000 0.200000 0.400000\n"
    coco = json.loads((folder / "coco.json").read_text())
    assert coco["annotations"][0]["bbox"] == [40.0, 15.0, 20.0, 20.0]
    assert coco["categories"] == [{"id": 0, "name": "dog"}, {"id": 1, "name": "cat"}]


def test_tiny_dataset_is_a_complete_version(tmp_path: Path) -> None:
    from PIL import Image

    folder = write_tiny_dataset(tmp_path, classes=("zero", "one"), per_class=10, size=24)
    manifest = json.loads((folder / DATASET_MANIFEST).read_text())
    assert folder.name == manifest["version"]
    assert json.loads((folder / CLASSES_FILE).read_text()) == ["zero", "one"]
    assert (folder / SUCCESS_MARKER).is_file() and len(manifest["items"]) == 20
    assert {r["split"] for r in manifest["items"]} == {"train", "val"}
    with Image.open(folder / manifest["items"][0]["image"]) as image:
        assert (image.mode, image.size) == ("RGB", (24, 24))
    assert write_tiny_dataset(tmp_path, classes=("zero", "one"), per_class=10, size=24) == folder
    shuffled = write_tiny_dataset(tmp_path, classes=("zero", "one"), per_class=10, size=24, shuffled_labels=True)
    assert shuffled != folder
    with pytest.raises(ValueError, match="per_class"):
        write_tiny_dataset(tmp_path, per_class=10_000)
