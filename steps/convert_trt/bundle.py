"""Write the contract's engine bundle: engine.json, the engine file, precision config, label map, preprocessing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aipipe.contract import CLASSES_FILE, ENGINE_MANIFEST, MODEL_CONFIG, PRECISION_CONFIG, PREPROCESS_FILE
from mlkit.engine.backends.base import BuiltEngine
from mlkit.engine.inspect import ModelInfo

from .config import PrecisionConfig


def write_engine_bundle(dest: Path, *, engine: BuiltEngine, info: ModelInfo, config: PrecisionConfig,
                        model_bundle: Path, model_version: str = "", extra: Mapping[str, Any] | None = None) -> Path:
    """Assemble an engine bundle in ``dest`` from a built engine and the model bundle it came from."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / engine.path.name
    if engine.path.resolve() != target.resolve():
        shutil.copyfile(engine.path, target)
    for extra_file in engine.extra_files:
        if extra_file.resolve() != (dest / extra_file.name).resolve():
            shutil.copyfile(extra_file, dest / extra_file.name)
    for name in (CLASSES_FILE, PREPROCESS_FILE, *([MODEL_CONFIG] if engine.backend == "pytorch" else [])):
        shutil.copyfile(Path(model_bundle) / name, dest / name)
    (dest / PRECISION_CONFIG).write_text(config.to_json())
    num_classes = info.output.shape[-1] if isinstance(info.output.shape[-1], int) else None
    manifest = {
        "backend": engine.backend, "precision": engine.precision, "file": target.name,
        "input_name": info.input.name, "output_name": info.output.name,
        "input_shape": list(info.sample_shape), "max_batch": info.max_batch, "num_classes": num_classes,
        "model_version": model_version, "memory_mb": None,
        **engine.manifest, **dict(extra or {}),
    }
    (dest / ENGINE_MANIFEST).write_text(json.dumps(manifest, indent=2))
    return dest


def update_manifest(bundle: Path, **values: Any) -> dict[str, Any]:
    """Add measured values (memory_mb, latency…) to an existing ``engine.json``."""
    path = Path(bundle) / ENGINE_MANIFEST
    manifest = json.loads(path.read_text())
    manifest.update(values)
    path.write_text(json.dumps(manifest, indent=2))
    return dict(manifest)
