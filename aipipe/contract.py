"""The step contract (version v1): step names, inputs, outputs, artifacts, exit codes.

Frozen so that the pipeline, the templates, the engine and each step agree. A step is a
container running ``python -m steps.<module> --<input> VALUE …``; each output parameter is
written to ``/tmp/outputs/<name>`` (read by Argo with ``valueFrom.path``); reports are files
under ``/tmp/outputs/`` exported as output artifacts. Exit codes are
:class:`aipipe.errors.ExitCode`. Changing any of this means a new contract version, so
running workflows that reference ``aipipe-<step>-v1`` keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTRACT_VERSION = "v1"
OUTPUTS_DIR = "/tmp/outputs"


@dataclass(frozen=True)
class Input:
    """An input parameter: passed to the step as ``--<name> VALUE``."""

    name: str
    description: str
    default: str | None = None  # None = required
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Output:
    """An output parameter: the step writes ``/tmp/outputs/<name>``."""

    name: str
    description: str


@dataclass(frozen=True)
class Artifact:
    """An output artifact: a file the step writes under ``/tmp/outputs/``."""

    name: str
    path: str
    description: str


@dataclass(frozen=True)
class StepSpec:
    """One step of the retrain pipeline."""

    name: str
    module: str
    description: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    artifacts: tuple[Artifact, ...] = ()
    gpu: bool = False
    secrets: tuple[str, ...] = ()  # config keys whose values come from the Secret

    @property
    def template_name(self) -> str:
        return f"aipipe-{self.name}-{CONTRACT_VERSION}"

    def output_names(self) -> list[str]:
        return [o.name for o in self.outputs]


PRECISIONS = ("auto", "bf16", "fp16", "fp32")

EXPORT = StepSpec(
    name="export-annotations",
    module="steps.export_annotations",
    description="Snapshot-export a Label Studio project into a content-addressed dataset.",
    inputs=(
        Input("project", "Label Studio project id or title"),
        Input("dataset-root", "storage URI under which datasets/<project>/<version>/ is written; "
              "empty = <storage.root>/datasets", ""),
        Input("val-fraction", "share of tasks in the validation split (by task-id hash)", "0.2"),
        Input("view", "Label Studio view id to restrict the export to; empty = all annotated tasks", ""),
    ),
    outputs=(
        Output("dataset_uri", "storage URI of the dataset version"),
        Output("dataset_version", "content hash of the manifest"),
        Output("num_items", "usable items in the dataset"),
        Output("num_new", "annotations since the previous exported version"),
        Output("classes", "JSON list of class names, in label-map order"),
        Output("changed", "true when the version differs from the previous export"),
    ),
    artifacts=(Artifact("export-report", f"{OUTPUTS_DIR}/export-report.json", "counts of skipped/bad items"),),
    secrets=("label_studio.api_key",),
)

TRAIN = StepSpec(
    name="train",
    module="steps.train",
    description="Train the classifier with the acceleration layer; log and register it in MLflow.",
    inputs=(
        Input("dataset-uri", "dataset URI from export-annotations"),
        Input("dataset-version", "dataset version (tags the model version, scopes checkpoints)"),
        Input("run-id", "workflow run id; scopes checkpoints so only a retry of this run resumes"),
        Input("epochs", "training epochs", "10"),
        Input("batch-size", "batch size per process", "64"),
        Input("lr", "learning rate", "0.05"),
        Input("precision", "AMP precision", "auto", PRECISIONS),
        Input("num-workers", "DataLoader workers; auto = usable CPUs - 1", "auto"),
        Input("image-size", "input size in pixels", "64"),
        Input("hflip", "random horizontal flips in augmentation (false for digits, text, anything a mirror "
              "changes)", "true", ("true", "false")),
        Input("model-name", "MLflow registered model name", "aipipe-classifier"),
        Input("seed", "random seed", "0"),
    ),
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
)

EVALUATE = StepSpec(
    name="evaluate",
    module="steps.evaluate",
    description="Score candidate vs the champion alias on the held-out split; mark it `candidate` if it reaches "
                "min-accuracy and is not worse.",
    inputs=(
        Input("dataset-uri", "dataset URI from export-annotations"),
        Input("model-name", "MLflow registered model name", "aipipe-classifier"),
        Input("model-version", "candidate model version"),
        Input("margin", "largest allowed accuracy drop vs the champion", "0.01"),
        Input("min-accuracy", "top-1 accuracy below which nothing is promoted, champion or not", "0.5"),
    ),
    outputs=(
        Output("promote", "true when the candidate passed the gate (alias candidate; deploy makes it champion)"),
        Output("candidate_metric", "candidate accuracy"),
        Output("champion_metric", "champion accuracy (empty when there was none)"),
    ),
    artifacts=(Artifact("evaluate-report", f"{OUTPUTS_DIR}/evaluate-report.json", "metrics of both models"),),
)

CONVERT = StepSpec(
    name="convert",
    module="steps.convert_trt",
    description="Convert ONNX to an inference engine; the FP16 precision debugger picks FP32 pins.",
    inputs=(
        Input("onnx-uri", "ONNX model URI from train"),
        Input("dataset-uri", "dataset URI (calibration and validation samples)"),
        Input("model-name", "MLflow registered model name", "aipipe-classifier"),
        Input("model-version", "model version the engine belongs to"),
        Input("backend", "engine backend", "auto", ("auto", "tensorrt", "onnxruntime", "pytorch")),
        Input("precision", "engine precision", "fp16", ("fp16", "fp32")),
        Input("precision-config-uri", "reuse a precision config (skips the search); empty = search", ""),
        Input("max-accuracy-delta", "largest allowed top-1 accuracy drop vs the source model", "0.01"),
    ),
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
)

DEPLOY = StepSpec(
    name="deploy",
    module="steps.deploy",
    description="Deploy the engine on a fraction of a GPU with a health-gated rollout.",
    inputs=(
        Input("engine-uri", "engine bundle URI from convert"),
        Input("model-version", "model version being deployed"),
        Input("memory-mb", "engine footprint per replica from convert (MiB)"),
        Input("gpu-memory-mib", "GPU memory budget for the service (MiB)", "5120"),
        Input("gpu-compute-percent", "GPU compute share for the service (%)", "50"),
        Input("target", "where to deploy", "local", ("local", "kubernetes")),
        Input("provider", "fractional-GPU provider (kubernetes target)", "hami",
              ("hami", "mig", "time-slicing", "kai", "orionx", "gpushare")),
        Input("namespace", "Kubernetes namespace (kubernetes target)", "aipipe-serving"),
        Input("model-name", "MLflow registered model whose champion alias moves to this version once it "
              "serves; empty = no alias change", ""),
    ),
    outputs=(
        Output("endpoint", "URL of the inference service"),
        Output("replicas", "GPU processes (replicas) that fit the budget"),
        Output("gpu_memory_mb_per_replica", "GPU memory cap per replica (MiB)"),
        Output("provider", "fractional-GPU provider used"),
        Output("previous_version", "model version served before (empty if none)"),
        Output("rolled_back", "true when the new version failed its health gate"),
    ),
    artifacts=(Artifact("deploy-report", f"{OUTPUTS_DIR}/deploy-report.json", "rendered objects and health"),),
)

STEPS: dict[str, StepSpec] = {s.name: s for s in (EXPORT, TRAIN, EVALUATE, CONVERT, DEPLOY)}


# --- Data that passes between steps (as storage URIs in output parameters) -----------------
#
# Dataset version (export-annotations -> train, evaluate, convert), at
# <storage.root>/datasets/<project-slug>/<dataset_version>/ :
#   manifest.json   {"version", "project", "task": "classification"|"detection", "classes": [...],
#                    "items": [{"id": <task id>, "image": "images/<sha256>.<ext>", "sha256",
#                               "label": <name>, "label_id": <int>, "split": "train"|"val"}]}
#                   (detection items carry "boxes": [{"label", "label_id", "x", "y", "w", "h"}] in
#                    relative YOLO centre form instead of "label"/"label_id")
#   classes.json    ordered list of class names: the label map every later step uses
#   images/         image files named by content hash
#   labels/, coco.json   detection only (YOLO txt per image, COCO JSON)
#   _SUCCESS        written last; a dataset without it is incomplete and must not be read
DATASET_MANIFEST = "manifest.json"
CLASSES_FILE = "classes.json"
SUCCESS_MARKER = "_SUCCESS"

# Model bundle (train -> evaluate, convert), at <storage.root>/models/<model-name>/<model_version>/ :
#   model.onnx          ONNX export, input "input" NCHW float32, dynamic batch axis, output "logits"
#   model.safetensors   weights (loaded with safetensors, never unpickled)
#   model_config.json   {"arch": ..., "num_classes", ...}: rebuilds the torch module (mlkit.model)
#   classes.json        label map (copied from the dataset)
#   preprocess.json     {"input_size", "mean", "std", "layout": "NCHW", "color": "RGB", "input_name"}
PREPROCESS_FILE = "preprocess.json"
MODEL_ONNX = "model.onnx"
MODEL_WEIGHTS = "model.safetensors"
MODEL_CONFIG = "model_config.json"

# Engine bundle (convert -> deploy), at <storage.root>/engines/<model-name>/<model_version>/ :
#   engine.json         {"backend", "precision", "file", "input_name", "output_name", "memory_mb",
#                        "model_version", ...}; "file" names the engine file in the bundle
#   <engine file>       model.plan (tensorrt) | model_fp16.onnx / model.onnx (onnxruntime) |
#                       model.safetensors + model_config.json (pytorch)
#   precision_config.json   FP32_LAYERS_FOR_FP16, TRT_EXCLUDE_TACTIC, atol, rtol, check-error-stat
#   classes.json, preprocess.json   travel with the engine for serving
ENGINE_MANIFEST = "engine.json"
PRECISION_CONFIG = "precision_config.json"
