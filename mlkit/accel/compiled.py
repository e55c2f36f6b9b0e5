"""torch.compile with a fallback: the compiled model when compiling works, else the eager one, said once."""

from __future__ import annotations

import logging
from typing import Any

import torch
from torch import nn

log = logging.getLogger("aipipe.train")


class CompiledOrEager:
    """Calls the ``torch.compile``-d module; when compiling fails (no Triton, no C compiler, an unsupported
    op) logs one warning and calls the eager module from then on. Other attributes (``no_sync`` of a DDP
    module) are the eager module's."""

    def __init__(self, module: nn.Module) -> None:
        self.eager = module
        self.compiled: Any = torch.compile(module)
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
