"""Checkpoints under a prefix scoped to the workflow run and the dataset version.

``<storage.root>/checkpoints/<model-name>/<run-id>/<dataset-version>/`` holds ``ckpt-<step>.pt``
(``torch.save`` of tensors, dicts, lists and numbers only) and, written after it, its commit marker
``ckpt-<step>.pt.sha256``. A checkpoint counts only once its marker exists, so a process killed
while writing leaves nothing half-visible; each object is itself written atomically (temporary
file + rename locally, a single PUT on S3). Loading uses ``torch.load(weights_only=True)``; a
latest checkpoint that fails its hash or does not load is skipped with a warning for the one before.
A retry of the same node finds its checkpoints; another run id never sees them.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
from pathlib import Path
from typing import Any

import torch

from aipipe.errors import ServiceUnavailable
from aipipe.storage import Storage, join

log = logging.getLogger("aipipe.train")

MARKER_SUFFIX = ".sha256"
_NAME = re.compile(r"ckpt-(\d+)\.pt$")


def checkpoint_prefix(storage_root: str, model_name: str, run_id: str, dataset_version: str) -> str:
    """The checkpoint folder URI of one workflow run on one dataset version."""
    return join(storage_root, "checkpoints", model_name, run_id, dataset_version)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class CheckpointStore:
    """Save and find checkpoints under one prefix; keeps the newest ``keep`` of them."""

    def __init__(self, storage: Storage, prefix: str, *, keep: int = 2) -> None:
        self.storage = storage
        self.prefix = prefix
        self.keep = max(keep, 2)  # the previous one is the fallback when the latest is corrupt

    def _uri(self, step: int) -> str:
        return join(self.prefix, f"ckpt-{step:09d}.pt")

    def steps(self) -> list[int]:
        """Global steps of the committed checkpoints, newest first."""
        found = []
        for uri in self.storage.list(self.prefix):
            if uri.endswith(MARKER_SUFFIX):
                match = _NAME.search(uri[: -len(MARKER_SUFFIX)])
                if match:
                    found.append(int(match.group(1)))
        return sorted(found, reverse=True)

    def save(self, state: dict[str, Any], step: int) -> str:
        """Write the checkpoint of global step ``step``, commit it, prune old ones; returns its URI."""
        uri = self._uri(step)
        with tempfile.TemporaryDirectory(prefix="aipipe-ckpt-") as tmp:
            path = Path(tmp) / "ckpt.pt"
            torch.save(state, path)
            self.storage.put_file(uri, path)
            self.storage.put_text(uri + MARKER_SUFFIX, _sha256(path))
        for old in self.steps()[self.keep:]:
            self.storage.delete(self._uri(old) + MARKER_SUFFIX)
            self.storage.delete(self._uri(old))
        return uri

    def _load(self, step: int) -> dict[str, Any]:
        uri = self._uri(step)
        expected = self.storage.get_text(uri + MARKER_SUFFIX).strip()
        with tempfile.TemporaryDirectory(prefix="aipipe-ckpt-") as tmp:
            path = self.storage.get_file(uri, Path(tmp) / "ckpt.pt")
            actual = _sha256(path)
            if actual != expected:
                raise ValueError(f"content hash {actual[:12]}… does not match its marker {expected[:12]}…")
            state = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or "model" not in state:
            raise ValueError("not a training checkpoint")
        return state

    def load_latest(self) -> dict[str, Any] | None:
        """The newest checkpoint that loads, falling back past corrupt ones; None when there is none."""
        for step in self.steps():
            try:
                return self._load(step)
            except ServiceUnavailable:
                raise  # the store is down, not the checkpoint: let the step be retried
            except Exception as exc:  # hash mismatch, truncated zip, refused pickle, missing object
                log.warning("checkpoint %s is unusable (%s); falling back to the previous one",
                            self._uri(step), exc)
        return None
