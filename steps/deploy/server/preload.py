"""What GPU replicas fork with: the heavy imports paid once, in the server the replicas fork from.

A replica of a compiled engine spends most of its start importing torch, dynamo and inductor. The
supervisor starts GPU replicas through a ``forkserver`` whose preload list is :func:`modules_for`
the engine: the entry modules :mod:`.preload_server` (SIGTERM ignored), :mod:`.preload_torch` and
:mod:`.preload_compiler` import those modules there once, so each replica forks with them imported
and only loads the compile cache, compiles from it and captures its CUDA graphs. Nothing here
touches CUDA (a forked child cannot use a CUDA context its parent made): the fork server asks NVML,
not the CUDA driver, whether a GPU is there, and records that torch's CUDA is still uninitialised
after its imports. A module that fails
to import is skipped and named; the replica imports it itself.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from typing import Any

TORCH_MODULES = ("numpy", "torch", "mlkit.engine.runtime", "mlkit.engine.backends.torch_backend")
COMPILER_MODULES = ("torch._dynamo", "torch._functorch.aot_autograd", "torch._inductor.compile_fx",
                    "torch._inductor.codecache", "torch._inductor.runtime.triton_heuristics",
                    "torch._inductor.codegen.triton", "torch.compiler", "mlkit.engine.compiled")
SERVER_ENTRY = f"{__package__}.preload_server"
TORCH_ENTRY = f"{__package__}.preload_torch"
COMPILER_ENTRY = f"{__package__}.preload_compiler"

# filled in the fork server by the entry modules; a replica forked from it inherits it
STATE: dict[str, Any] = {}


def modules_for(manifest: dict[str, Any]) -> list[str]:
    """The preload entries for a replica of the engine ``manifest`` describes (torch only for PyTorch)."""
    if manifest.get("backend") != "pytorch":
        return [SERVER_ENTRY]
    runtime = manifest.get("runtime")
    compiled = isinstance(runtime, dict) and bool(runtime.get("compile_mode"))
    return [SERVER_ENTRY, TORCH_ENTRY, *([COMPILER_ENTRY] if compiled else [])]


def preload(names: Iterable[str]) -> None:
    """Import ``names`` here (in the fork server), never initialising CUDA; record what it cost."""
    # torch.cuda.is_available() through NVML: the CUDA driver stays uninitialised in the server
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    started = time.perf_counter()
    failed = dict(STATE.get("failed", {}))
    for name in names:
        try:
            __import__(name)
        except Exception as exc:  # a module the replica will import itself (and report, if it matters)
            failed[name] = f"{type(exc).__name__}: {exc}"[:200]
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    STATE.update(pid=os.getpid(), failed=failed,
                 import_s=round(STATE.get("import_s", 0.0) + time.perf_counter() - started, 2),
                 modules=sorted({*STATE.get("modules", []), *(n for n in names if n in sys.modules)}),
                 cuda_initialized=bool(cuda is not None and cuda.is_initialized()))
    if STATE["cuda_initialized"]:  # a forked replica could not use CUDA: say so where the server logs go
        print("aipipe-serve: the replica fork server initialised CUDA while importing; replicas will fail",
              file=sys.stderr, flush=True)


def server_state() -> dict[str, Any]:
    """What the fork server this process was forked from preloaded ({} when not forked from one)."""
    if not STATE or STATE.get("pid") == os.getpid():
        return {}
    return {"server_pid": STATE["pid"], "import_s": STATE["import_s"], "modules": len(STATE["modules"]),
            "failed": STATE["failed"], "cuda_initialized_in_server": STATE["cuda_initialized"]}
