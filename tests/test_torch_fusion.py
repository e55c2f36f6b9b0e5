"""The FP16 engine's inference rewrite (BatchNorm folding) and its torch.compile fallback, on CPU."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from mlkit.engine.backends.torch_backend import TorchEngine, inference_module
from mlkit.engine.backends.torch_fusion import fold_batchnorm
from mlkit.model import build_model

torch.set_num_threads(1)


def _trained_like(arch: str = "resnet_tiny") -> nn.Module:
    """A classifier whose BatchNorms have non-trivial gains and running statistics."""
    torch.manual_seed(0)
    model = build_model(arch, 5)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            nn.init.uniform_(module.weight, 0.5, 1.5)
            nn.init.normal_(module.bias, 0, 0.2)
            nn.init.normal_(module.running_mean, 0, 0.3)
            nn.init.uniform_(module.running_var, 0.5, 2.0)
    return model.eval()


def _count_bn(model: nn.Module) -> int:
    return sum(isinstance(m, nn.BatchNorm2d) for m in model.modules())


def test_folding_removes_every_batchnorm_and_keeps_the_logits():
    model = _trained_like()
    x = torch.randn(3, 3, 32, 32)
    with torch.no_grad():
        expected = model(x)
        folded = copy.deepcopy(model)
        names = fold_batchnorm(folded, torch.float16)
        got = folded(x)
    assert len(names) == _count_bn(model) > 0 and _count_bn(folded) == 0
    assert isinstance(folded.get_submodule(names[0]), nn.Identity)
    assert torch.allclose(got, expected, atol=1e-5, rtol=1e-5)


def test_folding_leaves_pinned_pairs_and_training_modules_alone():
    model = _trained_like()
    pinned_bn, pinned_conv = "stages.0.0.body.1", "stem.0"  # the BN after a conv, and a conv before a BN
    fold_batchnorm(model, torch.float16, keep=[pinned_bn, pinned_conv])
    assert isinstance(model.get_submodule(pinned_bn), nn.BatchNorm2d)
    assert isinstance(model.get_submodule("stem.1"), nn.BatchNorm2d)
    assert _count_bn(model) == 2
    training = _trained_like().train()
    assert fold_batchnorm(training, torch.float16) == []


def test_folding_skips_a_pair_whose_folded_weights_overflow_fp16():
    model = _trained_like()
    bn = model.get_submodule("stem.1")
    assert isinstance(bn, nn.BatchNorm2d)
    with torch.no_grad():
        bn.running_var[0] = 1e-12  # gain / sqrt(var + eps) stays finite in FP32 ...
        bn.eps = 1e-12
        bn.weight[0] = 1e4  # ... but the folded weights do not fit in FP16
    names = fold_batchnorm(model, torch.float16)
    assert "stem.1" not in names and isinstance(model.get_submodule("stem.1"), nn.BatchNorm2d)
    assert "stem.1" in fold_batchnorm(copy.deepcopy(model), torch.float32)


def test_inference_module_folds_then_applies_the_plan():
    model = _trained_like()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        expected = model(x)
        served = inference_module(copy.deepcopy(model), "fp16", ["fc"])
        got = served(x.half())
    assert _count_bn(served) == 0 and served.fc.weight.dtype == torch.float32
    assert served.stem[0].weight.dtype == torch.float16
    assert (got.float() - expected).abs().max() < 2e-2


def test_residual_add_in_place_keeps_training_gradients():
    model = build_model("resnet_tiny", 5).train()
    x = torch.randn(4, 3, 32, 32)
    loss = model(x).logsumexp(1).mean()
    loss.backward()  # an in-place add on a tensor autograd still needs would raise here
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_engine_serves_uncompiled_when_compilation_fails(capsys: pytest.CaptureFixture[str]):
    model = inference_module(_trained_like(), "fp32", [])
    engine = TorchEngine(model, precision="fp32", device="cpu", max_batch=4, input_shape=(3, 32, 32),
                         cuda_graphs=False, compile_mode="default")

    def broken(_x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("inductor: no working C compiler")

    engine.module = broken  # what a failed torch.compile raises at its first call
    batch = torch.randn(2, 3, 32, 32)
    logits = engine.forward(batch)
    with torch.no_grad():
        assert torch.allclose(logits, model(batch))
    assert engine.compile_error and "no working C compiler" in engine.compile_error
    assert "serving uncompiled" in capsys.readouterr().err
    assert torch.allclose(engine.forward(batch), logits)  # from then on, plainly eager
