"""Scoring a classifier on a split: confusion matrix and summed loss, reducible across DDP ranks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from mlkit.accel.amp import Precision, autocast


@dataclass
class Scores:
    """Confusion counts (rows = true class, columns = predicted) and the summed cross-entropy."""

    confusion: torch.Tensor
    loss_sum: float

    @property
    def count(self) -> int:
        return int(self.confusion.sum().item())

    @property
    def accuracy(self) -> float:
        return float(self.confusion.diag().sum().item()) / max(self.count, 1)

    @property
    def loss(self) -> float:
        return self.loss_sum / max(self.count, 1)

    def per_class_recall(self, classes: list[str]) -> dict[str, float | None]:
        """Recall of each class (None for a class absent from the split)."""
        support = self.confusion.sum(dim=1)
        return {name: (float(self.confusion[i, i].item()) / float(support[i].item()) if support[i] > 0 else None)
                for i, name in enumerate(classes)}


@torch.no_grad()
def score(model: nn.Module, batches: Iterable[tuple[torch.Tensor, torch.Tensor]], num_classes: int,
          precision: Precision, device: torch.device) -> Scores:
    """Run ``model`` in eval mode over device batches and count (true, predicted) pairs."""
    was_training = model.training
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    for images, labels in batches:
        with autocast(precision, device):
            logits = model(images)
        logits = logits.float()
        loss_sum += F.cross_entropy(logits, labels, reduction="sum").double()
        predicted = logits.argmax(dim=1)
        confusion += torch.bincount(labels * num_classes + predicted, minlength=num_classes**2).view(
            num_classes, num_classes)
    model.train(was_training)
    return Scores(confusion=confusion, loss_sum=float(loss_sum.item()))


def reduce_scores(scores: Scores, device: torch.device) -> Scores:
    """Sum the scores of every DDP rank (identity in a single process)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return scores
    confusion = scores.confusion.to(device)
    loss = torch.tensor([scores.loss_sum], dtype=torch.float64, device=device)
    dist.all_reduce(confusion)
    dist.all_reduce(loss)
    return Scores(confusion=confusion, loss_sum=float(loss.item()))
