"""The train step's Argo progress (``ARGO_PROGRESS_FILE``, ``N/M`` optimizer steps), as the live tree reads it:
``0/M`` before the first batch, then rising to ``M/M`` epoch by epoch."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import torch

from aipipe.storage import Storage
from mlkit.data import open_dataset
from steps.export_annotations.fixtures import write_tiny_dataset
from steps.train.trainer import TrainConfig, train


class ProgressReader:
    """A tracker that reads the progress file whenever the trainer logs (params first, metrics per epoch)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: list[str] = []

    def log_params(self, params: Mapping[str, Any]) -> None:
        self.seen.append(self.path.read_text())

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        self.seen.append(self.path.read_text())


def test_progress_starts_at_zero_and_reaches_every_epoch_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch.set_num_threads(1)
    folder = write_tiny_dataset(tmp_path / "data", per_class=8, size=16)
    data = open_dataset(Storage(), folder.as_uri(), tmp_path / "cache")
    progress = tmp_path / "progress"
    monkeypatch.setenv("ARGO_PROGRESS_FILE", str(progress))
    reader = ProgressReader(progress)
    cfg = TrainConfig(epochs=3, batch_size=4, image_size=16, num_workers=0, checkpoint_every=0, log_every=1000,
                      precision="fp32", hflip=False)
    result = train(cfg, data, device=torch.device("cpu"), tracker=reader)
    steps = result.global_step // cfg.epochs
    assert steps >= 2 and result.global_step == steps * cfg.epochs
    assert reader.seen == [f"0/{result.global_step}"] + [f"{steps * e}/{result.global_step}" for e in (1, 2, 3)]
