"""The engine's configuration, handed to it by its entry point: the engine itself reads no application config.

:class:`EngineSettings` says where the engine keeps its own state, its bounds, which host variables and
folders reach a node, and (as an :class:`~aipipe.engine.images.ImageMap`) how images run locally. The
application builds it from its own configuration (aipipe: :func:`aipipe.engine.context.engine_settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aipipe.engine.images import ImageMap

HOST_LOCALE_ENV = ("LANG", "LC_ALL", "TZ", "HOME", "USER")  # what a container's environment commonly has


@dataclass(frozen=True)
class NodeEnvironment:
    """What reaches every node's environment: ``passthrough`` host variables (when set on the host) and
    ``fixed`` values; the image's and the template's own variables come after both."""

    passthrough: tuple[str, ...] = HOST_LOCALE_ENV
    fixed: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeFolders:
    """Host folders and nodes: ``shared`` ones a node may write besides its own, ``read_only`` ones every node
    sees as they are (the engine adds its interpreter's prefixes), ``hidden`` ones replaced by an empty
    private folder (the engine adds the user's home)."""

    shared: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()


@dataclass(frozen=True)
class EngineSettings:
    """Everything configurable about the engine; ``state_dir`` holds its locks and local ConfigMaps."""

    state_dir: Path
    namespace: str = "default"
    max_nodes: int = 10000
    gpu_fallback: str = "cpu"  # "cpu": a node asking for GPUs runs without when none exists; "fail"
    gpu_resource: str = "nvidia.com/gpu"  # the resource name a template's GPU request uses
    gpu_policy: tuple[float, str] = (300.0, "binpack")  # the GPU queue's aging (s per level) and placement
    images: ImageMap = field(default_factory=ImageMap)
    node_env: NodeEnvironment = field(default_factory=NodeEnvironment)
    folders: NodeFolders = field(default_factory=NodeFolders)
