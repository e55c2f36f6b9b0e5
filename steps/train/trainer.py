"""The training loop: the acceleration layer, checkpoint/resume, DDP, NaN guard, per-epoch metrics.

Imports neither MLflow nor minio: metrics go to a :class:`Tracker` (MLflow in the step, nothing in
the GPU check), checkpoints to a :class:`CheckpointStore` over :mod:`aipipe.storage`.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

from aipipe.errors import UserError
from aipipe.stepkit import report_progress
from mlkit.accel import (
    AccelSettings,
    CudaPrefetcher,
    DevicePlacer,
    DistInfo,
    HostBatches,
    LoaderSettings,
    ShardedEpochSampler,
    StepTimer,
    all_reduce_sum,
    auto_num_workers,
    build_loader,
    capture_rng_state,
    make_grad_scaler,
    resolve_precision,
    restore_rng_state,
    seed_everything,
)
from mlkit.accel.amp import Precision, autocast
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
from mlkit.accel.seeding import seed_worker
from mlkit.data import CROP_SCALE, DatasetVersion, ImageDataset
from mlkit.export import plain_module
from mlkit.model import IMAGENET_MEAN, IMAGENET_STD, build_model, load_pretrained, state_dict_for_save

from .checkpoint import CheckpointStore
from .evaluation import reduce_scores, score
from .progress import EpochProgress

log = logging.getLogger("aipipe.train")

CHECKPOINT_FORMAT = 1


class NonFiniteLoss(UserError):
    """The loss became NaN or infinite: training stops (retrying the same run cannot help)."""


class Tracker(Protocol):
    """Where a run's params and per-epoch metrics go."""

    def log_params(self, params: Mapping[str, Any]) -> None: ...
    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None: ...


class NullTracker:
    """Records nothing (the GPU check and benchmarks)."""

    def log_params(self, params: Mapping[str, Any]) -> None:
        return None

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        return None


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters and acceleration switches (``None`` = decide from the hardware)."""

    arch: str = "resnet_tiny"
    epochs: int = 10
    batch_size: int = 64
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 5e-4
    image_size: int = 64
    seed: int = 0
    precision: str = "auto"
    num_workers: int | None = None
    pin_memory: bool = True
    persistent_workers: bool = True
    prefetch_factor: int = 4
    prefetcher: bool = True
    channels_last: bool | None = None
    compile: bool | None = None  # None: on with a GPU (falls back to eager when compiling fails)
    grad_accum: int = 1
    deterministic: bool = False
    checkpoint_every: int = 50
    log_every: int = 10
    pretrained: Path | None = None
    crop_scale: tuple[float, float] = CROP_SCALE
    gpu_decode: str = "auto"  # JPEG decode + augmentation on the GPU: auto (when data wait is high) | on | off
    hflip: bool = True  # random horizontal flips (off for digits and text)

    def hyper_params(self) -> dict[str, Any]:
        """The non-acceleration params, as logged."""
        keys = ("arch", "epochs", "batch_size", "lr", "momentum", "weight_decay", "image_size", "seed",
                "checkpoint_every")
        params = {k: v for k, v in asdict(self).items() if k in keys}
        params["pretrained"] = str(self.pretrained or "")
        params["crop_scale"] = f"{self.crop_scale[0]}-{self.crop_scale[1]}"
        params["hflip"] = self.hflip
        return params


@dataclass
class TrainResult:
    """What a finished run produced."""

    model: nn.Module
    history: list[dict[str, float]]
    accel: AccelSettings
    global_step: int
    resumed_from_step: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def val_accuracy(self) -> float:
        return self.history[-1]["val_accuracy"] if self.history else 0.0


def lr_at(step: int, total: int, base: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to zero at ``total`` steps."""
    if step < warmup:
        return base * (step + 1) / warmup
    progress = (step - warmup) / max(total - warmup, 1)
    return base * 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))


