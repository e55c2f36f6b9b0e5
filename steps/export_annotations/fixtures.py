"""Small real datasets for tests and benchmarks, written with the same code as the real export.

``write_tiny_dataset`` turns scikit-learn's bundled digits (8x8 greyscale scans) into a complete
dataset version folder — upscaled RGB PNGs, manifest, classes, ``_SUCCESS`` — without Label Studio.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from aipipe.storage import Storage, parse_uri

from .dataset import CLASSIFICATION, Item, build_manifest, publish, stage_image

TINY_PROJECT = "tiny-digits"


def digit_images(size: int) -> tuple[list[bytes], np.ndarray]:
    """Every scikit-learn digit as an RGB PNG of ``size`` x ``size`` pixels, and its target digit."""
    from PIL import Image
    from sklearn.datasets import load_digits

    digits = load_digits()
    pngs = []
    for pixels in digits.images:
        grey = Image.fromarray(np.uint8(np.clip(pixels * (255.0 / 16.0), 0, 255)), mode="L")
        rgb = grey.resize((size, size), Image.Resampling.BILINEAR).convert("RGB")
        buf = io.BytesIO()
        rgb.save(buf, format="PNG")
        pngs.append(buf.getvalue())
    return pngs, np.asarray(digits.target)


def write_tiny_dataset(root: Path, *, classes: Sequence[str] = ("0", "1", "2"), per_class: int = 20,
                       size: int = 32, val_fraction: float = 0.25, seed: int = 0,
                       shuffled_labels: bool = False) -> Path:
    """Write a complete dataset version under ``root/tiny-digits/<version>/``; returns that folder.

    Class ``i`` holds ``per_class`` digits ``i`` picked with ``seed``; class names are free text.
    ``shuffled_labels`` permutes the labels at random, so a model can only reach chance accuracy.
    The split is the real export's (hash of the item id), so it is roughly ``val_fraction``.
    """
    if not 1 <= len(classes) <= 10:
        raise ValueError("classes: between 1 and 10 names (one per digit 0-9)")
    if len(set(classes)) != len(classes):
        raise ValueError("classes: names must be unique")
    pngs, targets = digit_images(size)
    rng = np.random.default_rng(seed)
    chosen: list[tuple[int, str]] = []
    for digit, name in enumerate(classes):
        pool = np.flatnonzero(targets == digit)
        if per_class > len(pool):
            raise ValueError(f"per_class: at most {len(pool)} images of digit {digit}")
        chosen += [(int(index), name) for index in rng.choice(pool, size=per_class, replace=False)]
    labels = [name for _, name in chosen]
    if shuffled_labels:
        labels = [labels[i] for i in rng.permutation(len(labels))]
    root = Path(root).resolve()
    storage = Storage()
    with tempfile.TemporaryDirectory(prefix="aipipe-tiny-") as tmp:
        staging = Path(tmp)
        items = [Item(task_id=task_id, sha256=stage_image(staging, pngs[index], "png"), ext="png",
                      width=size, height=size, label=label)
                 for task_id, ((index, _), label) in enumerate(zip(chosen, labels, strict=True), start=1)]
        manifest = build_manifest(TINY_PROJECT, CLASSIFICATION, classes, items, val_fraction)
        result = publish(storage, root.as_uri(), TINY_PROJECT, manifest, staging)
    return Path(parse_uri(result.uri).key)
