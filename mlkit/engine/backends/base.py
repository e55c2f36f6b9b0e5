"""The backend interface: build(model, precision plan) → engine; run(engine, inputs) → outputs.

Every backend builds from the checked FP32 ONNX model and a :class:`PrecisionPlan`, and writes
one engine file. The debugger uses the narrower :class:`Evaluator` interface: run a candidate
precision plan and return the named tensors (intermediates included) as float32 arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import onnx


@dataclass(frozen=True)
class PrecisionPlan:
    """The engine precision and what runs outside it: FP32 layers (node names), excluded TRT tactics."""

    precision: str  # fp16 | bf16 | fp32
    fp32_layers: tuple[str, ...] = ()
    exclude_tactics: tuple[str, ...] = ()


@dataclass
class BuiltEngine:
    """A built engine: its file, the backend name, and what ``engine.json`` should record about it."""

    backend: str
    path: Path
    precision: str
    manifest: dict[str, Any] = field(default_factory=dict)
    extra_files: list[Path] = field(default_factory=list)  # shipped beside the engine file (a compile cache)


class Backend(Protocol):
    """Builds an engine file from an ONNX model and a precision plan, and runs it."""

    name: str

    def build(self, model: onnx.ModelProto, plan: PrecisionPlan, out_dir: Path) -> BuiltEngine: ...

    def run(self, engine: BuiltEngine, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]: ...


class Evaluator(Protocol):
    """Runs a candidate plan for the debugger with real reduced-precision arithmetic.

    ``layers`` are the comparable layers in topological order; ``outputs_of(layer)`` names the
    tensors a layer produces; ``parents(layer)`` the layers feeding it.
    """

    @property
    def name(self) -> str: ...

    @property
    def layers(self) -> Sequence[str]: ...

    @property
    def final_outputs(self) -> Sequence[str]: ...

    @property
    def supports_tactics(self) -> bool: ...

    def reference(self, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]: ...

    def run(self, plan: PrecisionPlan, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]: ...

    def outputs_of(self, layer: str) -> list[str]: ...

    def parents(self, layer: str) -> list[str]: ...

    def tactics_of(self, layer: str) -> list[str]: ...
