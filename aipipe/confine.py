"""Filesystem paths built from user-controlled strings, confined to a root.

Every path derived from a name, a node id, an artifact key or any other string that came from a
manifest, a request or a flag is built with :func:`confined`: it resolves the result (symlinks
included) and refuses anything that lands outside ``root``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from aipipe.errors import UserError


def confined(root: Path | str, *parts: str, field: str = "path") -> Path:
    """``root / parts…`` resolved, or :class:`UserError` when a part is absolute, has ``..``, or escapes.

    ``root`` itself need not exist; symlinks inside it that point out of it are refused.
    """
    base = Path(root).resolve()
    relative = PurePosixPath()
    for part in parts:
        text = str(part)
        if "\x00" in text:
            raise UserError(f"{text!r} contains a NUL byte", field=field)
        piece = PurePosixPath(text)
        if piece.is_absolute():
            raise UserError(f"{text!r} must be a relative path", field=field)
        if ".." in piece.parts:
            raise UserError(f"{text!r} must not contain '..'", field=field)
        relative = relative / piece
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise UserError(f"{str(relative)!r} resolves outside {base}", field=field)
    return target
