"""Calibration and held-out samples from a dataset version, preprocessed as serving does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aipipe.errors import UserError
from aipipe.storage import Storage


@dataclass(frozen=True)
class Samples:
    """Preprocessed float32 NCHW images of the held-out split, with their label ids."""

    images: np.ndarray
    labels: np.ndarray

    def head(self, count: int) -> np.ndarray:
        return self.images[:count]


def load_samples(storage: Storage, dataset_uri: str, preprocess: Mapping[str, Any], classes: list[str],
                 cache_dir: Path, limit: int) -> Samples:
    """The dataset's validation items (up to ``limit``), preprocessed with the model's ``preprocess.json``."""
    from mlkit.data import load_rgb, open_dataset, preprocess_image

    data = open_dataset(storage, dataset_uri, cache_dir)
    if list(data.classes) != list(classes):
        raise UserError(f"the dataset's classes {data.classes} differ from the model's label map {classes}",
                        field="dataset-uri")
    size = int(preprocess["input_size"])
    items = data.val_items[:limit]
    images = np.stack([preprocess_image(load_rgb(data.root / item["image"], size), preprocess) for item in items])
    labels = np.array([classes.index(item["label"]) for item in items], dtype=np.int64)
    return Samples(images.astype(np.float32), labels)
