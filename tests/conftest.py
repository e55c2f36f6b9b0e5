"""Shared test configuration.

Server fixtures (Label Studio, S3, MLflow, …) live in ``tests/fixtures_*.py`` plugins listed
below, one per server, started once per test session.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("AIPIPE_SHARED_DIR", REPO_ROOT.parent / "shared"))

pytest_plugins: list[str] = []
pytest_plugins += ["tests.fixtures_labelstudio", "tests.fixtures_s3"]
pytest_plugins += ["tests.fixtures_mlflow", "tests.fixtures_train"]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder with the Argo CRDs, swagger and conformance corpus."""
    if not SHARED_DIR.is_dir():
        pytest.fail(f"shared data not found at {SHARED_DIR} (set AIPIPE_SHARED_DIR)")
    return SHARED_DIR