def _first_bad_step(losses: list[tuple[int, torch.Tensor]], device: torch.device) -> int | None:
    """The earliest global step whose loss is not finite, on any rank (one sync)."""
    bad = 0
    if losses:
        finite = torch.isfinite(torch.stack([loss for _, loss in losses])).cpu().tolist()
        bad = next((step for (step, _), ok in zip(losses, finite, strict=True) if not ok), 0)
    if dist.is_available() and dist.is_initialized():
        marker = torch.tensor([bad if bad else 2**62], dtype=torch.int64, device=device)
        dist.all_reduce(marker, op=dist.ReduceOp.MIN)
        bad = int(marker.item()) if marker.item() < 2**62 else 0
    return bad or None


class _Run:
    """The state of one training run; :func:`train` drives it."""

    def __init__(self, cfg: TrainConfig, data: DatasetVersion, *, device: torch.device, info: DistInfo,
                 checkpoints: CheckpointStore | None, tracker: Tracker, extra: dict[str, Any]) -> None:
        self.cfg, self.data, self.device, self.info = cfg, data, device, info
        self.checkpoints, self.tracker, self.extra = checkpoints, tracker, extra
        self.precision: Precision = resolve_precision(cfg.precision, device)
        on_gpu = device.type == "cuda"
        workers = auto_num_workers(info.local_world_size) if cfg.num_workers is None else cfg.num_workers
        if workers < 0:
            raise UserError("must be >= 0 or auto", field="num-workers")
        if cfg.grad_accum < 1:
            raise UserError("must be >= 1", field="grad-accum")
        self.loader_settings = LoaderSettings(workers, cfg.pin_memory and on_gpu, cfg.persistent_workers,
                                              cfg.prefetch_factor, TRAINING_WORKER_NICE if on_gpu else 0).resolved()
        channels_last = on_gpu if cfg.channels_last is None else cfg.channels_last
        compile_model = on_gpu if cfg.compile is None else cfg.compile
        self.accel = AccelSettings(
            num_workers=workers, pin_memory=self.loader_settings.pin_memory,
            persistent_workers=self.loader_settings.persistent_workers,
            prefetch_factor=self.loader_settings.prefetch_factor, cuda_prefetcher=cfg.prefetcher and on_gpu,
            precision=self.precision.name, channels_last=channels_last,
            compile=compile_model,
            compile_mode=training_compile_mode(device, info.enabled) if compile_model else None,
            grad_accum=cfg.grad_accum, deterministic=cfg.deterministic, world_size=info.world_size)
        seed_everything(cfg.seed, cfg.deterministic)
        self.num_classes = len(data.classes)
        model = build_model(cfg.arch, self.num_classes)
        if cfg.pretrained is not None:
            load_pretrained(model, cfg.pretrained)
        model.to(device)
        if channels_last:
            model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum,
                                         weight_decay=cfg.weight_decay, nesterov=cfg.momentum > 0)
        self.scaler = make_grad_scaler(self.precision, device)
        self.batch_size = self._fit_batch_size(len(data.train_items))
        self.sampler = ShardedEpochSampler(len(data.train_items), self.batch_size, seed=cfg.seed, rank=info.rank,
                                           world_size=info.world_size, grad_accum=cfg.grad_accum)
        self.placer = DevicePlacer(device, IMAGENET_MEAN, IMAGENET_STD, channels_last)
        train_set = ImageDataset(data.root, data.train_items, data.classes, cfg.image_size, train=True,
                                 crop_scale=cfg.crop_scale, flip=cfg.hflip)
        self.loader = build_loader(train_set, self.sampler, self.loader_settings, worker_init_fn=seed_worker,
                                   generator=torch.Generator().manual_seed(cfg.seed))
        val_set = ImageDataset(data.root, data.val_items, data.classes, cfg.image_size, train=False)
        shard = list(range(info.rank, len(val_set), info.world_size))
        self.val_loader = DataLoader(val_set, batch_size=self.batch_size, sampler=shard,
                                     num_workers=min(workers, 2), pin_memory=self.loader_settings.pin_memory)
        self.history: list[dict[str, float]] = []
        self.epoch, self.step_in_epoch, self.global_step = 0, 0, 0
        if cfg.gpu_decode not in ("auto", "on", "off"):
            raise UserError(f"unknown value {cfg.gpu_decode!r} (auto, on, off)", field="gpu-decode")
        gpu_decode = (cfg.gpu_decode != "off" and self.accel.cuda_prefetcher and all_jpeg(data.train_items)
                      and gpu_decode_available(device))
        self.decode_chooser = DecodeChooser(enabled=gpu_decode and cfg.gpu_decode == "auto")
        self.gpu_decoder: GpuJpegDecoder | None = None
        if gpu_decode and cfg.gpu_decode == "on":
            self._use_gpu_decode()
        self.resumed_from: int | None = None
        self.total_steps = cfg.epochs * self.sampler.steps_per_epoch
        self.warmup = max(1, min(self.sampler.steps_per_epoch, self.total_steps // 10))

    def _fit_batch_size(self, num_train: int) -> int:
        """The per-process batch size: the requested one, shrunk when the training split is smaller than one
        global batch (small datasets still train); an error only when not even one item per micro-batch fits."""
        per_step = self.info.world_size * self.cfg.grad_accum
        fitted = min(self.cfg.batch_size, num_train // per_step)
        if fitted < 1:
            raise UserError(f"{num_train} training items cannot fill one step of {self.info.world_size} processes x "
                            f"{self.cfg.grad_accum} accumulated micro-batches", field="batch-size")
        if fitted < self.cfg.batch_size and self.info.is_main:
            log.warning("batch size %d is larger than the training split allows (%d items, %d micro-batches per "
                        "step): using %d", self.cfg.batch_size, num_train, per_step, fitted)
        return fitted

    # --- checkpoints ---------------------------------------------------------------------
    def _global_batch(self) -> int:
        return self.batch_size * self.info.world_size * self.cfg.grad_accum

    def state(self) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT, "model": state_dict_for_save(self.model),
            "optimizer": self.optimizer.state_dict(), "scaler": self.scaler.state_dict(),
            "epoch": self.epoch, "step_in_epoch": self.step_in_epoch, "global_step": self.global_step,
            "global_batch": self._global_batch(), "rng": capture_rng_state(), "history": self.history,
            "extra": self.extra,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        if int(state.get("global_batch", 0)) != self._global_batch():
            raise UserError(f"the checkpoint was written with a global batch of {state.get('global_batch')}, this "
                            f"run uses {self._global_batch()}: resume with the same --batch-size, processes and "
                            "accumulation, or start a new run id", field="run-id")
        try:
            self.model.load_state_dict(state["model"])
        except RuntimeError as exc:  # other layers or shapes: a user's change, retrying cannot help
            raise UserError(f"the checkpoint holds another model than --arch {self.cfg.arch} with {self.num_classes} "
                            "classes: resume with the same --arch, or start a new run id", field="arch") from exc
        self.optimizer.load_state_dict(state["optimizer"])
        self.scaler.load_state_dict(state["scaler"])
        self.epoch, self.step_in_epoch = int(state["epoch"]), int(state["step_in_epoch"])
        self.global_step = int(state["global_step"])
        self.history = [dict(h) for h in state["history"]]
        restore_rng_state(state["rng"])
        self.resumed_from = self.global_step

    def save_checkpoint(self) -> None:
        if self.checkpoints is not None and self.info.is_main:
            uri = self.checkpoints.save(self.state(), self.global_step)
            log.info("checkpoint %s (global step %d)", uri, self.global_step)

    # --- the loop --------------------------------------------------------------------------
    def _check_losses(self, pending: list[tuple[int, torch.Tensor]]) -> None:
        bad = _first_bad_step(pending, self.device)
        pending.clear()
        if bad is not None:
            raise NonFiniteLoss(f"the loss became NaN/inf at global step {bad} (epoch {self.epoch + 1}); stopping. "
                                "Lower --lr, use --precision fp32, or check the data", field="loss")

    def _use_gpu_decode(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """From the current step on, workers read JPEG bytes and the GPU decodes and augments them."""
        cfg, data = self.cfg, self.data
        dataset = JpegBytesDataset(data.root, data.train_items, data.classes, image_size=cfg.image_size,
                                   crop_scale=cfg.crop_scale, flip=cfg.hflip, gpu_share=GPU_SHARE)
        self.sampler.set_epoch(self.epoch, self.step_in_epoch)
        self.loader = build_loader(dataset, self.sampler, self.loader_settings, collate_fn=collate_jpegs,
                                   worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(cfg.seed))
        self.gpu_decoder = GpuJpegDecoder(self.device, cfg.image_size, IMAGENET_MEAN, IMAGENET_STD,
                                          self.accel.channels_last)
        return self._device_batches()

    def _use_cpu_decode(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """Back to decoding in the workers alone, from the current step on."""
        train_set = ImageDataset(self.data.root, self.data.train_items, self.data.classes, self.cfg.image_size,
                                 train=True, crop_scale=self.cfg.crop_scale, flip=self.cfg.hflip)
        self.sampler.set_epoch(self.epoch, self.step_in_epoch)
        self.loader = build_loader(train_set, self.sampler, self.loader_settings, worker_init_fn=seed_worker,
                                   generator=torch.Generator().manual_seed(self.cfg.seed))
        self.gpu_decoder = None
        return self._device_batches()

    def _device_batches(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        if self.gpu_decoder is not None:
            return ThreadedDecodeBatches(self.loader, self.gpu_decoder)
        if self.accel.cuda_prefetcher:
            return iter(CudaPrefetcher(self.loader, self.placer))
        return iter(HostBatches(self.loader, self.placer))

    def train_epoch(self, run_model: Any, timer: StepTimer) -> dict[str, float]:
        cfg, steps = self.cfg, self.sampler.steps_per_epoch
        self.sampler.set_epoch(self.epoch, self.step_in_epoch)
        self.model.train()
        timer.reset()
        loss_sum = torch.zeros((), dtype=torch.float64, device=self.device)
        correct = torch.zeros((), dtype=torch.int64, device=self.device)
        seen, pending = 0, []
        batches = self._device_batches()
        with EpochProgress(self.epoch, cfg.epochs, steps, self.step_in_epoch, enabled=self.info.is_main) as bar:
            while self.step_in_epoch < steps:
                lr = lr_at(self.global_step, self.total_steps, cfg.lr, self.warmup)
                for group in self.optimizer.param_groups:
                    group["lr"] = lr
                self.optimizer.zero_grad(set_to_none=True)
                step_loss = torch.zeros((), device=self.device)
                for micro in range(cfg.grad_accum):
                    with timer.data():
                        images, labels = next(batches)
                    sync = (run_model.no_sync() if self.info.enabled and micro < cfg.grad_accum - 1
                            else contextlib.nullcontext())
                    with sync:
                        with autocast(self.precision, self.device):
                            logits = run_model(images)
                        loss = F.cross_entropy(logits.float(), labels)
                        self.scaler.scale(loss / cfg.grad_accum).backward()
                    step_loss += loss.detach() / cfg.grad_accum
                    loss_sum += loss.detach().double() * labels.numel()
                    correct += (logits.detach().argmax(dim=1) == labels).sum()
                    seen += labels.numel()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.global_step += 1
                self.step_in_epoch += 1
                pending.append((self.global_step, step_loss))
                timer.step_done(self.batch_size * cfg.grad_accum * self.info.world_size)
                last = self.step_in_epoch == steps
                decision = self.decode_chooser.observe(timer.last_step_s, timer.last_data_s)
                if decision and not last:
                    batches = self._use_gpu_decode() if decision == "gpu" else self._use_cpu_decode()
                if self.global_step % cfg.log_every == 0 or last:
                    self._check_losses(pending)
                    bar.update(self.step_in_epoch, self.global_step, self.total_steps,
                               f"loss {step_loss.item():.4f} lr {lr:.4g} {timer.log_line()}")
                if cfg.checkpoint_every and self.global_step % cfg.checkpoint_every == 0 and not last:
                    self._check_losses(pending)
                    self.save_checkpoint()
        self._check_losses(pending)
        totals = all_reduce_sum([float(loss_sum.item()), float(correct.item()), float(seen),
                                 timer.data_wait_fraction], self.device)
        return {"train_loss": totals[0] / max(totals[2], 1), "train_accuracy": totals[1] / max(totals[2], 1),
                "images_per_s": timer.samples_per_s, "data_wait_fraction": totals[3] / self.info.world_size,
                "lr": lr_at(self.global_step - 1, self.total_steps, cfg.lr, self.warmup)}

    def validate(self) -> dict[str, float]:
        batches = HostBatches(self.val_loader, self.placer)
        scores = reduce_scores(score(self.model, batches, self.num_classes, self.precision, self.device),
                               self.device)
        return {"val_loss": scores.loss, "val_accuracy": scores.accuracy}

    def run(self) -> TrainResult:
        cfg = self.cfg
        if self.info.is_main:
            report_progress(self.global_step, self.total_steps)  # 0/N (or the resumed step) before the first batch
            self.tracker.log_params({**cfg.hyper_params(), **self.accel.as_params(),
                                     "dataset_uri": self.data.uri, "dataset_version": self.data.version,
                                     "num_classes": self.num_classes, "global_batch": self._global_batch(),
                                     "train_items": len(self.data.train_items),
                                     "val_items": len(self.data.val_items)})
        run_model: Any = self.model
        if self.info.enabled:
            device_ids = [self.device.index] if self.device.type == "cuda" else None
            run_model = nn.parallel.DistributedDataParallel(self.model, device_ids=device_ids)
        if self.accel.compile:
            run_model = CompiledOrEager(run_model, self.accel.compile_mode)
        timer = StepTimer(device=self.device)
        while self.epoch < cfg.epochs:
            metrics = {**self.train_epoch(run_model, timer), **self.validate()}
            metrics["epoch"] = self.epoch + 1
            self.history.append(metrics)
            if self.info.is_main:
                log.info("epoch %d/%d train_loss %.4f train_acc %.3f val_loss %.4f val_acc %.3f images/s %.1f "
                         "data_wait %.1f%%", self.epoch + 1, cfg.epochs, metrics["train_loss"],
                         metrics["train_accuracy"], metrics["val_loss"], metrics["val_accuracy"],
                         metrics["images_per_s"], 100 * metrics["data_wait_fraction"])
                hint = timer.hint(self.accel.num_workers)
                if hint:
                    log.warning(hint)
                self.tracker.log_metrics({k: v for k, v in metrics.items() if k != "epoch"}, step=self.epoch + 1)
            self.epoch += 1
            self.step_in_epoch = 0
            self.save_checkpoint()
        return TrainResult(model=plain_module(self.model), history=self.history, accel=self.accel,
                           global_step=self.global_step, resumed_from_step=self.resumed_from, extra=self.extra)


def train(cfg: TrainConfig, data: DatasetVersion, *, device: torch.device, info: DistInfo | None = None,
          checkpoints: CheckpointStore | None = None, resume: Mapping[str, Any] | None = None,
          tracker: Tracker | None = None, extra: dict[str, Any] | None = None) -> TrainResult:
    """Train a classifier on ``data``; resume from ``resume`` (a loaded checkpoint) when given.

    ``extra`` is stored in every checkpoint (the step keeps its MLflow run id there).
    """
    run = _Run(cfg, data, device=device, info=info or DistInfo(), checkpoints=checkpoints,
               tracker=tracker or NullTracker(), extra=dict(extra or {}))
    if resume is not None:
        run.restore(resume)
        log.info("resumed from global step %d (epoch %d, step %d in epoch)", run.global_step, run.epoch + 1,
                 run.step_in_epoch)
    return run.run()
