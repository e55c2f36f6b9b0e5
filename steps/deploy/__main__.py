"""``python -m steps.deploy``: the deploy step (contract: steps/deploy/contract.py)."""

from __future__ import annotations

from aipipe.stepkit import run_step

from .contract import CONTRACT
from .step import main

if __name__ == "__main__":
    run_step(CONTRACT.name, main)
