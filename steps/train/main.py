"""``python -m steps.train``: train on a dataset version, log and register the model in MLflow.

With ``--nproc-per-node N`` (N > 1) the step relaunches itself under torchrun; each rank then runs
:func:`main`, and rank 0 alone logs, checkpoints, registers and writes the outputs.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from aipipe.config import load_config
from aipipe.contract import MODEL_ONNX, TRAIN
from aipipe.errors import AipipeError, UserError
from aipipe.stepkit import parse_step_args, write_outputs, write_report
from aipipe.storage import Storage, join
from mlkit.accel.distributed import barrier, device_for, init_distributed, shutdown_distributed
from mlkit.accel.prefetch import DevicePlacer
from mlkit.data import CROP_SCALE, DatasetVersion, ImageDataset, open_dataset
from mlkit.export import onnx_max_abs_diff, write_model_bundle
from mlkit.model import ARCHS, IMAGENET_MEAN, IMAGENET_STD, model_config, preprocess_spec
from steps.train.checkpoint import CheckpointStore, checkpoint_prefix
from steps.train.trainer import TrainConfig, TrainResult, train

log = logging.getLogger("aipipe.train")

REPORT_NAME = "train-metrics.json"
EXIT_DIR_ENV = "AIPIPE_RANK_EXIT_DIR"


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Flags beyond the contract's inputs (all optional)."""
    parser.add_argument("--arch", default="resnet_tiny", choices=sorted(ARCHS), help="model architecture")
    parser.add_argument("--nproc-per-node", default="1",
                        help="DDP processes on this node (relaunches under torchrun); auto = one per GPU")
    parser.add_argument("--grad-accum", default="1", help="micro-batches accumulated per optimizer step")
    parser.add_argument("--checkpoint-every", default="50", help="optimizer steps between checkpoints (0 = epochs)")
    parser.add_argument("--log-every", default="10", help="optimizer steps between log lines / NaN checks")
    parser.add_argument("--momentum", default="0.9")
    parser.add_argument("--weight-decay", default="0.0005")
    parser.add_argument("--prefetch-factor", default="4", help="batches each loader worker prepares ahead")
    parser.add_argument("--no-pin-memory", action="store_true", help="do not pin host batches")
    parser.add_argument("--no-persistent-workers", action="store_true", help="restart loader workers every epoch")
    parser.add_argument("--no-prefetcher", action="store_true", help="copy batches in the compute stream")
    parser.add_argument("--channels-last", default="auto", choices=("auto", "on", "off"),
                        help="NHWC memory format (auto = on with a GPU)")
    parser.add_argument("--min-crop-scale", default=str(CROP_SCALE[0]),
                        help="smallest area share of a random-resized crop (1 = no cropping)")
    parser.add_argument("--compile", default="auto", choices=("auto", "on", "off"),
                        help="torch.compile the model (auto = on with a GPU, eager when compiling fails)")
    parser.add_argument("--deterministic", action="store_true", help="deterministic kernels (slower)")
    parser.add_argument("--pretrained", default="", help="storage URI of initial weights (.safetensors or .pt)")
    parser.add_argument("--experiment", default="", help="MLflow experiment (default: the model name)")


def _int(args: dict[str, Any], name: str, minimum: int) -> int:
    try:
        value = int(args[name])
    except (TypeError, ValueError) as exc:
        raise UserError(f"expected an integer, got {args[name]!r}", field=name) from exc
    if value < minimum:
        raise UserError(f"must be >= {minimum}, got {value}", field=name)
    return value


def _float(args: dict[str, Any], name: str) -> float:
    try:
        value = float(args[name])
    except (TypeError, ValueError) as exc:
        raise UserError(f"expected a number, got {args[name]!r}", field=name) from exc
    if not value >= 0:
        raise UserError(f"must be >= 0, got {value}", field=name)
    return value


