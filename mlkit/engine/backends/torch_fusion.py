"""Inference rewrite of a PyTorch module: each BatchNorm folded into the convolution before it.

A folded BatchNorm costs nothing at run time and, more to the point for a replica's footprint,
no activation of its own: the convolution writes the normalised tensor directly. The rewrite is
done in FP32, before the precision plan casts the module, and leaves alone every pair that the plan
names (a pinned layer keeps its own module and its cast hooks).
"""

from __future__ import annotations

from collections.abc import Collection
from itertools import pairwise

import torch
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval


def _foldable(conv: nn.Module, bn: nn.Module) -> bool:
    return (isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d) and not (conv.training or bn.training)
            and bn.running_mean is not None and bn.running_var is not None
            and conv.weight.dtype == torch.float32 and bn.num_features == conv.out_channels)


def _fits(conv: nn.Conv2d, dtype: torch.dtype) -> bool:
    """Whether the folded weights and bias survive a cast to ``dtype`` (no inf from a tiny running_var)."""
    return all(bool(torch.isfinite(p.detach().to(dtype)).all()) for p in (conv.weight, conv.bias) if p is not None)


def fold_batchnorm(model: nn.Module, dtype: torch.dtype, keep: Collection[str] = ()) -> list[str]:
    """Fold every eval-mode ``Conv2d → BatchNorm2d`` pair of an ``nn.Sequential`` in place; return the BNs folded.

    The BatchNorm is replaced by ``nn.Identity`` under its own name. A pair is skipped when either
    module is named in ``keep`` or when the folded weights would overflow ``dtype``.
    """
    folded: list[str] = []
    for prefix, seq in list(model.named_modules()):
        if not isinstance(seq, nn.Sequential):
            continue
        for conv_name, bn_name in pairwise(name for name, _ in seq.named_children()):
            conv, bn = seq.get_submodule(conv_name), seq.get_submodule(bn_name)
            qualified = (f"{prefix}.{conv_name}" if prefix else conv_name, f"{prefix}.{bn_name}" if prefix else bn_name)
            if not _foldable(conv, bn) or any(name in keep for name in qualified):
                continue
            assert isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)
            fused = fuse_conv_bn_eval(conv, bn)
            if not _fits(fused, dtype):
                continue
            setattr(seq, conv_name, fused)
            setattr(seq, bn_name, nn.Identity())
            folded.append(qualified[1])
    return folded
