"""The step contract's types: inputs, outputs, artifacts, resources, GPU need (whole or a share), preemption,
secrets, version.

A step is a folder ``steps/<folder>/`` whose ``contract.py`` declares ``CONTRACT`` with
:func:`step_contract`; the platform finds it there (:mod:`aipipe.discovery`). One naming rule, no
exceptions: the folder is the Python package, the step's Argo name is the folder with ``_`` -> ``-``,
its WorkflowTemplate is ``aipipe-<argo name>-<version>`` and its entry is ``python -m steps.<folder>``.
The step runs ``python -m steps.<folder> --<input> VALUE …``; each output parameter is written to
``/tmp/outputs/<name>`` (read by Argo with ``valueFrom.path``); reports are files under
``/tmp/outputs/`` exported as output artifacts. Exit codes are :class:`aipipe.errors.ExitCode`.
Changing any of this means a new contract version, so running workflows that reference
``aipipe-<step>-v1`` keep working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel

CONTRACT_VERSION = "v1"
OUTPUTS_DIR = "/tmp/outputs"


@dataclass(frozen=True)
class Input:
    """An input parameter: passed to the step as ``--<name> VALUE``."""

    name: str
    description: str
    default: str | None = None  # None = required
    enum: tuple[str, ...] = ()
    type: str = "str"  # str | int | float | bool
    minimum: float | None = None
    maximum: float | None = None


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
class StepResources:
    """What one step's pod asks for, beside the GPU (:attr:`StepSpec.gpu`)."""

    cpu: str = "1"
    memory: str = "2Gi"
    deadline_seconds: int = 1800  # the template's activeDeadlineSeconds
    shm: str | None = None  # size of a memory-backed /dev/shm (DataLoader workers), None = default
    service_account: str | None = None  # the pod's ServiceAccount when the step needs API rights
    retries_unavailable: bool = True  # False: exit 3 is final (the step bounds its own wait for the service)


@dataclass(frozen=True)
class GpuNeed:
    """A step's GPU need: ``count`` GPUs, whole ones unless it asks on each for a share of ``memory_mib`` and/or
    ``compute_percent`` (packed with other shares onto one GPU by HAMi, KAI or the embedded engine's pool)."""

    count: int = 1
    memory_mib: int | None = None
    compute_percent: int | None = None

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"GpuNeed.count must be >= 1, got {self.count}")
        if self.memory_mib is not None and self.memory_mib < 1:
            raise ValueError(f"GpuNeed.memory_mib must be >= 1, got {self.memory_mib}")
        if self.compute_percent is not None and not 1 <= self.compute_percent <= 100:
            raise ValueError(f"GpuNeed.compute_percent must be 1..100, got {self.compute_percent}")

    @property
    def whole(self) -> bool:
        return self.memory_mib is None and self.compute_percent is None


@dataclass(frozen=True)
class StepSpec:
    """One step's contract; built by :func:`step_contract` in the step folder's ``contract.py``."""

    name: str  # the Argo name: the folder with "_" -> "-"
    module: str  # the package run with ``python -m``: steps.<folder>
    description: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    artifacts: tuple[Artifact, ...] = ()
    gpu: bool | GpuNeed = False  # True: one whole GPU
    secrets: tuple[str, ...] = ()  # config keys whose values come from the Secret
    resources: StepResources = field(default_factory=StepResources)
    version: str = CONTRACT_VERSION
    flags: type[BaseModel] | None = None  # the typed flags the inputs were derived from
    preemptible: bool = False  # it checkpoints on SIGTERM: higher-priority work may stop and requeue it

    @property
    def gpu_need(self) -> GpuNeed | None:
        """The GPU need (``gpu=True`` is one whole GPU), None for none."""
        if isinstance(self.gpu, GpuNeed):
            return self.gpu
        return GpuNeed() if self.gpu else None

    @property
    def template_name(self) -> str:
        """``aipipe-<argo name>-<version>``."""
        return f"aipipe-{self.name}-{self.version}"

    def output_names(self) -> list[str]:
        return [o.name for o in self.outputs]

    def input(self, name: str) -> Input:
        """The input ``--<name>``; KeyError naming the step when it has none."""
        for item in self.inputs:
            if item.name == name:
                return item
        raise KeyError(f"step {self.name} has no input {name!r}")


def argo_name(folder: str) -> str:
    """A step's Argo name from its folder: ``export_annotations`` -> ``export-annotations``."""
    return folder.replace("_", "-")


def step_contract(
    package: str,
    *,
    description: str,
    flags: type[BaseModel],
    outputs: tuple[Output, ...],
    artifacts: tuple[Artifact, ...] = (),
    gpu: bool | GpuNeed = False,
    secrets: tuple[str, ...] = (),
    resources: StepResources | None = None,
    version: str = CONTRACT_VERSION,
    preemptible: bool = False,
) -> StepSpec:
    """The contract of the step in ``package`` (pass ``__package__``): its name, module and template
    follow from the folder, its inputs from the ``flags`` model (see :mod:`aipipe.flags`)."""
    from aipipe.flags import flag_inputs

    return StepSpec(
        name=argo_name(package.rpartition(".")[2]), module=package, description=description,
        inputs=flag_inputs(flags), outputs=outputs, artifacts=artifacts, gpu=gpu, secrets=secrets,
        resources=resources or StepResources(), version=version, flags=flags, preemptible=preemptible,
    )


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
