"""The train step's contract: its typed flags, outputs, report, GPU need and resources."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from aipipe.contract import OUTPUTS_DIR, Artifact, Output, StepResources, step_contract

Precision = Literal["auto", "bf16", "fp16", "fp32"]


class TrainFlags(BaseModel):
    """``python -m steps.train`` flags (the contract's inputs; the tuning flags are in :mod:`steps.train.main`)."""

    dataset_uri: str = Field(description="dataset URI from export-annotations")
    dataset_version: str = Field(description="dataset version (tags the model version, scopes checkpoints)")
    run_id: str = Field(description="workflow run id; scopes checkpoints so only a retry of this run resumes")
    epochs: int = Field(10, ge=1, le=10000, description="training epochs")
    batch_size: int = Field(64, ge=1, le=65536, description="batch size per process")
    lr: float = Field(0.05, gt=0.0, description="learning rate")
    precision: Precision = Field("auto", description="AMP precision")
    num_workers: Annotated[int, Field(ge=0)] | Literal["auto"] = Field(
        "auto", description="DataLoader workers; auto = usable CPUs - 1")
    image_size: int = Field(64, ge=16, le=4096, description="input size in pixels")
    hflip: bool = Field(True, description="random horizontal flips in augmentation (false for digits, text, "
                        "anything a mirror changes)")
    model_name: str = Field("aipipe-classifier", description="MLflow registered model name")
    seed: int = Field(0, ge=0, description="random seed")


CONTRACT = step_contract(
    __package__,
    description="Train the classifier with the acceleration layer; log and register it in MLflow.",
    flags=TrainFlags,
    outputs=(
        Output("model_uri", "MLflow model URI (models:/<name>/<version>)"),
        Output("onnx_uri", "storage URI of the exported ONNX model"),
        Output("mlflow_run_id", "MLflow run id"),
        Output("mlflow_run_url", "MLflow UI page of the run (empty when tracking is not an http(s) server)"),
        Output("model_version", "registered model version"),
        Output("model_version_url", "MLflow UI page of the registered model version (empty without an http(s) "
               "server)"),
        Output("val_accuracy", "top-1 accuracy on the validation split"),
    ),
    artifacts=(Artifact("train-metrics", f"{OUTPUTS_DIR}/train-metrics.json", "per-epoch metrics"),),
    gpu=True,
    resources=StepResources(cpu="4", memory="16Gi", deadline_seconds=6 * 3600, shm="4Gi"),
)
