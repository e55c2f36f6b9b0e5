"""Entry point: ``python -m steps.evaluate`` (see :mod:`steps.evaluate.main`).

The folder imports itself relatively, so a copy of it (the way to start a new step) is a step of its own."""

from aipipe.stepkit import run_step

from .contract import CONTRACT
from .main import main

if __name__ == "__main__":
    run_step(CONTRACT.name, main)
