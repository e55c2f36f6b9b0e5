"""Artifacts between nodes and the artifact repository (through :mod:`aipipe.storage`).

Output artifacts are saved under ``<artifact_root>/<key>``: the template's ``s3.key`` when it gives
one (key-only artifacts use the default repository), else ``<workflow>/<node id>/<name>.tgz``.
Files and folders are stored as ``tar.gz`` unless ``archive: none``, where a file is stored as is
and a folder as one object per file under the key. Input artifacts come from ``raw.data``, a
``from`` reference, or a key, and are materialised at their path; gzip archives are unpacked.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aipipe.errors import NotFoundError, UserError
from aipipe.storage import Storage, join

GZIP_MAGIC = b"\x1f\x8b"


class ArtifactError(Exception):
    """An artifact could not be saved or loaded (the node fails with this message)."""


def artifact_key(artifact: Mapping[str, Any]) -> str | None:
    """The repository key an artifact record or spec points at, if any."""
    for location in ("s3", "gcs", "oss", "azure", "hdfs", "artifactory"):
        loc = artifact.get(location)
        if isinstance(loc, Mapping) and loc.get("key"):
            return str(loc["key"])
    return None


def _is_archive_none(artifact: Mapping[str, Any]) -> bool:
    archive = artifact.get("archive") or {}
    return "none" in archive


def save_output(artifact: Mapping[str, Any], src: Path, storage: Storage, root_uri: str,
                default_key: str) -> dict[str, Any] | None:
    """Upload one output artifact; returns its status record, or None when optional and missing."""
    name = artifact["name"]
    if not src.exists():
        if artifact.get("optional"):
            return None
        raise ArtifactError(f"output artifact {name!r}: {artifact.get('path')} does not exist")
    key = artifact_key(artifact) or default_key
    uri = join(root_uri, key)
    record: dict[str, Any] = {"name": name, "path": artifact.get("path"), "s3": {"key": key}}
    if _is_archive_none(artifact):
        record["archive"] = {"none": {}}
        if src.is_dir():
            storage.delete(uri)
            storage.upload_dir(src, uri)
        else:
            storage.put_file(uri, src)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            tgz = Path(tmp) / "artifact.tgz"
            with tarfile.open(tgz, "w:gz") as tar:
                tar.add(src, arcname=src.name or "artifact")
            storage.put_file(uri, tgz)
    if artifact.get("globalName"):
        record["globalName"] = artifact["globalName"]
    return record


def _fetch(uri: str, dest: Path, storage: Storage) -> bool:
    """Download an object or a whole prefix to ``dest``; False when nothing is there."""
    if storage.exists(uri):
        storage.get_file(uri, dest)
        return True
    if storage.list(uri.rstrip("/") + "/"):
        storage.download_dir(uri.rstrip("/") + "/", dest)
        return True
    return False


def _unpack(archive: Path, dest: Path) -> None:
    """Extract a tar.gz; a single top-level entry becomes ``dest`` itself."""
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(tmp, filter="data")
        entries = list(Path(tmp).iterdir())
        source = entries[0] if len(entries) == 1 else Path(tmp)
        _replace(source, dest)


def _replace(source: Path, dest: Path) -> None:
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)
    elif dest.exists():
        dest.unlink()
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(dest))


def load_input(artifact: Mapping[str, Any], source: Mapping[str, Any] | None, dest: Path, storage: Storage,
               root_uri: str) -> bool:
    """Materialise one input artifact at ``dest`` (host path); False when optional and missing."""
    name = artifact["name"]
    raw = (source or {}).get("raw") or artifact.get("raw")
    if raw is not None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(str(raw.get("data", "")))
        return True
    key = artifact_key(source or {}) or artifact_key(artifact)
    if key is None:
        if artifact.get("optional"):
            return False
        kinds = ("http", "git", "hdfs", "artifactory", "azure", "gcs", "oss")
        other = [k for k in kinds if (source or artifact).get(k)]
        if other:
            raise ArtifactError(f"input artifact {name!r}: {other[0]} artifacts are not supported by the embedded "
                                "engine (use raw, from, or a key in the default repository)")
        raise ArtifactError(f"input artifact {name!r} has no source (give from, raw or s3.key)")
    sub_path = str((source or {}).get("subPath") or artifact.get("subPath") or "").strip("/")
    uri = join(root_uri, key)
    packed = not _is_archive_none(source or artifact) and storage.exists(uri)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        staged = Path(tmp) / "fetched"
        try:
            found = _fetch(join(uri, sub_path) if sub_path and not packed else uri, staged, storage)
        except NotFoundError:
            found = False
        except UserError as exc:
            raise ArtifactError(f"input artifact {name!r}: {exc}") from exc
        if not found:
            if artifact.get("optional"):
                return False
            raise ArtifactError(f"input artifact {name!r}: nothing stored at key {key!r}")
        if staged.is_file() and staged.read_bytes()[:2] == GZIP_MAGIC and tarfile.is_tarfile(staged):
            unpacked = Path(tmp) / "unpacked"
            _unpack(staged, unpacked)
            staged = unpacked
        if sub_path and packed:
            staged = staged / sub_path
            if not staged.exists():
                raise ArtifactError(f"input artifact {name!r}: subPath {sub_path!r} not found in the artifact")
        _replace(staged, dest)
    return True
