"""Decoding JPEGs on the GPU: nvJPEG batch decode, random-resized crop and flip on the device.

For a share of the items (``gpu_share``) the loader workers only read the file's bytes and draw its
augmentation (the same crop box and flip as :class:`mlkit.data.ImageDataset` draws from the
sample seed, from the JPEG header's size); they decode the others on the CPU as before. Then
:class:`GpuJpegDecoder` decodes the bytes with ``torchvision.io.decode_jpeg(device="cuda")``, crops and
resizes them in one ``roi_align`` call (bilinear, averaging as many samples per output pixel as the crop
shrinks by), flips, normalises, and joins the CPU-decoded items. torchvision's nvJPEG decoder runs one
batch at a time and does its Huffman stage on the calling CPU thread, so the two paths add up: the
workers and the GPU each decode part of every batch.
:class:`DecodeChooser` switches a run to it when the measured data wait stays above a threshold, and
back when the trial window is slower.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from PIL import Image, UnidentifiedImageError
from torch.utils.data import Dataset

from aipipe.errors import UserError
from mlkit.accel.prefetch import DevicePlacer
from mlkit.data import CROP_SCALE, ImageDataset, random_resized_box

log = logging.getLogger("aipipe.train")

JPEG_SUFFIXES = (".jpg", ".jpeg")
SWITCH_THRESHOLD = 0.05  # data wait share of step time above which a run decodes on the GPU
# share of each batch decoded on the GPU (the rest by the workers) when a run switches; on an H200 with 15 workers a
# sweep gave 6,262 img/s at 0.1 (0.2 % data wait), 6,031 at 0.2, 5,834 at 0.3, 6,054 with the workers alone
GPU_SHARE = 0.1
_EMPTY = torch.zeros(0, dtype=torch.uint8)
# (JPEG bytes, crop box, flip, label, the CPU-decoded image or None when the GPU decodes it)
JpegItem = tuple[torch.Tensor, torch.Tensor, bool, int, torch.Tensor | None]


class JpegBatch(NamedTuple):
    """A batch as the loader hands it over: the GPU items' JPEG files packed end to end in ONE tensor (a
    worker ships one shared-memory block per batch, not one per image, which had capped the path at ~2.4k
    img/s), their byte lengths, crop boxes, flips and labels; then the CPU-decoded items."""

    data: torch.Tensor  # uint8, every file's bytes one after another
    lengths: torch.Tensor  # int64, one per GPU item
    boxes: torch.Tensor
    flips: torch.Tensor
    labels: torch.Tensor
    cpu_images: torch.Tensor
    cpu_labels: torch.Tensor


class JpegBytesDataset(Dataset[JpegItem]):
    """Train items keyed by ``(index, sample_seed)``: a ``gpu_share`` of them as bytes + augmentation draws
    (for the GPU), the others decoded and augmented on the CPU exactly as :class:`ImageDataset` does."""

    def __init__(self, root: Path, items: Sequence[dict[str, Any]], classes: Sequence[str], *, image_size: int,
                 crop_scale: tuple[float, float] = CROP_SCALE, flip: bool = True, gpu_share: float = 1.0) -> None:
        label_ids = {name: i for i, name in enumerate(classes)}
        self.paths = [root / item["image"] for item in items]
        self.labels = [label_ids[item["label"]] for item in items]
        self.crop_scale = crop_scale
        self.flip = flip
        self.gpu_share = gpu_share
        self.cpu = ImageDataset(root, items, classes, image_size, train=True, crop_scale=crop_scale, flip=flip)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, key: tuple[int, int]) -> JpegItem:
        index, seed = key
        if self.gpu_share < 1.0 and random.Random(seed ^ 0x5DEECE66D).random() >= self.gpu_share:
            decoded, label = self.cpu[key]
            return _EMPTY, torch.zeros(4), False, label, decoded
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
        return raw, torch.tensor(box, dtype=torch.float32), flip, self.labels[index], None


def collate_jpegs(items: list[JpegItem]) -> JpegBatch:
    """The GPU's items packed (bytes, lengths, boxes, flips, labels), then the CPU-decoded ones."""
    gpu = [item for item in items if item[4] is None]
    cpu = [item for item in items if item[4] is not None]
    images = torch.stack([item[4] for item in cpu if item[4] is not None]) if cpu else torch.zeros(0)
    return JpegBatch(torch.cat([item[0] for item in gpu]) if gpu else _EMPTY,
                     torch.tensor([item[0].numel() for item in gpu], dtype=torch.int64),
                     torch.stack([item[1] for item in gpu]) if gpu else torch.zeros(0, 4),
                     torch.tensor([item[2] for item in gpu], dtype=torch.bool), torch.tensor([item[3] for item in gpu]),
                     images, torch.tensor([item[3] for item in cpu], dtype=torch.int64))


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
    """A placer for :class:`~mlkit.accel.prefetch.CudaPrefetcher`: JPEG bytes batch in, device batch out."""

    device: torch.device
    image_size: int
    mean: Sequence[float]
    std: Sequence[float]
    channels_last: bool = True
    _placer: DevicePlacer = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._placer = DevicePlacer(self.device, self.mean, self.std)  # the CPU-decoded share, and normalising

    def __call__(self, batch: JpegBatch) -> tuple[torch.Tensor, torch.Tensor]:
        parts, part_labels = [], []
        if len(batch.cpu_labels):
            parts.append(self._placer((batch.cpu_images, batch.cpu_labels))[0])
            part_labels.append(batch.cpu_labels)
        if len(batch.lengths):
            raws = list(torch.split(batch.data, batch.lengths.tolist()))
            parts.append(self._decode(raws, batch.boxes, batch.flips))
            part_labels.append(batch.labels)
        x = torch.cat(parts) if len(parts) > 1 else parts[0]
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return x, torch.cat(part_labels).to(self.device, non_blocking=True)

    def _decode(self, raws: list[torch.Tensor], boxes: torch.Tensor, flips: torch.Tensor) -> torch.Tensor:
        from torchvision.io import ImageReadMode, decode_jpeg
        from torchvision.ops import roi_align

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
        return self._placer.normalise(x)