def train_config(args: dict[str, Any], pretrained: Path | None) -> TrainConfig:
    """Validate the flags into a :class:`TrainConfig`."""
    workers = None if args["num-workers"] == "auto" else _int(args, "num-workers", 0)
    lr = _float(args, "lr")
    if lr == 0:
        raise UserError("must be > 0", field="lr")
    return TrainConfig(
        arch=args["arch"], epochs=_int(args, "epochs", 1), batch_size=_int(args, "batch-size", 1), lr=lr,
        momentum=_float(args, "momentum"), weight_decay=_float(args, "weight-decay"),
        image_size=_int(args, "image-size", 16), seed=_int(args, "seed", 0), precision=args["precision"],
        num_workers=workers, pin_memory=not args["no-pin-memory"],
        persistent_workers=not args["no-persistent-workers"], prefetch_factor=_int(args, "prefetch-factor", 1),
        prefetcher=not args["no-prefetcher"],
        channels_last={"auto": None, "on": True, "off": False}[args["channels-last"]],
        compile={"auto": None, "on": True, "off": False}[args["compile"]], grad_accum=_int(args, "grad-accum", 1),
        deterministic=args["deterministic"],
        checkpoint_every=_int(args, "checkpoint-every", 0), log_every=_int(args, "log-every", 1),
        pretrained=pretrained, crop_scale=(_crop_scale(args), 1.0), hflip=args["hflip"] == "true",
    )


def _crop_scale(args: dict[str, Any]) -> float:
    value = _float(args, "min-crop-scale")
    if not 0 < value <= 1:
        raise UserError(f"must be in (0, 1], got {value}", field="min-crop-scale")
    return value


def _nproc(value: str) -> int:
    if value == "auto":
        return max(torch.cuda.device_count(), 1)
    try:
        count = int(value)
    except ValueError as exc:
        raise UserError(f"expected an integer or auto, got {value!r}", field="nproc-per-node") from exc
    if count < 1:
        raise UserError("must be >= 1", field="nproc-per-node")
    return count


def launch_torchrun(nproc: int, argv: list[str]) -> None:
    """Re-run this step under torchrun with ``nproc`` ranks; exit with the ranks' contract exit code."""
    with tempfile.TemporaryDirectory(prefix="aipipe-ranks-") as exit_dir:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
               "-m", "steps.train", *argv]
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


def publish_model(result: TrainResult, data: DatasetVersion, cfg: TrainConfig, args: dict[str, Any],
                  tracker: Any, storage: Storage, storage_root: str) -> dict[str, Any]:
    """Write the model bundle, log it, register a version, copy it to storage; returns the outputs."""
    from mlkit.tracking import TAG_DATASET_VERSION, TAG_WORKFLOW_RUN, model_version_url, register_bundle

    name = args["model-name"]
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
                                              {TAG_DATASET_VERSION: data.version, TAG_WORKFLOW_RUN: args["run-id"]})
    return {"model_uri": f"models:/{name}/{version}", "onnx_uri": join(bundle_uri, MODEL_ONNX),
            "mlflow_run_id": tracker.run_id, "mlflow_run_url": tracker.run_url, "model_version": version,
            "model_version_url": model_version_url(tracker.tracking_uri, name, version),
            "val_accuracy": f"{result.val_accuracy:.6f}"}


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_step_args(TRAIN, argv, extend=add_flags)
    nproc = _nproc(args["nproc-per-node"])
    if nproc > 1 and "RANK" not in os.environ:
        launch_torchrun(nproc, argv)
    try:
        run_training(args)
        record_rank_exit(0)
    except AipipeError as exc:
        record_rank_exit(int(exc.exit_code))
        raise


def run_training(args: dict[str, Any]) -> None:
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
        data = _open_dataset_once(storage, args["dataset-uri"], config.home / "cache" / "datasets", info.is_main)
        if data.version and data.version != args["dataset-version"]:
            raise UserError(f"does not match the dataset's manifest version {data.version!r}",
                            field="dataset-version")
        with tempfile.TemporaryDirectory(prefix="aipipe-train-") as workdir:
            cfg = train_config(args, _fetch_pretrained(storage, args["pretrained"], Path(workdir)))
            store = CheckpointStore(storage, checkpoint_prefix(config.storage_root, args["model-name"],
                                                               args["run-id"], args["dataset-version"]))
            resume = store.load_latest()
            tracker = None
            if info.is_main:
                experiment = args["experiment"] or args["model-name"]
                tracker = MlflowTracker(
                    tracking_uri, experiment,
                    artifact_location=default_artifact_location(tracking_uri, config.storage_root, experiment),
                    run_id=(resume or {}).get("extra", {}).get("mlflow_run_id"),
                    run_name=args["run-id"], tags={"dataset_version": data.version,
                                                       "workflow_run_id": args["run-id"]})
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
                write_outputs(TRAIN, outputs)
                log.info("outputs: %s", json.dumps(outputs))
        barrier()
    finally:
        shutdown_distributed()
