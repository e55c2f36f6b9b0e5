"""A real reduced-precision evaluator for the debugger with PyTorch (FP16/bf16 on a GPU, half on CPU).

Layers are the model's leaf modules in execution order (found by ``torch.fx`` tracing, which also
gives each layer's data-flow parents); their outputs are captured with forward hooks. Pins are
module paths. The FP32 reference runs with TF32 disabled.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import torch
from torch import nn

from mlkit.engine.backends.base import PrecisionPlan
from mlkit.engine.backends.torch_backend import apply_precision_plan


@contextmanager
def no_tf32() -> Iterator[None]:
    """FP32 matmuls and convolutions in true FP32 (TF32 off) for the duration."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def _leaf_graph(model: nn.Module) -> tuple[list[str], dict[str, list[str]]]:
    """Leaf modules in graph order and, for each, the nearest leaf modules feeding it."""
    import torch.fx

    class LeafTracer(torch.fx.Tracer):
        """Every module without children is a layer, custom ones included."""

        def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
            return next(iter(m.children()), None) is None or super().is_leaf_module(m, module_qualified_name)

    modules = dict(model.named_modules())
    traced = torch.fx.GraphModule(model, LeafTracer().trace(model))
    layers: list[str] = []
    feeding: dict[torch.fx.Node, list[str]] = {}
    parents: dict[str, list[str]] = {}
    for node in traced.graph.nodes:
        upstream = list(dict.fromkeys(name for arg in node.all_input_nodes for name in feeding.get(arg, [])))
        is_layer = (node.op == "call_module" and not isinstance(modules[str(node.target)], nn.Identity)
                    and str(node.target) not in parents)  # a module called twice is compared once
        if is_layer:
            name = str(node.target)
            layers.append(name)
            parents[name] = upstream
            feeding[node] = [name]
        else:
            feeding[node] = upstream
    return layers, parents


class TorchEvaluator:
    """Evaluates precision plans of one FP32 module on ``device``; inputs are batched to ``batch``."""

    name = "pytorch"
    supports_tactics = False
    final_outputs: Sequence[str] = ("logits",)

    def __init__(self, model: nn.Module, device: str = "cpu", batch: int = 16) -> None:
        self.model = copy.deepcopy(model).float().eval()
        self.device = torch.device(device)
        self.batch = batch
        self.layers, self._parents = _leaf_graph(self.model)

    def outputs_of(self, layer: str) -> list[str]:
        return [layer]

    def parents(self, layer: str) -> list[str]:
        return list(self._parents[layer])

    def tactics_of(self, layer: str) -> list[str]:
        return []

    def _capture(self, model: nn.Module, dtype: torch.dtype, inputs: np.ndarray,
                 tensors: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = set(tensors)
        chunks: dict[str, list[np.ndarray]] = {name: [] for name in tensors}
        modules = dict(model.named_modules())
        handles = [modules[name].register_forward_hook(
            lambda _m, _a, out, name=name: chunks[name].append(out.detach().float().cpu().numpy().copy()))
            for name in wanted if name in modules]
        try:
            with torch.no_grad():
                for i in range(0, len(inputs), self.batch):
                    x = torch.from_numpy(inputs[i:i + self.batch]).to(self.device, dtype)
                    logits = model(x)
                    if "logits" in wanted:
                        chunks["logits"].append(logits.float().cpu().numpy())
        finally:
            for handle in handles:
                handle.remove()
        return {name: np.concatenate(parts) for name, parts in chunks.items()}

    def reference(self, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]:
        with no_tf32():
            return self._capture(self.model.to(self.device), torch.float32, inputs, tensors)

    def run(self, plan: PrecisionPlan, inputs: np.ndarray, tensors: Sequence[str]) -> dict[str, np.ndarray]:
        candidate = apply_precision_plan(copy.deepcopy(self.model), plan.precision, plan.fp32_layers).to(self.device)
        from mlkit.engine.backends.torch_backend import torch_dtype

        with no_tf32():
            return self._capture(candidate, torch_dtype(plan.precision), inputs, tensors)
