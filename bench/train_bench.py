"""Training throughput: the naive loop, the acceleration layer and a competent plain-PyTorch peer.

Workload (fixed): a ResNet-50 classifier at 224 px, batch 128, on >= 4k generated 320 px JPEGs
with decode + random-resized crop + flip; plus the GPU-resident rates (same model, data already on
the GPU, bf16, channels_last), eager and under torch.compile (default mode and CUDA graphs).
Data wait is the GPU's idle time waiting for each batch (CUDA events, :class:`StepTimer`).

- naive: ``num_workers=0``, fp32, no prefetcher, no pinned memory;
- accelerated: what the trainer does by default on a GPU: workers = cores - 1 (niced, so the training
  process wins the CPU), pinned memory, persistent workers, CUDA-stream prefetcher, bf16 autocast,
  channels_last, torch.compile replayed as CUDA graphs on one GPU (with its eager fallback; the
  default compile mode, as before, is measured beside it), and the decode path chosen by measured
  data wait (CPU workers, or nvJPEG on the GPU once a window of steps waited > 5 %); the two decode
  paths are also measured forced;
- competent_peer: ``bench/train_peer.py`` in its own process (DataLoader(num_workers=cores-1,
  pin_memory, persistent_workers), bf16 autocast, channels_last; no prefetcher, no compile);
- with 2+ GPUs also the accelerated loop under 2-rank NCCL DDP (torchrun), for the scaling.

Each loop warms up, then runs a time-boxed window; it reports images/s, the share of step time
spent waiting for data, and peak GPU memory. Goals: accelerated >= 1.15x the competent peer,
>= 0.95x the compiled GPU-resident rate, data wait <= 5 %.

    python3 bench/train_bench.py            # on the GPU machine, ~8 min
    python3 bench/train_bench.py --quick    # CPU smoke test, < 1 min
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results_io import write_result
from mlkit.accel import (
    CudaPrefetcher,
    DevicePlacer,
    HostBatches,
    LoaderSettings,
    ShardedEpochSampler,
    StepTimer,
    auto_num_workers,
    autocast,
    build_loader,
    make_grad_scaler,
    resolve_precision,
)
from mlkit.accel.amp import Precision
from mlkit.accel.compiled import CompiledOrEager, training_compile_mode
from mlkit.accel.gpu_decode import (
    GPU_SHARE,
    DecodeChooser,
    GpuJpegDecoder,
    JpegBytesDataset,
    ThreadedDecodeBatches,
    all_jpeg,
    collate_jpegs,
    gpu_decode_available,
)
from mlkit.accel.loader import TRAINING_WORKER_NICE
from mlkit.data import DatasetVersion, ImageDataset
from mlkit.fixtures import write_synthetic_jpeg_dataset
from mlkit.model import IMAGENET_MEAN, IMAGENET_STD, build_model

BENCH_CROP_SCALE = (0.08, 1.0)  # the usual ImageNet random-resized-crop range


@dataclass(frozen=True)
class Workload:
    arch: str
    num_images: int
    source_size: int
    image_size: int
    batch_size: int
    num_classes: int
    warmup_steps: int
    window_s: float
    workers: int


FULL = Workload("resnet50", 4096, 320, 224, 128, 10, warmup_steps=15, window_s=30.0, workers=auto_num_workers())
QUICK = Workload("resnet_tiny", 96, 64, 32, 16, 4, warmup_steps=2, window_s=3.0, workers=max(auto_num_workers(), 1))


@dataclass
class LoopResult:
    name: str
    images_per_s: float
    data_wait_fraction: float
    step_ms: float
    gpu_mem_gib: float
    steps: int
    settings: str


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _train_step(model: Any, optimizer: torch.optim.Optimizer, precision: Precision,
                device: torch.device) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    scaler = make_grad_scaler(precision, device)

    def step(images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        with autocast(precision, device):
            logits = model(images)
        loss = F.cross_entropy(logits.float(), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss.detach()

    return step


class _EndlessBatches:
    """Batch sampler running epoch after epoch without a break: a 4k-image set behaves like a large one
    (no pipeline drain at epoch ends, which a real multi-hour epoch would not have either)."""

    def __init__(self, sampler: ShardedEpochSampler) -> None:
        self.sampler = sampler

    def __iter__(self) -> Iterator[list[tuple[int, int]]]:
        epoch = 0
        while True:
            self.sampler.set_epoch(epoch)
            yield from self.sampler
            epoch += 1


def measure(name: str, batches: Iterator[tuple[torch.Tensor, torch.Tensor]], model: Any,
            precision: Precision, device: torch.device, work: Workload, settings: str | Callable[[], str],
            max_warmup_steps: int = 400) -> LoopResult:
    """Warm up, then run a time-boxed window; data wait is the time blocked on ``next(batches)``.

    ``batches`` may watch the loop (``observe(step_s, data_s)``, like the trainer's decode chooser) and
    say when it has settled (``settled()``): the warm-up lasts until then, at most ``max_warmup_steps``.
    """
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = _train_step(model, optimizer, precision, device)
    observe = getattr(batches, "observe", None)
    settled = getattr(batches, "settled", None)
    losses = []
    warm = StepTimer(device=device)
    for done in range(1, max_warmup_steps + 1):
        with warm.data():
            images, labels = next(batches)
        losses.append(step(images, labels))
        warm.step_done(labels.numel())
        if observe is not None:
            observe(warm.last_step_s, warm.last_data_s)
        if done >= work.warmup_steps and (settled is None or settled()):
            break
    _sync(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    timer = StepTimer(device=device)
    start = time.perf_counter()
    while time.perf_counter() - start < work.window_s:
        with timer.data():
            images, labels = next(batches)
        losses.append(step(images, labels))
        timer.step_done(labels.numel())
        if observe is not None:
            observe(timer.last_step_s, timer.last_data_s)
    _sync(device)
    elapsed = time.perf_counter() - start
    if not torch.isfinite(torch.stack(losses)).all():
        raise SystemExit(f"{name}: non-finite loss during the benchmark")
    memory = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else 0.0
    return LoopResult(name, timer.samples / elapsed, timer.data_s / elapsed, 1000 * elapsed / max(timer.steps, 1),
                      memory, timer.steps, settings() if callable(settings) else settings)


def _model(work: Workload, device: torch.device, channels_last: bool, compile_model: bool,
           mode: str | None = None) -> Any:
    torch.manual_seed(0)
    model = build_model(work.arch, work.num_classes).to(device)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    return CompiledOrEager(model, mode) if compile_model else model  # the trainer's compile, with its fallback


def _loader_batches(data: DatasetVersion, work: Workload, settings: LoaderSettings, placer: DevicePlacer,
                    prefetch: bool) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    dataset = ImageDataset(data.root, data.train_items, data.classes, work.image_size, train=True,
                           crop_scale=BENCH_CROP_SCALE)
    loader = build_loader(dataset, _EndlessBatches(ShardedEpochSampler(len(dataset), work.batch_size, seed=0)),
                          settings)
    return iter(CudaPrefetcher(loader, placer) if prefetch else HostBatches(loader, placer))


def _gpu_decode_batches(data: DatasetVersion, work: Workload, settings: LoaderSettings, device: torch.device,
                        share: float = GPU_SHARE) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    dataset = JpegBytesDataset(data.root, data.train_items, data.classes, image_size=work.image_size,
                               crop_scale=BENCH_CROP_SCALE, gpu_share=share)
    loader = build_loader(dataset, _EndlessBatches(ShardedEpochSampler(len(dataset), work.batch_size, seed=0)),
                          settings, collate_fn=collate_jpegs)
    decoder = GpuJpegDecoder(device, work.image_size, IMAGENET_MEAN, IMAGENET_STD, True)
    return ThreadedDecodeBatches(loader, decoder)


class _AutoDecodeBatches:
    """The trainer's choice: CPU decode in the workers, switched once to GPU decode when the data wait of a
    window of steps exceeds the threshold (:class:`DecodeChooser`)."""

    def __init__(self, data: DatasetVersion, work: Workload, settings: LoaderSettings, device: torch.device) -> None:
        self.data, self.work, self.settings, self.device = data, work, settings, device
        self.chooser = DecodeChooser(enabled=gpu_decode_available(device) and all_jpeg(data.train_items))
        self.current = _loader_batches(data, work, settings, DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, True),
                                       prefetch=True)
        self.decode, self.switched_at = "cpu", -1

    def __iter__(self) -> _AutoDecodeBatches:
        return self

    def __next__(self) -> tuple[torch.Tensor, torch.Tensor]:
        return next(self.current)

    def observe(self, step_s: float, data_s: float) -> None:
        decision = self.chooser.observe(step_s, data_s)
        if decision == "gpu":
            self.current = _gpu_decode_batches(self.data, self.work, self.settings, self.device)
            self.decode, self.switched_at = f"gpu share {GPU_SHARE:g} + cpu", self.chooser.steps
        elif decision == "cpu":
            placer = DevicePlacer(self.device, IMAGENET_MEAN, IMAGENET_STD, True)
            self.current = _loader_batches(self.data, self.work, self.settings, placer, prefetch=True)
            self.decode = "cpu (gpu trial slower)"

    def settled(self) -> bool:
        """Decided (trial judged), or watched three windows after the skipped steps without switching."""
        c = self.chooser
        return not c.enabled or c.state == "done" or (c.state == "watch" and c.steps >= c.skip + 3 * c.window)

    def describe(self) -> str:
        c = self.chooser
        seen = f"; trigger window data wait {c.last_fraction:.1%}" if c.last_fraction is not None else ""
        trial = (f"; trial {c.trial_steps_per_s:.1f} vs cpu {c.cpu_steps_per_s:.1f} steps/s"
                 if c.trial_steps_per_s else "")
        at = f" from step {self.switched_at}" if self.switched_at >= 0 else ""
        return f"decode={self.decode}{at} (auto{seen}{trial})"


def decode_difference(data: DatasetVersion, work: Workload, device: torch.device, count: int = 32) -> float:
    """Mean absolute difference (0-255 pixel units) between the CPU loader's and the GPU decoder's batches
    for the same keys: the two paths apply the same transform."""
    cpu = ImageDataset(data.root, data.train_items, data.classes, work.image_size, train=True,
                       crop_scale=BENCH_CROP_SCALE)
    gpu = JpegBytesDataset(data.root, data.train_items, data.classes, image_size=work.image_size,
                           crop_scale=BENCH_CROP_SCALE)
    keys = [(i, 1000 + i) for i in range(min(count, len(cpu)))]
    expected = torch.stack([cpu[k][0] for k in keys]).to(device).float()
    decoder = GpuJpegDecoder(device, work.image_size, IMAGENET_MEAN, IMAGENET_STD, False)
    normalised, _ = decoder(collate_jpegs([gpu[k] for k in keys]))
    std = torch.tensor(IMAGENET_STD, device=device).view(1, 3, 1, 1)
    mean = torch.tensor(IMAGENET_MEAN, device=device).view(1, 3, 1, 1)
    pixels = (normalised * std + mean) * 255.0
    return float((pixels - expected).abs().mean())


def _resident_batches(work: Workload, device: torch.device, channels_last: bool
                      ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator(device="cpu").manual_seed(0)
    pool = []
    for _ in range(4):
        images = torch.randint(0, 256, (work.batch_size, 3, work.image_size, work.image_size), dtype=torch.uint8,
                               generator=generator)
        labels = torch.randint(0, work.num_classes, (work.batch_size,), generator=generator)
        pool.append(DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, channels_last)((images, labels)))
    while True:
        yield from pool


def read_synthetic(folder: Path) -> DatasetVersion:
    """The generated dataset version (a complete folder in the contract layout)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    return DatasetVersion(uri=folder.as_uri(), root=folder, version=manifest["version"], classes=manifest["classes"],
                          train_items=[i for i in manifest["items"] if i["split"] == "train"],
                          val_items=[i for i in manifest["items"] if i["split"] == "val"])


def run_peer(folder: Path, work: Workload) -> LoopResult | None:
    """bench/train_peer.py in its own process on the same data: the competent plain-PyTorch loop."""
    cmd = [sys.executable, str(Path(__file__).resolve().parent / "train_peer.py"), str(folder), "--arch", work.arch,
           "--image-size", str(work.image_size), "--batch", str(work.batch_size), "--window-s", str(work.window_s),
           "--min-crop-scale", str(BENCH_CROP_SCALE[0]), "--workers", str(work.workers),
           "--warmup-steps", str(work.warmup_steps)]
    root = str(Path(__file__).resolve().parents[1])
    proc = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": root}, capture_output=True, text=True, check=False,
                          timeout=600)
    if proc.returncode != 0:
        print(f"peer: exited {proc.returncode}: {proc.stderr[-2000:]}", file=sys.stderr)
        return None
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"competent peer: {row['images_per_s']:.1f} img/s", flush=True)
    return LoopResult(**row)


