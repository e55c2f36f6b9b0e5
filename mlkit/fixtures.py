"""Fixtures: a complete model bundle from a randomly initialised resnet_tiny; a synthetic JPEG dataset."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from aipipe.contract import CLASSES_FILE, DATASET_MANIFEST, SUCCESS_MARKER
from mlkit.export import write_model_bundle
from mlkit.model import build_model, model_config, preprocess_spec


def write_tiny_model_bundle(dest: Path, *, num_classes: int = 3, image_size: int = 32, seed: int = 0,
                            classes: list[str] | None = None) -> Path:
    """Write a contract model bundle (ONNX, safetensors, config, classes, preprocess) into ``dest``.

    Uses the train step's own export code. BatchNorm statistics are warmed on random inputs so the
    model's outputs depend on its input (a freshly initialised ResNet is near-constant).
    """
    names = list(classes) if classes is not None else [f"class_{i}" for i in range(num_classes)]
    if len(names) != num_classes:
        raise ValueError(f"{len(names)} class names for {num_classes} classes")
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = build_model("resnet_tiny", num_classes)
        for module in model.modules():  # random BN gains, so no residual branch starts as zero
            if isinstance(module, torch.nn.BatchNorm2d):
                torch.nn.init.uniform_(module.weight, 0.5, 1.5, generator=generator)
        head = model.fc
        assert isinstance(head, torch.nn.Linear)
        torch.nn.init.normal_(head.weight, 0.0, 1.0, generator=generator)  # logits spread ~±1
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.rand(8, 3, image_size, image_size, generator=generator))
    model.eval()
    return write_model_bundle(Path(dest), model, model_config("resnet_tiny", num_classes), names,
                              preprocess_spec(image_size))


def _synthetic_jpeg(args: tuple[int, int, int, int]) -> tuple[bytes, int]:
    """One learnable synthetic photo: class-coloured oriented grating plus noise, as JPEG bytes."""
    index, label, num_classes, size = args
    rng = np.random.default_rng(index)
    angle = np.pi * label / num_classes + rng.normal(0, 0.08)
    freq = 2 * np.pi * rng.uniform(6, 10) / size
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    wave = np.sin(freq * (xx * np.cos(angle) + yy * np.sin(angle)) + rng.uniform(0, 2 * np.pi))
    hue = np.array([np.cos(2 * np.pi * label / num_classes + k * 2.1) for k in range(3)], dtype=np.float32)
    image = 128 + 60 * wave[..., None] * (0.6 + 0.4 * hue) + rng.normal(0, 18, (size, size, 3))
    buffer = io.BytesIO()
    Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue(), label


def write_synthetic_jpeg_dataset(root: Path, *, num_images: int, size: int = 320, num_classes: int = 10,
                                 val_fraction: float = 0.1, processes: int | None = None) -> Path:
    """Write a classification dataset version of generated JPEG photos in the contract layout.

    For benchmarks and GPU checks (no Label Studio): ``root/<version>/`` with manifest.json,
    classes.json, images/ and _SUCCESS. Classes differ by colour and grating angle, so a model learns.
    """
    jobs = [(i, i % num_classes, num_classes, size) for i in range(num_images)]
    with Pool(processes) as pool:
        encoded = pool.map(_synthetic_jpeg, jobs, chunksize=64)
    classes = [f"class_{i}" for i in range(num_classes)]
    staging = Path(root) / ".staging"
    (staging / "images").mkdir(parents=True, exist_ok=True)
    items = []
    for index, (data, label) in enumerate(encoded):
        sha = hashlib.sha256(data).hexdigest()
        (staging / "images" / f"{sha}.jpg").write_bytes(data)
        split = "val" if (index * 0.6180339887) % 1.0 < val_fraction else "train"
        items.append({"id": index, "image": f"images/{sha}.jpg", "sha256": sha, "width": size, "height": size,
                      "label": classes[label], "label_id": label, "split": split})
    body = {"task": "classification", "classes": classes, "items": items}
    version = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    (staging / CLASSES_FILE).write_text(json.dumps(classes))
    (staging / DATASET_MANIFEST).write_text(json.dumps({"version": version, "project": "synthetic", **body}))
    (staging / SUCCESS_MARKER).write_text("")
    target = Path(root) / version
    if target.exists():
        shutil.rmtree(staging)
        return target
    staging.rename(target)
    return target
