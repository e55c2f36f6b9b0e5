"""Artifacts between nodes and the artifact repository (through :mod:`aipipe.storage`).

Output artifacts are saved under ``<artifact_root>/<key>``: the template's ``s3.key`` when it gives
one (key-only artifacts use the default repository), else ``<workflow>/<node id>/<name>.tgz``.
Files and folders are stored as ``tar.gz`` unless ``archive: none``, where a file is stored as is
and a folder as one object per file under the key. Input artifacts come from ``raw.data``, a
``from`` reference, a key or an ``http`` URL, and are materialised at their path; gzip archives are unpacked. An
output artifact with an ``http`` URL is sent there, not to the store (:mod:`aipipe.engine.httpartifact`).
"""

from __future__ import annotations

import tarfile
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from aipipe.confine import confined
from aipipe.engine.archives import GZIP_MAGIC, ArtifactError, replace_path, safe_unzip, unpack_tarball
from aipipe.engine.httpartifact import HttpArtifactError, fetch, http_location, send
from aipipe.engine.secrets import SecretStore
from aipipe.errors import NotFoundError, UserError
from aipipe.storage import Storage, join, parse_uri


def artifact_key(artifact: Mapping[str, Any]) -> str | None:
    """The repository key an artifact record or spec points at, if any."""
    for location in ("s3", "gcs", "oss", "azure", "hdfs", "artifactory"):
        loc = artifact.get(location)
        if isinstance(loc, Mapping) and loc.get("key"):
            return str(loc["key"])
    return None


def key_uri(root_uri: str, *parts: str, field: str = "artifact key") -> str:
    """``root_uri`` joined with key parts that stay inside it: no ``..``; under a ``file://`` root no symlink
    out of it either (a leading ``/`` is dropped, as a storage key has none)."""
    parts = tuple(p.strip("/") for p in parts if p and p.strip("/"))
    for part in parts:
        if ".." in PurePosixPath(part).parts:
            raise ArtifactError(f"{field} {part!r} must not contain '..'")
    loc = parse_uri(root_uri)
    if loc.scheme != "file":
        return join(root_uri, *parts)
    try:
        return confined(loc.key, *parts, field=field).as_uri()
    except UserError as exc:
        raise ArtifactError(f"{field}: {exc}") from exc


def _is_archive_none(artifact: Mapping[str, Any]) -> bool:
    archive = artifact.get("archive") or {}
    return "none" in archive


def _is_zip(artifact: Mapping[str, Any]) -> bool:
    archive = artifact.get("archive") or {}
    return "zip" in archive


def archive_suffix(artifact: Mapping[str, Any]) -> str:
    """The default key's suffix for an output artifact: none, ``.zip`` or ``.tgz`` (Argo's default, tar + gzip)."""
    return "" if _is_archive_none(artifact) else ".zip" if _is_zip(artifact) else ".tgz"


def save_output(artifact: Mapping[str, Any], src: Path, storage: Storage, root_uri: str,
                default_key: str, secrets: SecretStore) -> dict[str, Any] | None:
    """Upload one output artifact (to its ``http`` URL when it names one); returns its status record, or None when
    optional and missing."""
    name = artifact["name"]
    if not src.exists():
        if artifact.get("optional"):
            return None
        raise ArtifactError(f"output artifact {name!r}: {artifact.get('path')} does not exist")
    location = http_location(artifact)
    record: dict[str, Any] = {"name": name, "path": artifact.get("path")}
    if location is not None:
        record["http"] = dict(location)
        _send_http(artifact, location, src, secrets, record)
    else:
        key = artifact_key(artifact) or default_key
        record["s3"] = {"key": key}
        _store(artifact, src, storage, key_uri(root_uri, key), record)
    if artifact.get("globalName"):
        record["globalName"] = artifact["globalName"]
    return record


def _store(artifact: Mapping[str, Any], src: Path, storage: Storage, uri: str, record: dict[str, Any]) -> None:
    """Put ``src`` at ``uri`` as the artifact's archive strategy says (a folder unpacked: one object per file)."""
    if _is_archive_none(artifact) and src.is_dir():
        record["archive"] = {"none": {}}
        _refuse_links_out(src, artifact["name"])
        storage.delete(uri)
        storage.upload_dir(src, uri)
        return
    with tempfile.TemporaryDirectory() as tmp:
        storage.put_file(uri, _packed(artifact, src, Path(tmp), record))


def _send_http(artifact: Mapping[str, Any], location: Mapping[str, Any], src: Path, secrets: SecretStore,
               record: dict[str, Any]) -> None:
    """PUT ``src``, packed as the artifact's archive strategy says, to its ``http`` URL."""
    name = artifact["name"]
    if _is_archive_none(artifact) and src.is_dir():
        raise ArtifactError(f"output artifact {name!r}: a folder sent to an http URL needs an archive (the default "
                            "tar.gz, or zip), not archive: none")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            send(location, _packed(artifact, src, Path(tmp), record), secrets)
        except HttpArtifactError as exc:
            raise ArtifactError(f"output artifact {name!r}: {exc}") from exc


