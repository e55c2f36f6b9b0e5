"""Decoding JPEGs on the GPU: nvJPEG batch decode, random-resized crop and flip on the device.

The loader workers only read each file's bytes and draw its augmentation (the same crop box and flip
as :class:`steps.train.data.ImageDataset` draws from the sample seed, from the JPEG header's size);
:class:`GpuJpegDecoder` decodes the batch with ``torchvision.io.decode_jpeg(device="cuda")``,
crops and resizes every image in one ``roi_align`` call (bilinear, averaging as many samples per output
pixel as the crop shrinks by), flips, normalises and hands an NCHW float batch to the step.
:class:`DecodeChooser` switches a run to it when the measured data wait stays above a threshold.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image, UnidentifiedImageError
from torch.utils.data import Dataset

from aipipe.errors import UserError
from steps.train.data import CROP_SCALE, random_resized_box

log = logging.getLogger("aipipe.train")

JPEG_SUFFIXES = (".jpg", ".jpeg")
SWITCH_THRESHOLD = 0.05  # data wait share of step time above which a run decodes on the GPU
JpegItem = tuple[torch.Tensor, torch.Tensor, bool, int]


class JpegBytesDataset(Dataset[JpegItem]):
    """Train items as (JPEG bytes, crop box, flip, label) keyed by ``(index, sample_seed)``."""

    def __init__(self, root: Path, items: Sequence[dict[str, Any]], classes: Sequence[str], *,
                 crop_scale: tuple[float, float] = CROP_SCALE, flip: bool = True) -> None:
        label_ids = {name: i for i, name in enumerate(classes)}
        self.paths = [root / item["image"] for item in items]
        self.labels = [label_ids[item["label"]] for item in items]
        self.crop_scale = crop_scale
        self.flip = flip

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, key: tuple[int, int]) -> JpegItem:
        index, seed = key
        path = self.paths[index]
        try:
            data = path.read_bytes()
            with Image.open(path) as image:  # reads the header only
                width, height = image.size
        except (OSError, UnidentifiedImageError) as exc:
            raise UserError(f"cannot read image: {exc}", field=str(path)) from exc
        rng = random.Random(seed)
        box = random_resized_box(width, height, rng, self.crop_scale)
        flip = self.flip and rng.random() < 0.5
        raw = torch.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())
        return raw, torch.tensor(box, dtype=torch.float32), flip, self.labels[index]


def collate_jpegs(items: list[JpegItem]) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor, torch.Tensor]:
    """Bytes stay a list (one tensor per file); boxes, flips and labels are stacked."""
    return ([raw for raw, _, _, _ in items], torch.stack([box for _, box, _, _ in items]),
            torch.tensor([flip for _, _, flip, _ in items]), torch.tensor([label for _, _, _, label in items]))


def all_jpeg(items: Sequence[dict[str, Any]]) -> bool:
    """Whether every item's file is a JPEG by its name (the GPU path decodes JPEG only)."""
    return bool(items) and all(str(item["image"]).lower().endswith(JPEG_SUFFIXES) for item in items)


def gpu_decode_available(device: torch.device) -> bool:
    """A CUDA device and torchvision's GPU JPEG decoder."""
    if device.type != "cuda":
        return False
    try:
        from torchvision.io import decode_jpeg  # noqa: F401
        from torchvision.ops import roi_align  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class GpuJpegDecoder:
    """A placer for :class:`~steps.train.accel.prefetch.CudaPrefetcher`: JPEG bytes batch in, device batch out."""

    device: torch.device
    image_size: int
    mean: Sequence[float]
    std: Sequence[float]
    channels_last: bool = True
    _scale: torch.Tensor = field(init=False, repr=False)
    _shift: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        std = torch.tensor(self.std, dtype=torch.float32).view(1, -1, 1, 1)
        mean = torch.tensor(self.mean, dtype=torch.float32).view(1, -1, 1, 1)
        self._scale = (1.0 / (255.0 * std)).to(self.device)
        self._shift = (-mean / std).to(self.device)

    def __call__(self, batch: tuple[list[torch.Tensor], torch.Tensor, torch.Tensor, torch.Tensor]
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        from torchvision.io import ImageReadMode, decode_jpeg
        from torchvision.ops import roi_align

        raws, boxes, flips, labels = batch
        images = decode_jpeg(raws, mode=ImageReadMode.RGB, device=self.device)
        height, width = max(int(i.shape[1]) for i in images), max(int(i.shape[2]) for i in images)
        if all(tuple(i.shape[1:]) == (height, width) for i in images):
            stacked = torch.stack(images)
        else:  # mixed sizes: pad to the largest (the boxes lie inside each image)
            stacked = torch.zeros((len(images), 3, height, width), dtype=torch.uint8, device=self.device)
            for n, image in enumerate(images):
                stacked[n, :, :image.shape[1], :image.shape[2]] = image
        rois = torch.cat([torch.arange(len(images), dtype=torch.float32).unsqueeze(1), boxes], dim=1)
        x = roi_align(stacked.float(), rois.to(self.device, non_blocking=True), (self.image_size, self.image_size),
                      spatial_scale=1.0, sampling_ratio=0, aligned=True)
        flips = flips.to(self.device, non_blocking=True)
        x = torch.where(flips.view(-1, 1, 1, 1), x.flip(3), x)
        x = torch.addcmul(self._shift, x, self._scale)
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return x, labels.to(self.device, non_blocking=True)


@dataclass
class DecodeChooser:
    """Watches data wait per window of steps and says once when a run should switch to GPU decoding."""

    enabled: bool
    window: int = 20
    threshold: float = SWITCH_THRESHOLD
    skip: int = 10  # the first steps (compilation, cold workers) are not judged
    steps: int = 0
    _step_s: float = 0.0
    _data_s: float = 0.0
    last_fraction: float | None = None

    def observe(self, step_s: float, data_s: float) -> bool:
        """Record one step; True exactly once, when a full window's data wait exceeded the threshold."""
        if not self.enabled:
            return False
        self.steps += 1
        if self.steps <= self.skip:
            return False
        self._step_s += step_s
        self._data_s += data_s
        if (self.steps - self.skip) % self.window:
            return False
        self.last_fraction = self._data_s / self._step_s if self._step_s > 0 else 0.0
        self._step_s = self._data_s = 0.0
        if self.last_fraction > self.threshold:
            self.enabled = False
            log.info("data wait %.1f%% of step time (> %.0f%%): decoding JPEGs on the GPU from now on",
                     100 * self.last_fraction, 100 * self.threshold)
            return True
        return False
