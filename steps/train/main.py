"""``python -m steps.train``: train on a dataset version, log and register the model in MLflow.

With ``--nproc-per-node N`` (N > 1) the step relaunches itself under torchrun; each rank then runs
:func:`main`, and rank 0 alone logs, checkpoints, registers and writes the outputs.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import torch
from pydantic import Field, field_validator

from aipipe.config import load_config
from aipipe.contract import MODEL_ONNX
from aipipe.errors import AipipeError, UserError
from aipipe.stepkit import parse_step_args, write_outputs, write_report
from aipipe.storage import Storage, join
from mlkit.accel.distributed import barrier, device_for, init_distributed, shutdown_distributed
from mlkit.accel.prefetch import DevicePlacer
from mlkit.data import CROP_SCALE, DatasetVersion, ImageDataset, open_dataset
from mlkit.export import onnx_max_abs_diff, write_model_bundle
from mlkit.model import ARCHS, IMAGENET_MEAN, IMAGENET_STD, model_config, preprocess_spec

from .checkpoint import CheckpointStore, checkpoint_prefix
from .contract import CONTRACT, TrainFlags
from .trainer import TrainConfig, TrainResult, train

log = logging.getLogger("aipipe.train")

REPORT_NAME = "train-metrics.json"
EXIT_DIR_ENV = "AIPIPE_RANK_EXIT_DIR"


OnOffAuto = Literal["auto", "on", "off"]
ON_OFF_AUTO: dict[str, bool | None] = {"auto": None, "on": True, "off": False}


class TrainStepFlags(TrainFlags):
    """The contract's flags plus the trainer's own options (all optional)."""

    arch: str = Field("resnet_tiny", description=f"model architecture: {', '.join(sorted(ARCHS))}")
    nproc_per_node: Annotated[int, Field(ge=1)] | Literal["auto"] = Field(
        1, description="DDP processes on this node (relaunches under torchrun); auto = one per GPU")
    grad_accum: int = Field(1, ge=1, description="micro-batches accumulated per optimizer step")
    checkpoint_every: int = Field(50, ge=0, description="optimizer steps between checkpoints (0 = epochs)")
    log_every: int = Field(10, ge=1, description="optimizer steps between log lines / NaN checks")
    momentum: float = Field(0.9, ge=0, description="SGD momentum")
    weight_decay: float = Field(0.0005, ge=0, description="SGD weight decay")
    prefetch_factor: int = Field(4, ge=1, description="batches each loader worker prepares ahead")
    no_pin_memory: bool = Field(False, description="do not pin host batches")
    no_persistent_workers: bool = Field(False, description="restart loader workers every epoch")
    no_prefetcher: bool = Field(False, description="copy batches in the compute stream")
    channels_last: OnOffAuto = Field("auto", description="NHWC memory format (auto = on with a GPU)")
    min_crop_scale: float = Field(CROP_SCALE[0], gt=0, le=1,
                                  description="smallest area share of a random-resized crop (1 = no cropping)")
    compile: OnOffAuto = Field("auto", description="torch.compile the model (auto = on with a GPU, eager when "
                               "compiling fails)")
    deterministic: bool = Field(False, description="deterministic kernels (slower)")
    pretrained: str = Field("", description="storage URI of initial weights (.safetensors or .pt)")
    experiment: str = Field("", description="MLflow experiment (default: the model name)")

    @field_validator("arch")
    @classmethod
    def _known_arch(cls, value: str) -> str:
        if value not in ARCHS:
            raise ValueError(f"unknown architecture (known: {', '.join(sorted(ARCHS))})")
        return value


def train_config(args: TrainStepFlags, pretrained: Path | None) -> TrainConfig:
    """The validated flags as a :class:`TrainConfig`."""
    return TrainConfig(
        arch=args.arch, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, momentum=args.momentum,
        weight_decay=args.weight_decay, image_size=args.image_size, seed=args.seed, precision=args.precision,
        num_workers=None if args.num_workers == "auto" else args.num_workers, pin_memory=not args.no_pin_memory,
        persistent_workers=not args.no_persistent_workers, prefetch_factor=args.prefetch_factor,
        prefetcher=not args.no_prefetcher, channels_last=ON_OFF_AUTO[args.channels_last],
        compile=ON_OFF_AUTO[args.compile], grad_accum=args.grad_accum, deterministic=args.deterministic,
        checkpoint_every=args.checkpoint_every, log_every=args.log_every, pretrained=pretrained,
        crop_scale=(args.min_crop_scale, 1.0), hflip=args.hflip,
    )


def _nproc(value: int | str) -> int:
    return max(torch.cuda.device_count(), 1) if value == "auto" else int(value)


def launch_torchrun(nproc: int, argv: list[str]) -> None:
    """Re-run this step under torchrun with ``nproc`` ranks; exit with the ranks' contract exit code."""
    with tempfile.TemporaryDirectory(prefix="aipipe-ranks-") as exit_dir:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
               "-m", str(__package__), *argv]
        proc = subprocess.run(cmd, env={**os.environ, EXIT_DIR_ENV: exit_dir}, check=False)
        codes = [int(p.read_text()) for p in sorted(Path(exit_dir).glob("rank-*"))]
    contract = [c for c in codes if c in (2, 3)]
    sys.exit(contract[0] if contract else (0 if proc.returncode == 0 else proc.returncode))


def record_rank_exit(code: int) -> None:
    """Under the torchrun launcher, leave this rank's exit code for the launcher to report."""
    target = os.environ.get(EXIT_DIR_ENV)
    if target:
        Path(target, f"rank-{os.environ.get('RANK', '0')}").write_text(str(code))