def _packed(artifact: Mapping[str, Any], src: Path, tmp: Path, record: dict[str, Any]) -> Path:
    """The one file to upload: ``src`` itself (``archive: none``, a file), a zip, or Argo's default tar.gz in
    ``tmp``; ``record`` gets the archive strategy used."""
    if _is_archive_none(artifact):
        record["archive"] = {"none": {}}
        return src
    if _is_zip(artifact):
        record["archive"] = {"zip": {}}
        packed = tmp / "artifact.zip"
        _zip(src, packed, artifact["name"])
        return packed
    packed = tmp / "artifact.tgz"
    with tarfile.open(packed, "w:gz") as tar:
        tar.add(src, arcname=src.name or "artifact")
    return packed


def _zip(src: Path, dest: Path, name: str) -> None:
    """``src`` (a file, or a folder with everything under it) into a zip archive, under its own name."""
    if src.is_dir():
        _refuse_links_out(src, name)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(src, src.name or "artifact")
        for path in sorted(src.rglob("*")) if src.is_dir() else []:
            archive.write(path, str(Path(src.name or "artifact") / path.relative_to(src)))


def _refuse_links_out(folder: Path, name: str) -> None:
    """A folder uploaded file by file follows its symlinks: none may lead out of it."""
    base = folder.resolve()
    for path in folder.rglob("*"):
        if path.is_symlink() and not path.resolve().is_relative_to(base):
            raise ArtifactError(f"output artifact {name!r}: {path.relative_to(folder)} links outside the artifact")


def _fetch(uri: str, dest: Path, storage: Storage) -> bool:
    """Download an object or a whole prefix to ``dest``; False when nothing is there."""
    if storage.exists(uri):
        storage.get_file(uri, dest)
        return True
    if storage.list(uri.rstrip("/") + "/"):
        storage.download_dir(uri.rstrip("/") + "/", dest)
        return True
    return False


def load_input(artifact: Mapping[str, Any], source: Mapping[str, Any] | None, dest: Path, storage: Storage,
               root_uri: str, secrets: SecretStore) -> bool:
    """Materialise one input artifact at ``dest`` (host path); False when optional and missing."""
    name = artifact["name"]
    located = source if source is not None else artifact  # as Argo's ProcessArgs: an argument replaces a default
    raw = located.get("raw")
    if raw is not None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(str(raw.get("data", "")))
        _apply_mode(artifact, dest)
        return True
    location = http_location(located)
    key = artifact_key(located)
    if key is None and location is None:
        if artifact.get("optional"):
            return False
        kinds = ("git", "hdfs", "artifactory", "azure", "gcs", "oss")
        other = [k for k in kinds if located.get(k)]
        if other:
            raise ArtifactError(f"input artifact {name!r}: {other[0]} artifacts are not supported by the embedded "
                                "engine (use raw, from, or a key in the default repository)")
        raise ArtifactError(f"required artifact {name!r} not supplied")  # Argo's executor words
    sub_path = str((source or {}).get("subPath") or artifact.get("subPath") or "").strip("/")
    uri = key_uri(root_uri, key) if key is not None else ""
    # a subPath is taken inside what was fetched, except from an unpacked folder in the store
    packed = location is not None or (not _is_archive_none(located) and storage.exists(uri))
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        staged = Path(tmp) / "fetched"
        try:
            if location is not None:
                found = fetch(location, staged, secrets)
            else:
                found = _fetch(key_uri(root_uri, str(key), sub_path, field="subPath") if sub_path and not packed
                               else uri, staged, storage)
        except NotFoundError:
            found = False
        except (UserError, HttpArtifactError) as exc:
            raise ArtifactError(f"input artifact {name!r}: {exc}") from exc
        if not found:
            if artifact.get("optional"):
                return False
            where = f"at {location.get('url')} (404 Not Found)" if location is not None else f"at key {key!r}"
            raise ArtifactError(f"input artifact {name!r}: nothing stored {where}")
        # as Argo's unarchiveArtifact: `none` is taken as fetched, `zip` only when said, a tarball when it is one
        strategy = located
        if _is_zip(strategy) and staged.is_file() and zipfile.is_zipfile(staged):
            unpacked = Path(tmp) / "unpacked"
            safe_unzip(staged, unpacked)
            staged = unpacked
        elif (not _is_archive_none(strategy) and staged.is_file() and staged.read_bytes()[:2] == GZIP_MAGIC
              and tarfile.is_tarfile(staged)):
            unpacked = Path(tmp) / "unpacked"
            unpack_tarball(staged, unpacked)
            staged = unpacked
        if sub_path and packed:
            try:
                staged = confined(staged, sub_path, field="subPath")
            except UserError as exc:
                raise ArtifactError(f"input artifact {name!r}: {exc}") from exc
            if not staged.exists():
                raise ArtifactError(f"input artifact {name!r}: subPath {sub_path!r} not found in the artifact")
        replace_path(staged, dest)
    _apply_mode(artifact, dest)
    return True


def _apply_mode(artifact: Mapping[str, Any], dest: Path) -> None:
    """An input artifact's ``mode`` (e.g. ``0755``), on its path and, with ``recurseMode``, on everything under it,
    as Argo's executor sets it; permission bits only (no setuid, setgid or sticky bit)."""
    mode = artifact.get("mode")
    if mode is None:
        return
    if isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode <= 0o7777:
        raise ArtifactError(f"input artifact {artifact['name']!r}: mode must be a file mode such as 0755, got "
                            f"{mode!r}")
    paths = [dest, *(dest.rglob("*") if artifact.get("recurseMode") and dest.is_dir() else [])]
    for path in paths:
        if not path.is_symlink():
            path.chmod(mode & 0o777)
