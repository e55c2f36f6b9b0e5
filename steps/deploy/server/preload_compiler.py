"""Fork-server preload entry: dynamo and inductor, for compiled engines (see :mod:`.preload`)."""

from .preload import COMPILER_MODULES, preload

preload(COMPILER_MODULES)