def _open_dataset_once(storage: Storage, uri: str, cache: Path, is_main: bool) -> DatasetVersion:
    """Rank 0 downloads/validates first; the other ranks then read the same cached copy."""
    if is_main:
        data = open_dataset(storage, uri, cache)
        barrier()
        return data
    barrier()
    return open_dataset(storage, uri, cache)


def _fetch_pretrained(storage: Storage, uri: str, workdir: Path) -> Path | None:
    if not uri:
        return None
    local = storage.local_path(uri)
    if local is not None:
        if not local.is_file():
            raise UserError(f"no file at {uri}", field="pretrained")
        return local
    return storage.get_file(uri, workdir / Path(uri).name)


def publish_model(result: TrainResult, data: DatasetVersion, cfg: TrainConfig, args: TrainStepFlags,
                  tracker: Any, storage: Storage, storage_root: str) -> dict[str, Any]:
    """Write the model bundle, log it, register a version, copy it to storage; returns the outputs."""
    from mlkit.tracking import TAG_DATASET_VERSION, TAG_WORKFLOW_RUN, model_version_url, register_bundle

    name = args.model_name
    with tempfile.TemporaryDirectory(prefix="aipipe-bundle-") as tmp:
        bundle = write_model_bundle(Path(tmp) / "model", result.model, model_config(cfg.arch, len(data.classes)),
                                    data.classes, preprocess_spec(cfg.image_size))
        sample_set = ImageDataset(data.root, data.val_items[:8], data.classes, cfg.image_size, train=False)
        images = torch.stack([sample_set[i][0] for i in range(len(sample_set))])
        sample, _ = DevicePlacer(torch.device("cpu"), IMAGENET_MEAN, IMAGENET_STD)((images, torch.zeros(1)))
        onnx_diff = onnx_max_abs_diff(result.model, bundle / MODEL_ONNX, sample)
        if onnx_diff > 1e-3:
            log.warning("ONNX export differs from torch by up to %.2e on validation images", onnx_diff)
        report = {"history": result.history, "val_accuracy": result.val_accuracy, "accel": result.accel.as_params(),
                  "global_step": result.global_step, "resumed_from_step": result.resumed_from_step,
                  "dataset_version": data.version, "onnx_max_abs_diff": onnx_diff, "classes": data.classes}
        report_path = write_report(REPORT_NAME, report)
        tracker.log_metrics({"onnx_max_abs_diff": onnx_diff}, step=cfg.epochs)
        tracker.log_artifact(report_path)
        version, bundle_uri = register_bundle(tracker, bundle, name, storage, storage_root,
                                              {TAG_DATASET_VERSION: data.version, TAG_WORKFLOW_RUN: args.run_id})
    return {"model_uri": f"models:/{name}/{version}", "onnx_uri": join(bundle_uri, MODEL_ONNX),
            "mlflow_run_id": tracker.run_id, "mlflow_run_url": tracker.run_url, "model_version": version,
            "model_version_url": model_version_url(tracker.tracking_uri, name, version),
            "val_accuracy": f"{result.val_accuracy:.6f}"}


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_step_args(CONTRACT, TrainStepFlags, argv)
    nproc = _nproc(args.nproc_per_node)
    if nproc > 1 and "RANK" not in os.environ:
        launch_torchrun(nproc, argv)
    try:
        run_training(args)
        record_rank_exit(0)
    except AipipeError as exc:
        record_rank_exit(int(exc.exit_code))
        raise


def run_training(args: TrainStepFlags) -> None:
    """Everything after flag parsing, on one rank."""
    from mlkit.tracking import MlflowTracker, check_reachable, configure_client_env, default_artifact_location

    configure_client_env()
    info = init_distributed("cuda" if torch.cuda.is_available() else "cpu")
    logging.basicConfig(level=logging.INFO if info.is_main else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s train %(levelname)s %(message)s")
    config = load_config()
    storage = Storage.from_config(config)
    tracking_uri = config.mlflow_tracking_uri
    device = device_for(info)
    try:
        if info.is_main:
            check_reachable(tracking_uri)
        data = _open_dataset_once(storage, args.dataset_uri, config.home / "cache" / "datasets", info.is_main)
        if data.version and data.version != args.dataset_version:
            raise UserError(f"does not match the dataset's manifest version {data.version!r}",
                            field="dataset-version")
        with tempfile.TemporaryDirectory(prefix="aipipe-train-") as workdir:
            cfg = train_config(args, _fetch_pretrained(storage, args.pretrained, Path(workdir)))
            store = CheckpointStore(storage, checkpoint_prefix(config.storage_root, args.model_name,
                                                               args.run_id, args.dataset_version))
            resume = store.load_latest()
            tracker = None
            if info.is_main:
                experiment = args.experiment or args.model_name
                tracker = MlflowTracker(
                    tracking_uri, experiment,
                    artifact_location=default_artifact_location(tracking_uri, config.storage_root, experiment),
                    run_id=(resume or {}).get("extra", {}).get("mlflow_run_id"),
                    run_name=args.run_id, tags={"dataset_version": data.version,
                                                       "workflow_run_id": args.run_id})
                log.info("MLflow run %s; checkpoints under %s%s", tracker.run_id, store.prefix,
                         f" (resuming at step {resume['global_step']})" if resume else "")
            try:
                result = train(cfg, data, device=device, info=info, checkpoints=store, resume=resume,
                               tracker=tracker, extra={"mlflow_run_id": tracker.run_id if tracker else ""})
            except AipipeError:
                if tracker is not None:
                    tracker.finish("FAILED")
                raise
            if tracker is not None:
                outputs = publish_model(result, data, cfg, args, tracker, storage, config.storage_root)
                tracker.finish("FINISHED")
                write_outputs(CONTRACT, outputs)
                log.info("outputs: %s", json.dumps(outputs))
        barrier()
    finally:
        shutdown_distributed()
