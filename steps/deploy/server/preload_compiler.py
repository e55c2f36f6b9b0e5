"""Fork-server preload entry: dynamo and inductor, for compiled engines (see :mod:`.preload`)."""

from steps.deploy.server.preload import COMPILER_MODULES, preload

preload(COMPILER_MODULES)
