"""Engines compiled once, at conversion: what ran, for which device and versions, and the compile cache.

At conversion the PyTorch engine is compiled with ``torch.compile`` (its CUDA graphs captured by the
engine) and PyTorch's "Mega-Cache" (``torch.compiler.save_cache_artifacts()``) is written into the
bundle. A replica loads those artifacts (``load_cache_artifacts``) before it compiles, so a fresh
process compiles from the cache instead of from scratch. ``engine.json``'s ``runtime`` records the
plan; a replica on another device, torch, CUDA or Triton version refuses the compiled plan with one
clear line on stderr and serves the module uncompiled (eager + CUDA graphs) instead.
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.host import cpu_model

COMPILE_CACHE_FILE = "compile_cache.bin"
MAX_CACHE_BYTES = 512 * 2**20  # a bundle's cache larger than this is refused, not read into memory


def build_target(device: str) -> dict[str, str]:
    """What a compiled engine is tied to: the device model, torch, CUDA and Triton versions."""
    import torch

    if device == "cuda":
        major, minor = torch.cuda.get_device_capability(0)
        name, arch = torch.cuda.get_device_name(0), f"sm_{major}{minor}"
    else:
        name, arch = cpu_model(), platform.machine()
    try:
        import triton

        triton_version = str(triton.__version__)
    except ImportError:
        triton_version = ""
    return {"device": device, "device_name": name, "arch": arch, "torch": str(torch.__version__),
            "cuda": str(torch.version.cuda or ""), "triton": triton_version}


def target_mismatch(built_for: dict[str, Any], device: str) -> str:
    """Why a compiled engine built for ``built_for`` must not run compiled on ``device`` here ('' = it may)."""
    here = build_target(device)
    diffs = [f"{key} {built_for.get(key)!r} (here {here[key]!r})" for key in here if built_for.get(key) != here[key]]
    return ", ".join(diffs)


@dataclass(frozen=True)
class CompilePlan:
    """How a replica runs the engine: ``mode`` None = uncompiled; ``note`` says why when it fell back."""

    mode: str | None
    dynamic: bool | None
    cache: Path | None
    note: str = ""


def plan_for(runtime: dict[str, Any], bundle_dir: Path, device: str) -> CompilePlan:
    """The compile plan of a bundle's ``runtime`` on ``device``; a mismatch falls back uncompiled, said once."""
    mode = runtime.get("compile_mode")
    if not mode:
        return CompilePlan(None, None, None)
    dynamic = runtime.get("compile_dynamic")
    dynamic = None if dynamic in (None, "auto") else bool(dynamic)
    built_for = runtime.get("built_for")
    if isinstance(built_for, dict):
        mismatch = target_mismatch(built_for, device)
        if mismatch:
            note = (f"the engine was compiled for another target ({mismatch}); serving it uncompiled "
                    "(eager + CUDA graphs). Convert it again on this machine to serve it compiled")
            print(f"aipipe: {note}", file=sys.stderr, flush=True)
            return CompilePlan(None, None, None, note)
    name = runtime.get("compile_cache")
    cache = None
    if name:
        cache = (Path(bundle_dir) / Path(str(name)).name)
        if not cache.is_file() or cache.stat().st_size > MAX_CACHE_BYTES:
            print(f"aipipe: compile cache {cache.name} missing or too large; compiling without it",
                  file=sys.stderr, flush=True)
            cache = None
    return CompilePlan(str(mode), dynamic, cache)


def load_compile_cache(path: Path) -> dict[str, int]:
    """Hand the bundle's Mega-Cache artifacts to torch before compiling; returns entries per cache kind."""
    import torch

    info = torch.compiler.load_cache_artifacts(Path(path).read_bytes())
    return _count(info)


def save_compile_cache(path: Path) -> dict[str, int] | None:
    """Write the artifacts of everything compiled in this process (None when nothing was compiled)."""
    import torch

    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        return None
    data, info = saved
    Path(path).write_bytes(data)
    return _count(info)


def _count(info: Any) -> dict[str, int]:
    if info is None:
        return {}
    artifacts = getattr(info, "artifacts", {}) or {}
    return {str(kind): len(items) for kind, items in artifacts.items()}
