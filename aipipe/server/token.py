"""The token of ``aipipe server``: ``AIPIPE_HOME/server.token``, mode 0600, made on first start.

It is the one secret that lives in a file (like Jupyter's runtime files): the server creates it
atomically with mode 0600 from the start, and both the server and the ``aipipe`` CLI refuse a
token file that the group or others may read or write, or that another user owns.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from aipipe.errors import UserError

TOKEN_FILE = "server.token"
TOKEN_BYTES = 32  # 256 random bits, URL-safe base64
MAX_TOKEN_FILE_BYTES = 4096


def token_path(home: Path) -> Path:
    return Path(home) / TOKEN_FILE


def read_token(home: Path) -> str | None:
    """The token in ``home/server.token``, or None when there is no such file.

    UserError when the file is a symlink, not a regular file, readable or writable by group or
    others, owned by another user, or empty.
    """
    path = token_path(home)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"cannot read the server token: {exc.strerror} (a symlink is refused)",
                        field=str(path)) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UserError("the server token must be a regular file", field=str(path))
        if info.st_mode & 0o077:
            raise UserError(f"the server token is open to other users (mode {stat.S_IMODE(info.st_mode):04o}); "
                            f"run `chmod 600 {path}` or delete it to make a new one", field=str(path))
        if info.st_uid != os.geteuid():
            raise UserError("the server token belongs to another user", field=str(path))
        token = handle.read(MAX_TOKEN_FILE_BYTES).decode("utf-8", "replace").strip()
    if not token:
        raise UserError("the server token file is empty; delete it to make a new one", field=str(path))
    return token


def load_or_create_token(home: Path) -> tuple[str, bool]:
    """The server's token and whether it was created now (on first start).

    A new token is written to a private temporary file (O_EXCL, mode 0600) and linked into place,
    so no process ever sees a partly written or world-readable token; a server starting at the
    same moment reads the one that won.
    """
    found = read_token(home)
    if found is not None:
        return found, False
    home = Path(home)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    temp = home / f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise UserError(f"cannot create the server token: {exc.strerror}", field=str(token_path(home))) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(token.encode() + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, token_path(home))
        except FileExistsError:
            winner = read_token(home)
            if winner is None:
                raise UserError("the server token appeared and vanished; start again",
                                field=str(token_path(home))) from None
            return winner, False
    finally:
        temp.unlink(missing_ok=True)
    return token, True
