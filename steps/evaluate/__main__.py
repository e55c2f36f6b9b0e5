"""Entry point: ``python -m steps.evaluate`` (see :mod:`steps.evaluate.main`)."""

from aipipe.stepkit import run_step
from steps.evaluate.main import main

if __name__ == "__main__":
    run_step("evaluate", main)
