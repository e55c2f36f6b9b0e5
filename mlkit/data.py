"""Reading a dataset version (local or S3) and turning its images into training batches.

The dataset is refused before any training when it is incomplete (no ``_SUCCESS``), empty, or has
fewer than two classes. Decoding (PNG/JPEG with PIL) and augmentation (random-resized crop,
horizontal flip) run in DataLoader workers; items come out as uint8 CHW tensors and are
normalised on the device (see :mod:`mlkit.accel.prefetch`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image, UnidentifiedImageError
from torch.utils.data import Dataset

from aipipe.contract import CLASSES_FILE, DATASET_MANIFEST, SUCCESS_MARKER
from aipipe.errors import UserError
from aipipe.storage import Storage, join

CROP_SCALE = (0.25, 1.0)  # area share of a random-resized crop; small images cannot lose more
CROP_RATIO = (3 / 4, 4 / 3)


@dataclass(frozen=True)
class DatasetVersion:
    """A complete dataset version available on the local filesystem."""

    uri: str
    root: Path
    version: str
    classes: list[str]
    train_items: list[dict[str, Any]]
    val_items: list[dict[str, Any]]


def _local_copy(storage: Storage, uri: str, cache_dir: Path) -> Path:
    """The dataset folder on local disk: the folder itself for file://, else a cached download."""
    local = storage.local_path(uri)
    if local is not None:
        return local
    target = cache_dir / hashlib.sha256(uri.encode()).hexdigest()[:16]
    if not (target / SUCCESS_MARKER).is_file():
        staging = target.with_name(target.name + ".partial")
        storage.download_dir(uri, staging)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    return target


def open_dataset(storage: Storage, uri: str, cache_dir: Path) -> DatasetVersion:
    """Check and open a classification dataset version; every refusal is a :class:`UserError`."""
    if not storage.exists(join(uri, SUCCESS_MARKER)):
        raise UserError(f"dataset at {uri} has no {SUCCESS_MARKER} marker: it is incomplete or absent",
                        field="dataset-uri")
    root = _local_copy(storage, uri, cache_dir)
    try:
        manifest = json.loads((root / DATASET_MANIFEST).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read {DATASET_MANIFEST}: {exc}", field="dataset-uri") from exc
    if manifest.get("task", "classification") != "classification":
        raise UserError(f"the train step handles classification datasets, this one is {manifest.get('task')!r}",
                        field="dataset-uri")
    classes = list(manifest.get("classes") or [])
    classes_file = root / CLASSES_FILE
    if classes_file.is_file():
        classes = list(json.loads(classes_file.read_text()))
    items = list(manifest.get("items") or [])
    if not items:
        raise UserError("the dataset is empty: no labelled items", field="dataset-uri")
    used = sorted({item["label"] for item in items})
    if len(classes) < 2 or len(used) < 2:
        raise UserError(f"the dataset has a single class ({', '.join(used) or '-'}); a classifier needs at "
                        "least two", field="dataset-uri")
    unknown = [label for label in used if label not in classes]
    if unknown:
        raise UserError(f"items use labels missing from classes.json: {unknown}", field="dataset-uri")
    train = [item for item in items if item.get("split") == "train"]
    val = [item for item in items if item.get("split") == "val"]
    if not train or not val:
        raise UserError(f"the dataset needs items in both splits (train {len(train)}, val {len(val)})",
                        field="dataset-uri")
    return DatasetVersion(uri=uri, root=root, version=str(manifest.get("version", "")), classes=classes,
                          train_items=train, val_items=val)


def load_rgb(path: Path, target_size: int) -> Image.Image:
    """Decode an image as RGB; JPEGs are decoded at the smallest DCT scale still ≥ ``target_size``."""
    try:
        image = Image.open(path)
        if image.format == "JPEG":
            image.draft("RGB", (target_size, target_size))
        image.load()  # decode now, so a truncated file fails here with its name
        return image if image.mode == "RGB" else image.convert("RGB")
    except (OSError, UnidentifiedImageError) as exc:
        raise UserError(f"cannot decode image: {exc}", field=str(path)) from exc


def random_resized_box(width: int, height: int, rng: random.Random,
                       scale: tuple[float, float] = CROP_SCALE,
                       ratio: tuple[float, float] = CROP_RATIO) -> tuple[int, int, int, int]:
    """A random crop box (left, top, right, bottom) of ``scale`` area share and ``ratio`` aspect."""
    area = width * height
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target = area * rng.uniform(*scale)
        aspect = math.exp(rng.uniform(*log_ratio))
        w = round(math.sqrt(target * aspect))
        h = round(math.sqrt(target / aspect))
        if 0 < w <= width and 0 < h <= height:
            left = rng.randint(0, width - w)
            top = rng.randint(0, height - h)
            return left, top, left + w, top + h
    side = min(width, height)  # fallback: the central square
    left, top = (width - side) // 2, (height - side) // 2
    return left, top, left + side, top + side


def to_chw_uint8(image: Image.Image) -> torch.Tensor:
    """A PIL RGB image as a uint8 CHW tensor."""
    return torch.from_numpy(np.array(image, dtype=np.uint8)).permute(2, 0, 1)


class ImageDataset(Dataset[tuple[torch.Tensor, int]]):
    """Items of one split: train keys are ``(index, sample_seed)`` (augmented), val keys plain indices.

    Validation resizes the whole image to ``image_size`` square, exactly as serving does from
    ``preprocess.json``.
    """

    def __init__(self, root: Path, items: Sequence[Mapping[str, Any]], classes: Sequence[str], image_size: int,
                 *, train: bool, crop_scale: tuple[float, float] = CROP_SCALE, flip: bool = True) -> None:
        label_ids = {name: i for i, name in enumerate(classes)}
        self.paths = [root / item["image"] for item in items]
        self.labels = [label_ids[item["label"]] for item in items]
        self.image_size = image_size
        self.train = train
        self.crop_scale = crop_scale
        self.flip = flip

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, key: int | tuple[int, int]) -> tuple[torch.Tensor, int]:
        index, seed = key if isinstance(key, tuple) else (key, 0)
        image = load_rgb(self.paths[index], self.image_size)
        size = (self.image_size, self.image_size)
        if self.train:
            rng = random.Random(seed)
            box = random_resized_box(image.width, image.height, rng, self.crop_scale)
            image = image.resize(size, Image.Resampling.BILINEAR, box=box)
            if self.flip and rng.random() < 0.5:
                image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        else:
            image = image.resize(size, Image.Resampling.BILINEAR)
        return to_chw_uint8(image), self.labels[index]


def preprocess_image(image: Image.Image, spec: Mapping[str, Any]) -> np.ndarray:
    """One PIL image → float32 CHW array as described by ``preprocess.json`` (the serving transform)."""
    size = int(spec["input_size"])
    rgb = image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
    array = np.asarray(rgb, dtype=np.float32) / 255.0
    mean = np.asarray(spec["mean"], dtype=np.float32)
    std = np.asarray(spec["std"], dtype=np.float32)
    return ((array - mean) / std).transpose(2, 0, 1).copy()

