"""Image -> local runtime map: the image is ignored, but its entrypoint, default command and tools matter.

An entry gives ``entrypoint`` (prepended to the args when the template has no ``command``), ``command`` (the image's
default command when the template gives neither command nor args), ``path`` (folders put first on ``PATH``), ``env``
and ``programs`` (the image's own programs by their path in the image, e.g. ``/argosay``, and what runs them here, for
a ``command`` that names one). ``{shims}``, ``{ash}`` and ``{python_bin}`` expand to the shipped shim folders (the
second holds busybox ash's stand-in) and this interpreter's folder; the entry point may add variables of its own.
Tables handed in by the entry point (matched first, in order) override the built-in ones; keys are exact images,
images without tag, or shell-style patterns (``python:*``).
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aipipe.errors import UserError

SHIMS = Path(__file__).resolve().parent / "shims" / "bin"
ASH_SHIMS = SHIMS.parent / "ash"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# busybox's ash, the shell of the busybox and alpine images: ``sh`` and ``/bin/sh`` there run bash as ``sh``
ASH: dict[str, Any] = {"path": ["{ash}"], "programs": {"/bin/sh": "{ash}/sh", "/bin/ash": "{ash}/sh"}}
BUILTIN: dict[str, dict[str, Any]] = {
    "busybox": {"command": ["sh"], **ASH},
    "busybox:*": {"command": ["sh"], **ASH},
    "alpine": {"command": ["/bin/sh"], **ASH},
    "alpine:*": {"command": ["/bin/sh"], **ASH},
    "python:*": {"command": ["python3"], "path": ["{python_bin}"]},
    "argoproj/argosay:v1": {"command": ["cowsay"], "path": ["{shims}"]},
    **{image: {"entrypoint": ["{shims}/argosay"], "path": ["{shims}"], "programs": {"/argosay": "{shims}/argosay"}}
       for image in ("argoproj/argosay:v2", "docker.io/argoproj/argosay:v2")},
}


@dataclass(frozen=True)
class ImageRuntime:
    """How to run a container of one image locally."""

    entrypoint: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    programs: Mapping[str, str] = field(default_factory=dict)

    def argv(self, command: list[str] | None, args: list[str] | None) -> list[str]:
        """Docker's rule: command replaces the entrypoint; args replace the default command."""
        if command:
            return [self.programs.get(command[0], command[0]), *command[1:], *(args or [])]
        if args:
            return [*self.entrypoint, *args]
        return [*self.entrypoint, *self.command]

    def search_path(self) -> str:
        return ":".join([*self.path, SYSTEM_PATH])


def _runtime(entry: Mapping[str, Any], image: str, variables: Mapping[str, str], source: str) -> ImageRuntime:
    if not isinstance(entry, Mapping):
        raise UserError(f"entry for {image!r} must be a mapping", field=source)
    unknown = set(entry) - {"entrypoint", "command", "path", "env", "programs"}
    if unknown:
        raise UserError(f"entry for {image!r} has unknown keys {sorted(unknown)} (known: entrypoint, command, path, "
                        "env, programs)", field=source)

    def _expand(value: str) -> str:
        for name, text in variables.items():
            value = value.replace("{" + name + "}", text)
        return value

    return ImageRuntime(
        entrypoint=tuple(_expand(str(v)) for v in entry.get("entrypoint") or ()),
        command=tuple(_expand(str(v)) for v in entry.get("command") or ()),
        path=tuple(_expand(str(v)) for v in entry.get("path") or ()),
        env={str(k): _expand(str(v)) for k, v in (entry.get("env") or {}).items()},
        programs={str(k): _expand(str(v)) for k, v in (entry.get("programs") or {}).items()},
    )


class ImageMap:
    """Resolves an image reference to an :class:`ImageRuntime`: ``tables`` first (in order), then the built-in one.

    ``variables`` add ``{name}`` expansions to ``{shims}``, ``{ash}`` and ``{python_bin}``; ``source`` names the tables
    in error messages (e.g. the configuration key they come from).
    """

    def __init__(self, tables: Sequence[Mapping[str, Any]] = (), variables: Mapping[str, str] | None = None,
                 source: str = "image map") -> None:
        self.maps: list[Mapping[str, Any]] = [*tables, BUILTIN]
        self.variables = {"shims": str(SHIMS), "ash": str(ASH_SHIMS), "python_bin": str(Path(sys.executable).parent),
                          **(variables or {})}
        self.source = source

    def resolve(self, image: str | None) -> ImageRuntime:
        image = (image or "").strip()
        bare = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
        for table in self.maps:
            for key in (image, bare):
                if key in table:
                    return _runtime(table[key], key, self.variables, self.source)
            for pattern, entry in table.items():
                if any(ch in pattern for ch in "*?[") and fnmatch.fnmatchcase(image, pattern):
                    return _runtime(entry, pattern, self.variables, self.source)
        return ImageRuntime()
