"""Fork-server preload entry: torch and the PyTorch engine runtime (see :mod:`.preload`)."""

from .preload import TORCH_MODULES, preload

preload(TORCH_MODULES)
