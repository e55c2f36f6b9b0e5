"""The convert-trt step's contract: its typed flags, outputs, report, GPU need and resources."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from aipipe.contract import OUTPUTS_DIR, Artifact, Output, StepResources, step_contract

Backend = Literal["auto", "tensorrt", "onnxruntime", "pytorch"]


class ConvertFlags(BaseModel):
    """``python -m steps.convert_trt`` flags (the contract's inputs; the debugger's tuning flags are in
    :mod:`steps.convert_trt.__main__`)."""

    onnx_uri: str = Field(description="ONNX model URI from train")
    dataset_uri: str = Field(description="dataset URI (calibration and validation samples)")
    model_name: str = Field("aipipe-classifier", description="MLflow registered model name")
    model_version: str = Field(description="model version the engine belongs to")
    backend: Backend = Field("auto", description="engine backend")
    precision: Literal["fp16", "fp32"] = Field("fp16", description="engine precision")
    precision_config_uri: str = Field("", description="reuse a precision config (skips the search); empty = search")
    # unbounded: a negative delta demands an engine better than its source (how tests force a failed validation)
    max_accuracy_delta: float = Field(0.01, description="largest allowed top-1 accuracy drop vs the source model")


CONTRACT = step_contract(
    __package__,
    description="Convert ONNX to an inference engine; the FP16 precision debugger picks FP32 pins.",
    flags=ConvertFlags,
    outputs=(
        Output("engine_uri", "storage URI of the engine bundle"),
        Output("precision_config_uri", "storage URI of the precision config"),
        Output("backend", "backend that built the engine"),
        Output("precision", "engine precision"),
        Output("memory_mb", "measured footprint of one loaded replica (MiB)"),
        Output("latency_ms_b1", "latency at batch 1 (ms)"),
        Output("throughput_b64", "throughput at batch 64 (items/s)"),
    ),
    artifacts=(Artifact("precision-report", f"{OUTPUTS_DIR}/precision-report.json", "debugger report"),),
    gpu=True,
    resources=StepResources(cpu="2", memory="8Gi", deadline_seconds=2 * 3600),
)
