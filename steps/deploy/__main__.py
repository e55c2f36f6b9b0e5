"""``python -m steps.deploy``: the deploy step (contract DEPLOY)."""

from __future__ import annotations

from aipipe.stepkit import run_step
from steps.deploy.step import main

if __name__ == "__main__":
    run_step("deploy", main)
