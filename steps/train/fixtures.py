"""Test fixtures other steps use: a complete model bundle from a randomly initialised resnet_tiny."""

from __future__ import annotations

from pathlib import Path

import torch

from steps.train.export import write_model_bundle
from steps.train.model import build_model, model_config, preprocess_spec


def write_tiny_model_bundle(dest: Path, *, num_classes: int = 3, image_size: int = 32, seed: int = 0,
                            classes: list[str] | None = None) -> Path:
    """Write a contract model bundle (ONNX, safetensors, config, classes, preprocess) into ``dest``.

    Uses the train step's own export code. BatchNorm statistics are warmed on random inputs so the
    model's outputs depend on its input (a freshly initialised ResNet is near-constant).
    """
    names = list(classes) if classes is not None else [f"class_{i}" for i in range(num_classes)]
    if len(names) != num_classes:
        raise ValueError(f"{len(names)} class names for {num_classes} classes")
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = build_model("resnet_tiny", num_classes)
        for module in model.modules():  # random BN gains, so no residual branch starts as zero
            if isinstance(module, torch.nn.BatchNorm2d):
                torch.nn.init.uniform_(module.weight, 0.5, 1.5, generator=generator)
        torch.nn.init.normal_(model.fc.weight, 0.0, 1.0, generator=generator)  # logits spread ~±1
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.rand(8, 3, image_size, image_size, generator=generator))
    model.eval()
    return write_model_bundle(Path(dest), model, model_config("resnet_tiny", num_classes), names,
                              preprocess_spec(image_size))
