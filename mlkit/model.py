"""Image classifiers in plain ``torch.nn`` and the model bundle's config/weights round trip.

Two architectures: ``resnet_tiny`` (a small ResNet for CPU tests at 32–64 px) and ``resnet50``
(the standard bottleneck ResNet-50 layout, ~25M parameters, for 224 px benchmarks). A model is
rebuilt from ``model_config.json`` + ``model.safetensors``; weights are never unpickled.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import torch
from torch import nn

from aipipe.contract import CLASSES_FILE, MODEL_CONFIG, MODEL_WEIGHTS, PREPROCESS_FILE
from aipipe.errors import UserError

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def _conv_bn(cin: int, cout: int, kernel: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout)]


def _residual(body_out: torch.Tensor, shortcut_out: torch.Tensor, relu: nn.Module) -> torch.Tensor:
    """relu(body + shortcut), added in place into the branch output so no third tensor is allocated."""
    body_out += shortcut_out
    return relu(body_out)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with an identity (or 1x1 projection) shortcut."""

    expansion = 1

    def __init__(self, cin: int, width: int, stride: int = 1) -> None:
        super().__init__()
        cout = width * self.expansion
        self.body = nn.Sequential(*_conv_bn(cin, width, 3, stride), nn.ReLU(inplace=True), *_conv_bn(width, cout, 3))
        self.shortcut = (nn.Sequential(*_conv_bn(cin, cout, 1, stride))
                         if stride != 1 or cin != cout else nn.Identity())
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _residual(self.body(x), self.shortcut(x), self.relu)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided, as in ResNet v1.5), 1x1 expand by 4, with a shortcut."""

    expansion = 4

    def __init__(self, cin: int, width: int, stride: int = 1) -> None:
        super().__init__()
        cout = width * self.expansion
        self.body = nn.Sequential(
            *_conv_bn(cin, width, 1), nn.ReLU(inplace=True),
            *_conv_bn(width, width, 3, stride), nn.ReLU(inplace=True),
            *_conv_bn(width, cout, 1),
        )
        self.shortcut = (nn.Sequential(*_conv_bn(cin, cout, 1, stride))
                         if stride != 1 or cin != cout else nn.Identity())
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _residual(self.body(x), self.shortcut(x), self.relu)


class ResNet(nn.Module):
    """A ResNet: stem, stages of residual blocks, global average pool, linear classifier."""

    def __init__(self, block: type[BasicBlock] | type[Bottleneck], depths: tuple[int, ...],
                 widths: tuple[int, ...], num_classes: int, stem: nn.Module, stem_width: int) -> None:
        super().__init__()
        self.stem = stem
        stages: list[nn.Module] = []
        cin = stem_width
        for i, (depth, width) in enumerate(zip(depths, widths, strict=True)):
            blocks: list[nn.Module] = []
            for j in range(depth):
                blocks.append(block(cin, width, 2 if (j == 0 and i > 0) else 1))
                cin = width * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)
        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        # zero-init the last BN of each residual branch: every block starts as identity
        for m in self.modules():
            if isinstance(m, (BasicBlock, Bottleneck)):
                last_bn = m.body[-1]
                assert isinstance(last_bn, nn.BatchNorm2d)
                nn.init.zeros_(last_bn.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.stages(self.stem(x))), 1))


def _resnet_tiny(num_classes: int, width: int = 16) -> ResNet:
    stem = nn.Sequential(*_conv_bn(3, width, 3), nn.ReLU(inplace=True))
    return ResNet(BasicBlock, (1, 1, 1), (width, width * 2, width * 4), num_classes, stem, width)


def _resnet50(num_classes: int) -> ResNet:
    stem = nn.Sequential(*_conv_bn(3, 64, 7, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
    return ResNet(Bottleneck, (3, 4, 6, 3), (64, 128, 256, 512), num_classes, stem, 64)


ARCHS: dict[str, Callable[..., ResNet]] = {"resnet_tiny": _resnet_tiny, "resnet50": _resnet50}


def build_model(arch: str, num_classes: int, **kw: Any) -> nn.Module:
    """Build a freshly initialised classifier; ``kw`` are architecture options (resnet_tiny: width)."""
    if arch not in ARCHS:
        raise UserError(f"unknown architecture {arch!r} (known: {', '.join(ARCHS)})", field="arch")
    if num_classes < 2:
        raise UserError(f"a classifier needs at least 2 classes, got {num_classes}", field="num_classes")
    try:
        return ARCHS[arch](num_classes, **kw)
    except TypeError as exc:
        raise UserError(f"bad options for {arch}: {exc}", field="arch") from exc


def model_config(arch: str, num_classes: int, **kw: Any) -> dict[str, Any]:
    """The ``model_config.json`` content that rebuilds the module with :func:`build_model`."""
    return {"arch": arch, "num_classes": num_classes, "options": dict(kw)}


def build_from_config(config: Mapping[str, Any]) -> nn.Module:
    """Build the (uninitialised-weights) module described by a ``model_config.json`` mapping."""
    try:
        arch, num_classes = str(config["arch"]), int(config["num_classes"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"model config needs 'arch' and integer 'num_classes': {exc}", field=MODEL_CONFIG) from exc
    return build_model(arch, num_classes, **dict(config.get("options") or {}))


def preprocess_spec(image_size: int, mean: tuple[float, ...] = IMAGENET_MEAN,
                    std: tuple[float, ...] = IMAGENET_STD, input_name: str = "input") -> dict[str, Any]:
    """The ``preprocess.json`` content: how serving must turn an image into the model input.

    The whole image is resized (bilinear) to ``input_size`` square, scaled to [0, 1], then normalised.
    """
    return {"input_size": int(image_size), "mean": list(mean), "std": list(std), "layout": "NCHW",
            "color": "RGB", "input_name": input_name, "interpolation": "bilinear"}


def state_dict_for_save(model: nn.Module) -> dict[str, torch.Tensor]:
    """Contiguous CPU tensors of a module's state, unwrapping DDP / torch.compile wrappers."""
    inner = getattr(model, "_orig_mod", model)
    inner = getattr(inner, "module", inner)
    return {k: v.detach().to("cpu").contiguous() for k, v in inner.state_dict().items()}