def run(work: Workload, compile_model: bool | None, quick: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True  # for every loop alike
    on_gpu = device.type == "cuda"
    compiled = on_gpu if compile_model is None else compile_model  # the trainer's default
    fast = resolve_precision("auto", device)
    fp32 = resolve_precision("fp32", device)
    extra: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="aipipe-train-bench-") as tmp:
        t0 = time.perf_counter()
        folder = write_synthetic_jpeg_dataset(Path(tmp), num_images=work.num_images, size=work.source_size,
                                              num_classes=work.num_classes, processes=max(work.workers, 1))
        data = read_synthetic(folder)
        print(f"generated {work.num_images} {work.source_size}px JPEGs in {time.perf_counter() - t0:.1f}s; "
              f"{len(data.train_items)} train items, device {device}, workers {work.workers}", flush=True)
        naive = measure(
            "naive", _loader_batches(data, work, LoaderSettings(0, False, False, None),
                                     DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD), prefetch=False),
            _model(work, device, False, False), fp32, device, work, "workers=0 fp32 no-prefetch no-pin")
        print(f"naive: {naive.images_per_s:.1f} img/s", flush=True)
        nice = TRAINING_WORKER_NICE if on_gpu else 0
        tuned = LoaderSettings(work.workers, pin_memory=on_gpu, persistent_workers=True, prefetch_factor=4,
                               worker_nice=nice)
        mode = training_compile_mode(device, distributed=False)
        base = (f"workers={work.workers} (nice +{nice}) {fast.name} prefetcher={on_gpu} pin={on_gpu} "
                f"channels_last={on_gpu} compile={compiled} ({mode or 'default'})")
        model = _model(work, device, on_gpu, compiled, mode)  # the trainer's: compiled once, shared by its loops
        loops: list[LoopResult] = []
        if on_gpu:
            auto = _AutoDecodeBatches(data, work, tuned, device)
            accel = measure("accelerated", auto, model, fast, device, work, lambda: f"{base} {auto.describe()}")
            extra["decode_chosen"] = auto.decode
            auto.current = iter(())  # let its loader's workers go before the next loop
            del auto
            gc.collect()
            print(f"accelerated: {accel.images_per_s:.1f} img/s ({extra['decode_chosen']} decode)", flush=True)
            if compiled and mode is not None:  # the layer before CUDA graphs and niced workers, same run
                default_model = _model(work, device, True, True)
                loops.append(measure("accelerated_default_compile", _loader_batches(
                    data, work, replace(tuned, worker_nice=0),
                    DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, True), prefetch=True),
                    default_model, fast, device, work,
                    f"workers={work.workers} (not niced) {fast.name} prefetcher, pin, channels_last, "
                    "torch.compile (default mode), decode=cpu"))
                gc.collect()
            loops.append(measure("accelerated_cpu_decode", _loader_batches(
                data, work, tuned, DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, True), prefetch=True),
                model, fast, device, work, f"{base} decode=cpu (forced)"))
            gc.collect()
            if gpu_decode_available(device):
                loops.append(measure("accelerated_hybrid_decode", _gpu_decode_batches(data, work, tuned, device),
                                     model, fast, device, work,
                                     f"{base} decode=nvJPEG for {GPU_SHARE:.0%} of each batch + workers (forced)"))
                gc.collect()
                loops.append(measure("accelerated_gpu_decode", _gpu_decode_batches(data, work, tuned, device, 1.0),
                                     model, fast, device, work, f"{base} decode=nvJPEG for all (forced)"))
                gc.collect()
                extra["gpu_decode_mean_abs_diff_px"] = round(decode_difference(data, work, device), 3)
            for loop in loops:
                print(f"{loop.name}: {loop.images_per_s:.1f} img/s", flush=True)
            peer = run_peer(folder, work)
            if peer is not None:
                loops.append(peer)
        else:
            accel = measure("accelerated", _loader_batches(data, work, tuned, DevicePlacer(
                device, IMAGENET_MEAN, IMAGENET_STD, False), prefetch=False), model, fast, device, work, base)
        ddp = run_ddp(folder, work, compiled) if on_gpu and torch.cuda.device_count() >= 2 else None
    resident = measure("gpu_resident", _resident_batches(work, device, on_gpu), _model(work, device, on_gpu, False),
                       fast, device, work, f"data on device, {fast.name}, channels_last={on_gpu}, eager")
    if on_gpu and compiled:
        loops.append(measure("gpu_resident_compiled", _resident_batches(work, device, on_gpu),
                             default_model if mode is not None else model, fast, device, work,
                             f"data on device, {fast.name}, channels_last=True, torch.compile (default mode)"))
        if mode is not None:
            loops.append(measure("gpu_resident_compiled_cuda_graphs", _resident_batches(work, device, on_gpu), model,
                                 fast, device, work, f"data on device, {fast.name}, channels_last=True, "
                                 f"torch.compile ({mode})"))
    results = [naive, accel, resident, *loops, *([ddp] if ddp else [])]
    rows = [{"loop": r.name, "images_per_s": round(r.images_per_s, 1),
             "data_wait_fraction": round(r.data_wait_fraction, 4), "step_ms": round(r.step_ms, 2),
             "gpu_mem_gib": round(r.gpu_mem_gib, 2), "steps": r.steps, "settings": r.settings} for r in results]
    by_name = {r.name: r for r in results}
    speedup = accel.images_per_s / naive.images_per_s
    ratio = resident.images_per_s / accel.images_per_s
    summary: dict[str, Any] = {
        "speedup_images_per_s": round(speedup, 3),
        "data_wait_fraction": round(accel.data_wait_fraction, 4),
        "ratio_to_gpu_resident_limit": round(ratio, 3),
        "naive_images_per_s": round(naive.images_per_s, 1),
        "accelerated_images_per_s": round(accel.images_per_s, 1),
        "gpu_resident_images_per_s": round(resident.images_per_s, 1),
        "naive_data_wait_fraction": round(naive.data_wait_fraction, 4),
        "naive_is_data_bound": naive.data_wait_fraction >= 0.5,
        "compile": compiled,
        "worker_nice": nice,
        **extra,
    }
    if "competent_peer" in by_name:
        peer_rate = by_name["competent_peer"].images_per_s
        summary.update(speedup_vs_tuned_peer=round(accel.images_per_s / peer_rate, 3),
                       peer_images_per_s=round(peer_rate, 1),
                       peer_data_wait_fraction=round(by_name["competent_peer"].data_wait_fraction, 4))
    if "gpu_resident_compiled" in by_name:
        compiled_rate = by_name["gpu_resident_compiled"].images_per_s
        summary.update(ratio_to_compiled_resident=round(accel.images_per_s / compiled_rate, 3),
                       compiled_resident_images_per_s=round(compiled_rate, 1))
    if "gpu_resident_compiled_cuda_graphs" in by_name:  # the strictest ceiling: the same CUDA graphs, no loader
        graphs_rate = by_name["gpu_resident_compiled_cuda_graphs"].images_per_s
        summary.update(ratio_to_compiled_resident_cuda_graphs=round(accel.images_per_s / graphs_rate, 3),
                       compiled_resident_cuda_graphs_images_per_s=round(graphs_rate, 1))
    if "accelerated_default_compile" in by_name:
        summary["accelerated_default_compile_images_per_s"] = round(
            by_name["accelerated_default_compile"].images_per_s, 1)
    summary["compile_mode"] = mode if compiled else None
    summary["goals"] = {"speedup_vs_tuned_peer": ">= 1.15", "ratio_to_compiled_resident": ">= 0.95",
                        "data_wait_fraction": "<= 0.05"}
    summary["workload"] = (f"{work.arch} {work.image_size}px batch {work.batch_size}, {work.num_images} "
                           f"{work.source_size}px JPEGs, workers {work.workers}, window {work.window_s}s")
    summary["quick"] = quick
    if ddp is not None:
        summary["ddp_2gpu_images_per_s"] = round(ddp.images_per_s, 1)
        summary["ddp_2gpu_scaling"] = round(ddp.images_per_s / accel.images_per_s, 3)
    return rows, summary


