"""The competent peer: a plain PyTorch training loop done right, none of aipipe's acceleration layer.

``DataLoader(num_workers=cores-1, pin_memory=True, persistent_workers=True, shuffle=True, drop_last=True)``,
bf16 autocast, channels_last, ``non_blocking`` copies, ``cudnn.benchmark``; the same model (the project's
ResNet-50), the same data and the same transforms (decode, random-resized crop, flip, in the workers;
normalisation on the GPU). No CUDA-stream prefetcher, no torch.compile: what a careful engineer writes
from the PyTorch docs. Time-boxed like ``train_bench``; prints one JSON line.

    python3 bench/train_peer.py DATASET_DIR [--window-s 30] [--batch 128]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mlkit.data import ImageDataset
from mlkit.model import IMAGENET_MEAN, IMAGENET_STD, build_model


class RandomAugmented(ImageDataset):
    """The project's train transforms with a fresh random draw per item (torchvision-style datasets)."""

    def __getitem__(self, key: Any) -> tuple[torch.Tensor, int]:
        return super().__getitem__((int(key), random.getrandbits(63)))


def _items(folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    manifest = json.loads((folder / "manifest.json").read_text())
    return [i for i in manifest["items"] if i["split"] == "train"], list(manifest["classes"])


def run_peer(folder: Path, *, arch: str, image_size: int, batch: int, crop_scale: tuple[float, float],
             window_s: float, warmup_steps: int, workers: int | None = None) -> dict[str, Any]:
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    items, classes = _items(folder)
    workers = max((os.cpu_count() or 2) - 1, 1) if workers is None else workers
    dataset = RandomAugmented(folder, items, classes, image_size, train=True, crop_scale=crop_scale)
    loader = DataLoader(dataset, batch_size=batch, shuffle=True, drop_last=True, num_workers=workers,
                        pin_memory=True, persistent_workers=True, prefetch_factor=4)
    torch.manual_seed(0)
    model = build_model(arch, len(classes)).to(device).to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    mean = torch.tensor(IMAGENET_MEAN, device=device).view(1, 3, 1, 1) * 255
    std = torch.tensor(IMAGENET_STD, device=device).view(1, 3, 1, 1) * 255

    def batches() -> Any:
        while True:
            yield from loader

    stream = batches()
    steps = images_seen = 0
    wait_s = 0.0
    start = None
    while True:
        if steps == warmup_steps:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            start, wait_s, images_seen = time.perf_counter(), 0.0, 0
        if start is not None and time.perf_counter() - start >= window_s:
            break
        t0 = time.perf_counter()
        images, labels = next(stream)
        wait_s += time.perf_counter() - t0
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        x = ((images.float() - mean) / std).contiguous(memory_format=torch.channels_last)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), labels)
        loss.backward()
        optimizer.step()
        steps += 1
        images_seen += labels.numel()
    torch.cuda.synchronize()
    assert start is not None
    elapsed = time.perf_counter() - start
    if not torch.isfinite(loss):
        raise SystemExit("peer: non-finite loss")
    return {"name": "competent_peer", "images_per_s": images_seen / elapsed, "data_wait_fraction": wait_s / elapsed,
            "step_ms": 1000 * elapsed / max(steps - warmup_steps, 1),
            "gpu_mem_gib": torch.cuda.max_memory_allocated() / 2**30, "steps": steps - warmup_steps,
            "settings": f"plain PyTorch: DataLoader(workers={workers}, pin_memory, persistent_workers), bf16 "
                        "autocast, channels_last, no prefetcher, no compile"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--min-crop-scale", type=float, default=0.08)
    parser.add_argument("--window-s", type=float, default=30.0)
    parser.add_argument("--warmup-steps", type=int, default=15)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("train_peer: needs a CUDA GPU", file=sys.stderr)
        return 2
    print(json.dumps(run_peer(args.folder, arch=args.arch, image_size=args.image_size, batch=args.batch,
                              crop_scale=(args.min_crop_scale, 1.0), window_s=args.window_s,
                              warmup_steps=args.warmup_steps, workers=args.workers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
