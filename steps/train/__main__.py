"""Entry point: ``python -m steps.train`` (see :mod:`steps.train.main`)."""

from aipipe.stepkit import run_step

from .contract import CONTRACT
from .main import main

if __name__ == "__main__":
    run_step(CONTRACT.name, main)