def run_ddp(folder: Path, work: Workload, compile_model: bool, gpus: int = 2) -> LoopResult | None:
    """The accelerated loop on ``gpus`` GPUs (torchrun + NCCL DDP); CPU workers are split among the ranks."""
    with tempfile.TemporaryDirectory(prefix="aipipe-ddp-bench-") as tmp:
        out = Path(tmp) / "ddp.json"
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={gpus}",
               str(Path(__file__).resolve()), "--ddp-child", str(folder), "--ddp-out", str(out),
               "--window-s", str(work.window_s), "--compile", "on" if compile_model else "off"]
        root = str(Path(__file__).resolve().parents[1])
        proc = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": root}, check=False, timeout=600)
        if proc.returncode != 0 or not out.is_file():
            print(f"ddp: torchrun exited {proc.returncode}; no DDP row", file=sys.stderr)
            return None
        row = json.loads(out.read_text())
    print(f"ddp x{gpus}: {row['images_per_s']:.1f} img/s", flush=True)
    return LoopResult(**row)


def ddp_child(folder: Path, out: Path, work: Workload, compile_model: bool) -> None:
    """One rank of :func:`run_ddp`: the accelerated loop with a DDP model and a sharded sampler."""
    import torch.distributed as dist

    from mlkit.accel import init_distributed, shutdown_distributed

    info = init_distributed("cuda")
    device = torch.device("cuda", info.local_rank)
    torch.backends.cudnn.benchmark = True
    workers = auto_num_workers(info.local_world_size)
    data = read_synthetic(folder)
    dataset = ImageDataset(data.root, data.train_items, data.classes, work.image_size, train=True,
                           crop_scale=BENCH_CROP_SCALE)
    sampler = ShardedEpochSampler(len(dataset), work.batch_size, seed=0, rank=info.rank,
                                  world_size=info.world_size)
    loader = build_loader(dataset, _EndlessBatches(sampler), LoaderSettings(workers, True, True, 4))
    batches = iter(CudaPrefetcher(loader, DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, True)))
    model: nn.Module = nn.parallel.DistributedDataParallel(_model(work, device, True, False),
                                                           device_ids=[info.local_rank])
    if compile_model:
        model = torch.compile(model)  # type: ignore[assignment]
    result = measure(f"accelerated_ddp_x{info.world_size}", batches, model, resolve_precision("auto", device),
                     device, work, f"{info.world_size} GPUs, workers={workers}/rank, NCCL DDP")
    totals = torch.tensor([result.images_per_s, result.data_wait_fraction, result.gpu_mem_gib], device=device)
    dist.all_reduce(totals)
    if info.is_main:
        result.images_per_s = float(totals[0])
        result.data_wait_fraction = float(totals[1]) / info.world_size
        result.gpu_mem_gib = float(totals[2]) / info.world_size
        out.write_text(json.dumps(result.__dict__))
    dist.barrier()  # leave together
    shutdown_distributed()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny CPU smoke run (< 1 min)")
    parser.add_argument("--compile", default="auto", choices=("auto", "on", "off"),
                        help="torch.compile the accelerated loops (auto: on with a GPU, as the trainer does)")
    parser.add_argument("--window-s", type=float, default=None, help="measurement window per loop (seconds)")
    parser.add_argument("--workers", type=int, default=None, help="loader workers (default: usable CPUs - 1)")
    parser.add_argument("--images", type=int, default=None, help="generated JPEGs (default 4096)")
    parser.add_argument("--ddp-child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ddp-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    work = QUICK if args.quick else FULL
    overrides = {k: v for k, v in (("window_s", args.window_s), ("workers", args.workers),
                                   ("num_images", args.images)) if v is not None}
    if overrides:
        work = Workload(**{**work.__dict__, **overrides})
    if args.ddp_child is not None:
        ddp_child(args.ddp_child, args.ddp_out, work, args.compile != "off")
        return 0
    if not args.quick and not torch.cuda.is_available():
        print("train_bench: no CUDA GPU; use --quick for the CPU smoke run", file=sys.stderr)
        return 2
    rows, summary = run(work, {"auto": None, "on": True, "off": False}[args.compile], args.quick)
    write_result("train", rows, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