def _decode_ahead(batches: Iterator[JpegBatch], decoder: GpuJpegDecoder, stream: torch.cuda.Stream,
                  out: queue.Queue[Any], stop: threading.Event) -> None:
    """Thread body: decode each host batch on ``stream``; hand (batch, event) on, or the exception, or the end."""
    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    try:
        with torch.cuda.stream(stream):
            for host in batches:
                images, labels = decoder(host)
                event = torch.cuda.Event()
                event.record(stream)
                if not put(((images, labels), event)):
                    return
    except Exception as exc:  # handed to the training thread, which raises it
        put(exc)
        return
    put(StopIteration())


class ThreadedDecodeBatches:
    """Device batches decoded ``depth`` ahead by a background thread on its own CUDA stream, so nvJPEG's host
    stage (Huffman decoding on the calling thread) overlaps the training step instead of delaying it."""

    def __init__(self, batches: Iterable[JpegBatch], decoder: GpuJpegDecoder, depth: int = 3) -> None:
        self.device = decoder.device
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        stream = torch.cuda.Stream(device=self.device)
        self._thread = threading.Thread(target=_decode_ahead, name="aipipe-gpu-decode", daemon=True,
                                        args=(iter(batches), decoder, stream, self._queue, self._stop))
        self._thread.start()

    def __iter__(self) -> ThreadedDecodeBatches:
        return self

    def __next__(self) -> tuple[torch.Tensor, torch.Tensor]:
        item = self._queue.get()
        if isinstance(item, StopIteration):
            raise StopIteration
        if isinstance(item, BaseException):
            raise item
        (images, labels), event = item
        compute = torch.cuda.current_stream(self.device)
        compute.wait_event(event)
        images.record_stream(compute)
        labels.record_stream(compute)
        return images, labels

    def close(self) -> None:
        """Stop the thread (it lets go of the loader, whose workers then exit)."""
        self._stop.set()

    def __del__(self) -> None:
        self._stop.set()


@dataclass
class DecodeChooser:
    """Watches data wait per window of steps: says ``"gpu"`` once a window waited over the threshold, then
    judges a trial window on the new path and says ``"cpu"`` (back, for good) when it ran slower."""

    enabled: bool
    window: int = 50  # steps per judged window: long enough that loader jitter does not start a trial
    threshold: float = SWITCH_THRESHOLD
    skip: int = 10  # steps not judged at the start and after a switch (compilation, cold workers)
    steps: int = 0
    state: str = "watch"  # watch -> trial -> done
    last_fraction: float | None = None
    cpu_steps_per_s: float = 0.0
    trial_steps_per_s: float = 0.0
    _since: int = 0
    _step_s: float = 0.0
    _data_s: float = 0.0

    def observe(self, step_s: float, data_s: float) -> str | None:
        """Record one step; ``"gpu"`` (switch to GPU decoding), ``"cpu"`` (switch back) or None."""
        if not self.enabled or self.state == "done":
            return None
        self.steps += 1
        self._since += 1
        if self._since <= self.skip:
            return None
        self._step_s += step_s
        self._data_s += data_s
        if (self._since - self.skip) % self.window:
            return None
        rate = self.window / self._step_s if self._step_s > 0 else 0.0
        self.last_fraction = self._data_s / self._step_s if self._step_s > 0 else 0.0
        self._step_s = self._data_s = 0.0
        if self.state == "watch":
            if self.last_fraction <= self.threshold:
                return None
            self.state, self.cpu_steps_per_s, self._since = "trial", rate, 0
            log.info("data wait %.1f%% of step time (> %.0f%%): trying JPEG decoding on the GPU",
                     100 * self.last_fraction, 100 * self.threshold)
            return "gpu"
        self.state, self.trial_steps_per_s = "done", rate
        if rate < self.cpu_steps_per_s:
            log.info("GPU decoding ran %.1f steps/s against %.1f on the CPU workers: back to CPU decoding",
                     rate, self.cpu_steps_per_s)
            return "cpu"
        log.info("GPU decoding: %.1f steps/s against %.1f on the CPU workers; keeping it", rate, self.cpu_steps_per_s)
        return None
