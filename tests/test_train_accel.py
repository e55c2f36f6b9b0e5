"""The acceleration layer's pieces on CPU: sampler, loader, placement, precision, timing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from torch.utils.data import DataLoader

from aipipe.errors import UserError
from aipipe.storage import Storage
from mlkit.accel import (
    AccelSettings,
    DevicePlacer,
    LoaderSettings,
    ShardedEpochSampler,
    StepTimer,
    auto_num_workers,
    build_loader,
    resolve_precision,
)
from mlkit.data import ImageDataset, open_dataset, preprocess_image, random_resized_box
from mlkit.model import IMAGENET_MEAN, IMAGENET_STD, preprocess_spec
from steps.export_annotations.fixtures import write_tiny_dataset

torch.set_num_threads(1)
CPU = torch.device("cpu")


def _flatten(batches: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    return [key for batch in batches for key in batch]


def test_ddp_ranks_together_see_exactly_the_single_process_accumulation_batches() -> None:
    single = ShardedEpochSampler(50, 4, seed=7, grad_accum=2)
    ranks = [ShardedEpochSampler(50, 4, seed=7, rank=r, world_size=2) for r in range(2)]
    for sampler in (single, *ranks):
        sampler.set_epoch(3)
    assert single.steps_per_epoch == ranks[0].steps_per_epoch == 50 // 8
    one = list(single)
    per_rank = [list(s) for s in ranks]
    for step in range(single.steps_per_epoch):
        assert one[2 * step] == per_rank[0][step] and one[2 * step + 1] == per_rank[1][step]


def test_epochs_reshuffle_and_resume_skips_done_steps() -> None:
    sampler = ShardedEpochSampler(40, 4, seed=0)
    sampler.set_epoch(0)
    epoch0 = list(sampler)
    sampler.set_epoch(1)
    epoch1 = list(sampler)
    assert [i for i, _ in _flatten(epoch0)] != [i for i, _ in _flatten(epoch1)]
    assert sorted(i for i, _ in _flatten(epoch0)) == list(range(40))
    sampler.set_epoch(1, start_step=3)
    assert list(sampler) == epoch1[3:] and len(sampler) == len(epoch1) - 3


def test_auto_workers_are_usable_cpus_minus_one() -> None:
    cpus = len(os.sched_getaffinity(0))
    assert auto_num_workers() == max(cpus - 1, 0)
    assert auto_num_workers(local_world_size=cpus * 4) == 0
    assert LoaderSettings(0, True, True, 4).resolved() == LoaderSettings(0, True, False, None)


def test_precision_resolution_on_cpu() -> None:
    assert resolve_precision("auto", CPU).name == "fp32"
    assert resolve_precision("bf16", CPU).dtype == torch.bfloat16
    with pytest.raises(UserError, match="fp16 autocast needs a CUDA GPU"):
        resolve_precision("fp16", CPU)


def test_accel_settings_become_params() -> None:
    settings = AccelSettings(num_workers=3, pin_memory=True, persistent_workers=True, prefetch_factor=None,
                             cuda_prefetcher=True, precision="bf16", channels_last=True, compile=False,
                             grad_accum=2, deterministic=False, world_size=1)
    params = settings.as_params()
    assert params["accel.num_workers"] == 3 and params["accel.prefetch_factor"] == "none"
    assert all(key.startswith("accel.") for key in params)


def test_step_timer_splits_data_wait_and_hints_when_data_bound() -> None:
    timer = StepTimer()
    for _ in range(3):
        with timer.data():
            time.sleep(0.02)
        time.sleep(0.02)
        timer.step_done(8)
    assert 0.2 < timer.data_wait_fraction < 0.8  # ~0.5; sleeps overshoot on a loaded machine
    assert timer.samples == 24 and "data_time" in timer.log_line()
    hint = timer.hint(num_workers=1)
    assert hint is not None and "--num-workers (now 1)" in hint
    timer.reset()
    with timer.data():
        pass
    time.sleep(0.02)
    timer.step_done(8)
    assert timer.hint(num_workers=1) is None


def test_device_normalisation_matches_the_serving_preprocess(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    image = Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8))
    expected = preprocess_image(image, preprocess_spec(32))
    chw = torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1)
    placed, labels = DevicePlacer(CPU, IMAGENET_MEAN, IMAGENET_STD)((chw[None], torch.tensor([1])))
    assert np.abs(placed[0].numpy() - expected).max() < 1e-5 and labels.tolist() == [1]


def test_random_resized_box_stays_inside_and_is_reproducible() -> None:
    for seed in range(200):
        box = random_resized_box(40, 30, random.Random(seed))
        left, top, right, bottom = box
        assert 0 <= left < right <= 40 and 0 <= top < bottom <= 30
        assert box == random_resized_box(40, 30, random.Random(seed))


def test_augmented_stream_is_identical_with_and_without_workers(tmp_path: Path) -> None:
    root = write_tiny_dataset(tmp_path, classes=("a", "b"), per_class=8, size=32)
    data = open_dataset(Storage(), root.as_uri(), tmp_path / "cache")
    dataset = ImageDataset(data.root, data.train_items, data.classes, 24, train=True)
    sampler = ShardedEpochSampler(len(dataset), 4, seed=1)
    sampler.set_epoch(2)
    inline = [b for b, _ in build_loader(dataset, sampler, LoaderSettings(num_workers=0))]
    workers = [b for b, _ in build_loader(dataset, sampler, LoaderSettings(num_workers=2, prefetch_factor=2))]
    assert len(inline) == len(workers) > 0
    assert all(torch.equal(a, b) for a, b in zip(inline, workers, strict=True))
    assert inline[0].dtype == torch.uint8 and inline[0].shape[1:] == (3, 24, 24)
    plain = next(iter(DataLoader(ImageDataset(data.root, data.val_items, data.classes, 24, train=False),
                                 batch_size=2)))
    assert plain[0].shape[1:] == (3, 24, 24)


def test_gpu_side_code_imports_without_mlflow_minio_hera_or_safetensors() -> None:
    # the GPU machine has none of these; training, the benchmark and the GPU check must still import
    code = (
        "import importlib.util, sys\n"
        "for name in ('mlflow', 'minio', 'hera', 'label_studio_sdk', 'safetensors', 'requests'):\n"
        "    sys.modules[name] = None\n"
        "import steps.train.trainer, mlkit.accel, mlkit.fixtures, bench.train_bench\n"
        "spec = importlib.util.spec_from_file_location('check', 'tests/gpu/check_train_gpu.py')\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    )
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr[-2000:]
