"""Local stand-in for Kubernetes ConfigMaps: ``<home>/configmaps/NAME/KEY`` is key ``KEY`` of ConfigMap ``NAME``.

Beside the local secrets store (:mod:`aipipe.engine.secrets`). A ConfigMap name is checked as Kubernetes
checks object names (DNS-1123 subdomain) and a key as Kubernetes checks ConfigMap keys (letters, digits,
``-``, ``_``, ``.``); files in the folder whose names are not valid keys, and sub-folders, are not keys.
A value read for the environment loses one trailing newline (as a secret's does: files written by an
editor end with one); a value written into a volume is the file's exact content. A ConfigMap's labels are the
JSON object in its folder's ``@labels.json`` (a name no key can have); the engine sets them on the ConfigMaps
it creates (memoization caches, :mod:`aipipe.engine.memocache`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.confine import confined
from aipipe.errors import UserError
from aipipe.validation import name_problem

_KEY = re.compile(r"[-._a-zA-Z0-9]+")
MAX_KEY_LENGTH = 253
LABELS_FILE = "@labels.json"
DEFAULT_MODE = 0o644  # Kubernetes' defaultMode
READ_ONLY = 0o555  # the bits a file keeps on a read-only mount


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a valid ConfigMap key, or None."""
    if not key or len(key) > MAX_KEY_LENGTH:
        return f"must be 1 to {MAX_KEY_LENGTH} characters"
    if key == "." or key.startswith("..") or not _KEY.fullmatch(key):  # Kubernetes' IsConfigMapKey
        return "must consist of alphanumeric characters, '-', '_' or '.' (and not be '.' or start with '..')"
    return None


@dataclass(frozen=True)
class ConfigMapStore:
    """Resolves ConfigMap names and keys to values read from ``root``."""

    root: Path

    @classmethod
    def from_home(cls, home: Path) -> ConfigMapStore:
        return cls(root=home / "configmaps")

    def folder(self, name: str, field: str) -> Path:
        """Where ConfigMap ``name`` lives; a UserError naming ``field`` when it is not a valid name."""
        problem = name_problem(name)
        if problem:
            raise UserError(f"invalid ConfigMap name {name!r}: {problem}", field=field)
        return confined(self.root, name, field=field)

    def labels(self, name: str) -> dict[str, str]:
        """The labels of ConfigMap ``name`` (none when it has no labels file or the file is not an object)."""
        path = self.folder(name, "configMap") / LABELS_FILE
        try:
            found = json.loads(path.read_text())
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def set_labels(self, name: str, labels: Mapping[str, str]) -> None:
        """Give the existing ConfigMap ``name`` these labels."""
        (self.folder(name, "configMap") / LABELS_FILE).write_text(json.dumps(dict(labels), sort_keys=True) + "\n")

    def data(self, name: str, field: str = "configMap") -> dict[str, str] | None:
        """Every key of ConfigMap ``name`` with its file's exact content, or None when it does not exist."""
        folder = self.folder(name, field)
        if not folder.is_dir():
            return None
        return {p.name: p.read_text() for p in sorted(folder.iterdir())
                if p.is_file() and key_problem(p.name) is None}

    def get(self, name: str, key: str, optional: bool = False, field: str = "configMapKeyRef") -> str | None:
        """The value of ``key`` (one trailing newline removed); None when ``optional`` and the ConfigMap or the
        key is missing; otherwise a missing one is a UserError that says where to put it."""
        problem = key_problem(key)
        if problem:
            raise UserError(f"invalid ConfigMap key {key!r}: {problem}", field=field)
        folder = self.folder(name, field)
        path = folder / key
        if path.is_file():
            return path.read_text().removesuffix("\n")
        if optional:
            return None
        if not folder.is_dir():
            raise UserError(f"configmap {name!r} not found (create the folder {folder} with one file per key)",
                            field=field)
        raise UserError(f"configmap {name!r} has no key {key!r} (put it in {path})", field=field)

    def require(self, name: str, optional: bool, field: str) -> dict[str, str]:
        """All keys of ``name``: empty when ``optional`` and missing, else a missing ConfigMap is a UserError."""
        found = self.data(name, field)
        if found is not None:
            return found
        if optional:
            return {}
        raise UserError(f"configmap {name!r} not found (create the folder {self.root / name} with one file per "
                        "key, or mark the reference optional: true)", field=field)

    def volume_files(self, source: Mapping[str, Any], field: str) -> dict[str, tuple[str, int]]:
        """A ``configMap`` volume's files: relative path -> (content, mode). With ``items``, only those keys
        at their paths; a missing ConfigMap (or item key) of an ``optional`` volume gives no files."""
        name, optional = str(source.get("name")), bool(source.get("optional"))
        data = self.require(name, optional, field)
        default_mode = int(source.get("defaultMode") or DEFAULT_MODE)
        items = source.get("items")
        if not items:
            return {key: (value, default_mode) for key, value in data.items()}
        files = {}
        for i, item in enumerate(items):
            key = str(item.get("key"))
            if key not in data:
                if optional:
                    continue
                raise UserError(f"configmap {name!r} has no key {key!r} (put it in {self.root / name / key})",
                                field=f"{field}.items[{i}].key")
            files[str(item.get("path") or key)] = (data[key], int(item.get("mode") or default_mode))
        return files


def write_read_only(files: Mapping[str, tuple[str, int]], folder: Path, sub_path: str, field: str) -> list[Path]:
    """Write ``files`` under ``folder`` without write permission (a ConfigMap volume is a read-only mount);
    with ``sub_path``, ``folder`` is the mount path itself and gets that one file (or, as Kubernetes does for a
    path the volume lacks, an empty folder). Returns the folders made read-only, to unlock when the node ends."""
    if sub_path:
        if sub_path in files:
            content, mode = files[sub_path]
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.write_text(content)
            folder.chmod(mode & READ_ONLY)
            return []
        files = {}
    folder.mkdir(parents=True, exist_ok=True)
    locked = [folder]
    for relative, (content, mode) in files.items():
        path = confined(folder, relative, field=f"{field}.items.path")
        for parent in reversed(path.parents):
            if parent.is_relative_to(folder) and parent != folder and not parent.exists():
                parent.mkdir()
                locked.append(parent)
        path.write_text(content)
        path.chmod(mode & READ_ONLY)
    for path in reversed(locked):
        path.chmod(0o555)
    return locked


def unlock(folders: list[Path]) -> None:
    """Give back write permission to folders :func:`write_read_only` locked (so the node's folder can go)."""
    for path in folders:
        if path.is_dir():
            path.chmod(0o755)
