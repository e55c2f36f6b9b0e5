"""Scoring a model bundle on the held-out split, and the promotion rule."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader

from mlkit.accel.prefetch import DevicePlacer
from mlkit.data import DatasetVersion, ImageDataset
from mlkit.model import load_model_bundle


@dataclass(frozen=True)
class BundleScores:
    """A model's scores on one split."""

    accuracy: float
    loss: float | None  # None when the model's label map differs from the dataset's
    per_class_recall: dict[str, float | None]
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"accuracy": self.accuracy, "loss": self.loss, "per_class_recall": self.per_class_recall,
                "count": self.count}


@dataclass(frozen=True)
class Decision:
    promote: bool
    reason: str


def decide(candidate: float, champion: float | None, margin: float, min_accuracy: float = 0.0) -> Decision:
    """Refuse a candidate below ``min_accuracy``; else promote unless it is worse than the champion by more
    than ``margin``. The first model above the floor is promoted."""
    if candidate < min_accuracy:
        return Decision(False, f"candidate {candidate:.4f} is below the accuracy floor min_accuracy {min_accuracy}")
    if champion is None:
        return Decision(True, f"no champion yet and candidate {candidate:.4f} reaches min_accuracy {min_accuracy}")
    if candidate >= champion - margin:
        return Decision(True, f"candidate {candidate:.4f} is within {margin} of champion {champion:.4f} or better")
    return Decision(False, f"candidate {candidate:.4f} is worse than champion {champion:.4f} by more than {margin}")


@torch.no_grad()
def score_bundle(bundle_dir: Path, data: DatasetVersion, *, device: torch.device,
                 batch_size: int = 64) -> BundleScores:
    """Accuracy, per-class recall and mean cross-entropy of a model bundle on ``data``'s val split.

    Labels are matched by class name, so a champion trained on an older label map is still scored
    fairly (an item of a class it does not know counts as an error).
    """
    model, preprocess, model_classes = load_model_bundle(bundle_dir)
    model.to(device)
    size = int(preprocess["input_size"])
    items = ImageDataset(data.root, data.val_items, data.classes, size, train=False)
    placer = DevicePlacer(device, preprocess["mean"], preprocess["std"])
    logits_parts, label_parts = [], []
    for images, labels in DataLoader(items, batch_size=batch_size):
        x, _ = placer((images, labels))
        logits_parts.append(model(x).float().cpu())
        label_parts.append(labels)
    logits = torch.cat(logits_parts)
    labels = torch.cat(label_parts)
    predicted = [model_classes[i] for i in logits.argmax(dim=1).tolist()]
    truth = [data.classes[i] for i in labels.tolist()]
    hits = np.array([p == t for p, t in zip(predicted, truth, strict=True)])
    recall: dict[str, float | None] = {}
    for name in data.classes:
        mask = np.array([t == name for t in truth])
        recall[name] = float(hits[mask].mean()) if mask.any() else None
    loss = None
    if list(model_classes) == list(data.classes):
        loss = float(torch.nn.functional.cross_entropy(logits, labels).item())
    return BundleScores(accuracy=float(hits.mean()), loss=loss, per_class_recall=recall, count=len(truth))
