"""The GPU decode path's CPU side: the same augmentation draws as the CPU loader, and when it switches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PIL import Image

from mlkit.accel.gpu_decode import DecodeChooser, JpegBatch, JpegBytesDataset, all_jpeg, collate_jpegs
from mlkit.data import ImageDataset


def test_jpeg_bytes_items_carry_the_cpu_loaders_crop_and_flip(tmp_path: Path):
    rng = np.random.default_rng(0)
    items = []
    for i, (w, h) in enumerate([(96, 64), (64, 80), (120, 120)]):
        Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(tmp_path / f"{i}.jpg", quality=95)
        items.append({"image": f"{i}.jpg", "label": "ab"[i % 2]})
    # 64 px: the CPU loader decodes these JPEGs at full size (no DCT downscaling), so the boxes match exactly
    cpu = ImageDataset(tmp_path, items, ["a", "b"], 64, train=True)
    gpu = JpegBytesDataset(tmp_path, items, ["a", "b"], image_size=64)
    flips = set()
    for index in range(3):
        for seed in range(8):
            raw, box, flip, label, decoded = gpu[(index, seed)]
            assert decoded is None
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
    data, lengths, boxes, flip_t, labels, images, cpu_labels = collate_jpegs([gpu[(0, 1)], gpu[(1, 2)]])
    assert len(lengths) == 2 and boxes.shape == (2, 4) and flip_t.dtype == torch.bool and labels.tolist() == [0, 1]
    assert data.numel() == int(lengths.sum()) and bytes(data[:2].tolist()) == b"\xff\xd8"  # packed JPEG files
    assert images.numel() == 0 and cpu_labels.numel() == 0
    # a share of the items decoded by the workers: exactly the CPU loader's image, the rest left as bytes
    half = JpegBytesDataset(tmp_path, items, ["a", "b"], image_size=64, gpu_share=0.5)
    keys = [(i % 3, seed) for i, seed in enumerate(range(40))]
    on_cpu = [k for k in keys if half[k][4] is not None]
    assert 5 < len(on_cpu) < 35
    for key in on_cpu[:3]:
        assert torch.equal(half[key][4], cpu[key][0]) and half[key][3] == cpu[key][1]
    _, lengths, boxes, _, labels, images, cpu_labels = collate_jpegs([half[k] for k in keys])
    assert len(lengths) + len(cpu_labels) == 40 and images.shape == (len(on_cpu), 3, 64, 64)
    assert all_jpeg(items) and not all_jpeg([*items, {"image": "x.png", "label": "a"}])


def test_chooser_switches_after_high_data_wait_and_back_when_the_trial_is_slower():
    chooser = DecodeChooser(enabled=True, window=4, skip=2, threshold=0.05)
    assert not any(chooser.observe(1.0, 0.9) for _ in range(2))  # skipped: compilation, cold workers
    assert not any(chooser.observe(1.0, 0.01) for _ in range(4)) and chooser.last_fraction == 0.01
    decisions = [chooser.observe(1.0, 0.2) for _ in range(4)]
    assert decisions == [None, None, None, "gpu"] and chooser.last_fraction == 0.2
    assert not any(chooser.observe(5.0, 4.0) for _ in range(2))  # the new path's first steps are not judged
    decisions = [chooser.observe(2.0, 1.0) for _ in range(4)]  # 0.5 steps/s against 1.0 before
    assert decisions == [None, None, None, "cpu"] and chooser.state == "done"
    assert not any(chooser.observe(1.0, 0.9) for _ in range(12))  # decided for good

    faster = DecodeChooser(enabled=True, window=2, skip=0)
    assert [faster.observe(1.0, 0.5) for _ in range(2)] == [None, "gpu"]
    assert [faster.observe(0.5, 0.0) for _ in range(2)] == [None, None] and faster.state == "done"
    assert faster.trial_steps_per_s == 2.0 and faster.cpu_steps_per_s == 1.0
    assert DecodeChooser(enabled=False).observe(1.0, 1.0) is None


def test_the_decoders_cpu_decoded_share_is_normalised_as_the_plain_placer_does():
    from mlkit.accel import DevicePlacer
    from mlkit.accel.gpu_decode import GpuJpegDecoder

    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    images = torch.randint(0, 256, (4, 3, 8, 8), dtype=torch.uint8)
    labels = torch.tensor([0, 1, 1, 0])
    decoder = GpuJpegDecoder(torch.device("cpu"), image_size=8, mean=mean, std=std, channels_last=False)
    x, y = decoder(JpegBatch(torch.empty(0, dtype=torch.uint8), torch.empty(0, dtype=torch.int64), torch.empty(0, 4),
                             torch.empty(0, dtype=torch.bool), torch.empty(0), images, labels))
    expected, _ = DevicePlacer(torch.device("cpu"), mean, std)((images, labels))
    assert torch.equal(y, labels) and torch.allclose(x, expected)
    assert torch.allclose(x[:, 0], (images[:, 0].float() / 255 - mean[0]) / std[0], atol=1e-5)
