"""Helpers to call the ``aipipe`` CLI as a real process against a private AIPIPE_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Engine:
    """A private AIPIPE_HOME and a way to run ``aipipe`` against it."""

    home: Path
    cwd: Path

    @property
    def markers(self) -> Path:
        """A folder nodes can write to: under the storage root, which every node sees."""
        path = self.home / "store" / "markers"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def env(self) -> dict[str, str]:
        env = {**os.environ, "AIPIPE_HOME": str(self.home), "PYTHONPATH": os.pathsep.join(
            filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH"))))}
        for var in ("AIPIPE_CONFIG", "AIPIPE_STORAGE_ROOT", "AIPIPE_SERVER_TOKEN"):
            env.pop(var, None)
        return env

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "aipipe.cli.main", *args]

    def run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(*args), cwd=self.cwd, env=self.env(), capture_output=True, text=True,
                              timeout=timeout)

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command(*args), cwd=self.cwd, env=self.env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def write_workflow(self, name: str, doc: dict[str, Any]) -> Path:
        path = self.cwd / name
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        return path


def workflow(generate_name: str, entrypoint: str, templates: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": generate_name},
            "spec": {"entrypoint": entrypoint, "templates": list(templates)}}


def shell(name: str, script: str, env: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    """A container template running ``sh -c script`` (the image is ignored by the engine)."""
    container: dict[str, Any] = {"image": "alpine:3.20", "command": ["sh", "-c", script]}
    if env:
        container["env"] = env
    return {"name": name, **extra, "container": container}


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    cwd = tmp_path / "work"
    cwd.mkdir()
    return Engine(tmp_path / "home", cwd)
