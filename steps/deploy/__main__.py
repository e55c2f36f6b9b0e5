"""``python -m steps.deploy``: the deploy step (contract: steps/deploy/contract.py)."""

from __future__ import annotations

from aipipe.stepkit import run_step
from steps.deploy.contract import CONTRACT
from steps.deploy.step import main

if __name__ == "__main__":
    run_step(CONTRACT.name, main)
