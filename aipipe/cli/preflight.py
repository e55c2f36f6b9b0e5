"""Checks before a command touches the local state: the folders it writes must be writable folders."""

from __future__ import annotations

import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from aipipe.config import Config
from aipipe.errors import UserError


def _writable_folder(path: Path, what: str, hint: str) -> None:
    """Create ``path`` if needed and prove a file can be written in it; a UserError naming ``what`` otherwise."""
    blocker = next((p for p in [path, *path.parents] if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise UserError(f"{blocker} is a file, not a folder ({hint})", field=what)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".aipipe-write-check-"):
            pass
    except OSError as exc:
        raise UserError(f"cannot write in {path}: {exc.strerror or exc} ({hint})", field=what) from exc


def check_writable(cfg: Config) -> None:
    """``AIPIPE_HOME`` and a ``file://`` storage root are folders this process can write."""
    _writable_folder(cfg.home, "home", "set AIPIPE_HOME, or home: in aipipe.yaml, to a folder you can write")
    root = urlparse(cfg.storage_root)
    if root.scheme == "file":
        _writable_folder(Path(unquote(root.path)), "storage.root",
                         "set AIPIPE_STORAGE_ROOT to file:///a/folder/you/can/write or s3://bucket/prefix")
