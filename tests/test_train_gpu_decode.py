"""The GPU decode path's CPU side: the same augmentation draws as the CPU loader, and when it switches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PIL import Image

from steps.train.accel.gpu_decode import DecodeChooser, JpegBytesDataset, all_jpeg, collate_jpegs
from steps.train.data import ImageDataset


def test_jpeg_bytes_items_carry_the_cpu_loaders_crop_and_flip(tmp_path: Path):
    rng = np.random.default_rng(0)
    items = []
    for i, (w, h) in enumerate([(96, 64), (64, 80), (120, 120)]):
        Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(tmp_path / f"{i}.jpg", quality=95)
        items.append({"image": f"{i}.jpg", "label": "ab"[i % 2]})
    # 64 px: the CPU loader decodes these JPEGs at full size (no DCT downscaling), so the boxes match exactly
    cpu = ImageDataset(tmp_path, items, ["a", "b"], 64, train=True)
    gpu = JpegBytesDataset(tmp_path, items, ["a", "b"])
    flips = set()
    for index in range(3):
        for seed in range(8):
            raw, box, flip, label = gpu[(index, seed)]
            assert bytes(raw.numpy()) == (tmp_path / items[index]["image"]).read_bytes() and label == index % 2
            with Image.open(tmp_path / items[index]["image"]) as image:
                expected = image.convert("RGB").resize((64, 64), Image.Resampling.BILINEAR,
                                                       box=tuple(int(v) for v in box.tolist()))
            if flip:
                expected = expected.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
            image_cpu, _ = cpu[(index, seed)]
            assert torch.equal(image_cpu, torch.from_numpy(np.array(expected)).permute(2, 0, 1))
            flips.add(flip)
    assert flips == {True, False}
    raws, boxes, flip_t, labels = collate_jpegs([gpu[(0, 1)], gpu[(1, 2)]])
    assert len(raws) == 2 and boxes.shape == (2, 4) and flip_t.dtype == torch.bool and labels.tolist() == [0, 1]
    assert all_jpeg(items) and not all_jpeg([*items, {"image": "x.png", "label": "a"}])


def test_chooser_switches_once_after_a_window_of_high_data_wait():
    chooser = DecodeChooser(enabled=True, window=4, skip=2, threshold=0.05)
    assert not any(chooser.observe(1.0, 0.9) for _ in range(2))  # skipped: compilation, cold workers
    assert not any(chooser.observe(1.0, 0.01) for _ in range(4)) and chooser.last_fraction == 0.01
    decisions = [chooser.observe(1.0, 0.2) for _ in range(4)]
    assert decisions == [False, False, False, True] and chooser.last_fraction == 0.2
    assert not any(chooser.observe(1.0, 0.9) for _ in range(8))  # said once
    assert not DecodeChooser(enabled=False).observe(1.0, 1.0)