def save_weights(model: nn.Module, path: Path) -> Path:
    """Write a module's weights as safetensors."""
    from safetensors.torch import save_file

    save_file(state_dict_for_save(model), str(path))
    return path


def load_weights(model: nn.Module, path: Path) -> nn.Module:
    """Load safetensors weights into ``model`` (strict: names and shapes must match)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        state = load_file(str(path))
    except (SafetensorError, OSError) as exc:
        raise UserError(f"cannot read weights: {exc}", field=str(path)) from exc
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise UserError(f"weights do not fit the model: {exc}", field=str(path)) from exc
    return model


def load_pretrained(model: nn.Module, path: Path) -> nn.Module:
    """Initialise from pretrained weights (``.safetensors``, or a tensor-only ``torch.save`` file).

    Torch files are read with ``weights_only=True``, so no code in them runs. Keys whose shape
    differs from the model (a classifier head with another class count) are skipped.
    """
    state: Any
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        state = load_file(str(path))
    else:
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # torch raises UnpicklingError/RuntimeError for bad files
            raise UserError(f"cannot read pretrained weights (tensor-only files accepted): {exc}",
                            field="pretrained") from exc
        state = state.get("model", state) if isinstance(state, dict) else state
    if not isinstance(state, Mapping):
        raise UserError("pretrained file holds no state dict", field="pretrained")
    own = model.state_dict()
    usable = {k: v for k, v in state.items() if k in own and tuple(v.shape) == tuple(own[k].shape)}
    if not usable:
        raise UserError("no tensor in the pretrained file matches the model", field="pretrained")
    model.load_state_dict(usable, strict=False)
    return model


def load_model_bundle(bundle_dir: str | Path) -> tuple[nn.Module, dict[str, Any], list[str]]:
    """Rebuild (module in eval mode, preprocess spec, class names) from a local model bundle."""
    root = Path(bundle_dir)
    files = {name: root / name for name in (MODEL_CONFIG, MODEL_WEIGHTS, PREPROCESS_FILE, CLASSES_FILE)}
    missing = [name for name, p in files.items() if not p.is_file()]
    if missing:
        raise UserError(f"model bundle is missing {', '.join(missing)}", field=str(root))
    try:
        config = json.loads(files[MODEL_CONFIG].read_text())
        preprocess = json.loads(files[PREPROCESS_FILE].read_text())
        classes = json.loads(files[CLASSES_FILE].read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"model bundle has invalid JSON: {exc}", field=str(root)) from exc
    model = load_weights(build_from_config(config), files[MODEL_WEIGHTS])
    if len(classes) != int(config["num_classes"]):
        raise UserError(f"classes.json has {len(classes)} names but the model {config['num_classes']} outputs",
                        field=str(root))
    return model.eval(), preprocess, list(classes)
