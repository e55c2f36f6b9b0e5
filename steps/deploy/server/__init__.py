"""The serving runtime: a CPU/GPU-separated inference service for an engine bundle.

``python -m steps.deploy.server --engine-dir PATH`` runs it in the foreground. Layout (see
:mod:`.service`, :mod:`.supervisor` for the processes, :mod:`.router` for the requests): an aiohttp
proxy (health, metrics, limits, timeouts) over the router (dispatch, back-pressure),
CPU worker processes (decode, preprocess, postprocess; :mod:`.cpu_worker`) and GPU processes (one
engine replica each, dynamic batching, memory cap; :mod:`.gpu_worker`) exchanging tensors through
a fixed shared-memory slot pool (:mod:`.slots`) with small control records (:mod:`.protocol`).

:func:`launch` starts it as a child process and waits until it listens (for the deployer and tests).
"""

from __future__ import annotations

from .config import ServerConfig
from .launcher import RunningServer, launch

__all__ = ["RunningServer", "ServerConfig", "launch"]
