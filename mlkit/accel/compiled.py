"""torch.compile with a fallback: the compiled model when compiling works, else the eager one, said once."""

from __future__ import annotations

import logging
from typing import Any

import torch
from torch import nn

log = logging.getLogger("aipipe.train")

CUDA_GRAPHS_MODE = "reduce-overhead"  # inductor's kernels replayed as CUDA graphs (cudagraph trees)


def training_compile_mode(device: torch.device, distributed: bool) -> str | None:
    """The compile mode a training run takes: CUDA graphs on one GPU, inductor's default otherwise.

    Replaying the step as a CUDA graph takes kernel launches off the host, which the data-loader
    workers keep busy: on an H200 with 15 workers decoding JPEGs the default mode ran ResNet-50 at
    the eager rate (~4.4k img/s), CUDA graphs at ~5.5k (bench/train_bench.py). DDP's gradient hooks
    do not replay inside a graph, so distributed runs keep the default mode.
    """
    return CUDA_GRAPHS_MODE if device.type == "cuda" and not distributed else None


class CompiledOrEager:
    """Calls the ``torch.compile``-d module; when compiling fails (no Triton, no C compiler, an unsupported
    op) logs one warning and calls the eager module from then on. Other attributes (``no_sync`` of a DDP
    module) are the eager module's."""

    def __init__(self, module: nn.Module, mode: str | None = None) -> None:
        self.eager = module
        self.mode = mode
        self.compiled: Any = torch.compile(module, mode=mode)
        self.error: str | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.error is None:
            try:
                return self.compiled(*args, **kwargs)
            except torch.cuda.OutOfMemoryError:
                raise
            except Exception as exc:  # compile failures surface at the first call, before backward
                self.error = f"{type(exc).__name__}: {exc}"[:300]
                log.warning("torch.compile failed, training uncompiled: %s", self.error)
        return self.eager(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.eager, name)
