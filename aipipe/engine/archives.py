"""Artifact archives unpacked safely: tar.gz and zip members that would land outside the artifact's folder, links
that lead out of it, devices and set-id bits are refused, on every supported Python (3.11.2 has no tarfile filters).

Kept apart from :mod:`aipipe.engine.io` so that it imports nothing beyond the standard library: the security tests
run it under Debian's bare system Python.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"


class ArtifactError(Exception):
    """An artifact could not be saved or loaded (the node fails with this message)."""


def safe_unzip(archive: Path, dest: Path) -> None:
    """Extract a zip archive, refusing names that would land outside ``dest``; one top-level entry becomes
    ``dest`` itself (as :func:`unpack_tarball`)."""
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        with zipfile.ZipFile(archive) as packed:
            for member in packed.namelist():
                if member.startswith("/") or ".." in member.split("/"):
                    raise ArtifactError(f"archive member {member!r} would be extracted outside the artifact's folder")
            packed.extractall(tmp)
        entries = list(Path(tmp).iterdir())
        replace_path(entries[0] if len(entries) == 1 else Path(tmp), dest)


def safe_extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract ``tar`` into ``dest`` refusing anything that would land outside it.

    Python >= 3.11.4 has tarfile's ``data`` filter; older 3.11 releases (Debian 12 has 3.11.2) get the same
    rules checked here: no absolute names, no ``..``, no links pointing out, no devices or FIFOs, no
    setuid/setgid bits or group/other write, and no ownership taken from the archive.
    """
    try:
        if hasattr(tarfile, "data_filter"):
            for member in tar.getmembers():  # the filter would strip the '/'; refuse as the explicit check does
                if member.name.startswith("/"):
                    raise ArtifactError(f"archive member {member.name!r} has an absolute name")
            tar.extractall(dest, filter="data")
            return
        members = [_checked_member(m) for m in tar.getmembers()]
        tar.extractall(dest, members=members, numeric_owner=True)
    except tarfile.TarError as exc:  # the data filter's refusals (FilterError) and damaged archives
        raise ArtifactError(f"archive refused: {exc}") from exc


def _checked_member(member: tarfile.TarInfo) -> tarfile.TarInfo:
    name = member.name
    if name.startswith("/") or os.path.isabs(name) or ".." in name.split("/"):
        raise ArtifactError(f"archive member {name!r} would be extracted outside the artifact's folder")
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        raise ArtifactError(f"archive member {name!r} is a device or FIFO; artifacts hold files, folders and links")
    if member.issym() or member.islnk():
        target = member.linkname
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target) if member.issym() else target)
        if target.startswith("/") or resolved == ".." or resolved.startswith("../"):
            raise ArtifactError(f"archive member {name!r} links to {target!r}, outside the artifact's folder")
    member.mode &= ~0o7022  # no setuid/setgid/sticky, no group/other write
    member.uid, member.gid = os.geteuid(), os.getegid()
    member.uname = member.gname = ""
    return member


def unpack_tarball(archive: Path, dest: Path) -> None:
    """Extract a tar.gz; a single top-level entry becomes ``dest`` itself."""
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        with tarfile.open(archive, "r:gz") as tar:
            safe_extract(tar, Path(tmp))
        entries = list(Path(tmp).iterdir())
        source = entries[0] if len(entries) == 1 else Path(tmp)
        replace_path(source, dest)


def replace_path(source: Path, dest: Path) -> None:
    """Move ``source`` to ``dest``, replacing a file or folder already there."""
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)
    elif dest.exists():
        dest.unlink()
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(source), str(dest))
