"""A CUDA MPS control daemon for a benchmark's lifetime, started as an operator would start one."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path


@contextlib.contextmanager
def mps_daemon(folder: Path, cores: Sequence[int] = ()) -> Iterator[None]:
    """An MPS control daemon with its pipe and log folders under ``folder``, named in this process's environment
    (the engine looks there; processes started from here inherit it), quit on exit. With ``cores`` the daemon and
    the MPS server it starts run on those cores only, as an operator keeps a host daemon off the cores lent out."""
    control = shutil.which("nvidia-cuda-mps-control")
    if control is None:
        raise SystemExit("MPS needs nvidia-cuda-mps-control on PATH")
    names = {"CUDA_MPS_PIPE_DIRECTORY": str(folder / "pipe"), "CUDA_MPS_LOG_DIRECTORY": str(folder / "log")}
    for path in names.values():
        Path(path).mkdir(parents=True)
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    try:
        pin = (lambda: os.sched_setaffinity(0, set(cores))) if cores else None
        subprocess.run([control, "-d"], check=True, preexec_fn=pin)
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
