"""A CUDA MPS control daemon for a benchmark's lifetime, started as an operator would start one."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def mps_daemon(folder: Path) -> Iterator[None]:
    """An MPS control daemon with its pipe and log folders under ``folder``, named in this process's environment
    (the engine looks there; processes started from here inherit it), quit on exit."""
    control = shutil.which("nvidia-cuda-mps-control")
    if control is None:
        raise SystemExit("MPS needs nvidia-cuda-mps-control on PATH")
    names = {"CUDA_MPS_PIPE_DIRECTORY": str(folder / "pipe"), "CUDA_MPS_LOG_DIRECTORY": str(folder / "log")}
    for path in names.values():
        Path(path).mkdir(parents=True)
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    try:
        subprocess.run([control, "-d"], check=True)
        deadline = time.monotonic() + 30
        while not (folder / "pipe" / "control").exists():
            if time.monotonic() > deadline:
                raise SystemExit("the MPS daemon did not make its control socket within 30 s")
            time.sleep(0.1)
        yield
    finally:
        subprocess.run([control], input=b"quit\n", check=False, timeout=60)
        for key, value in saved.items():
            os.environ.pop(key, None)
            if value is not None:
                os.environ[key] = value
