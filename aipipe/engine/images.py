"""Image -> local runtime map: the image is ignored, but its entrypoint, default command and tools matter.

An entry gives ``entrypoint`` (prepended to the args when the template has no ``command``),
``command`` (the image's default command when the template gives neither command nor args),
``path`` (folders put first on ``PATH``) and ``env``. ``{shims}``, ``{python_bin}`` and ``{repo}``
expand to the shipped shim folder, this interpreter's folder and the repository root.
Config ``engine.image_map`` entries (matched first) override the built-in ones; keys are exact
images, images without tag, or shell-style patterns (``python:*``).
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aipipe.config import Config
from aipipe.errors import UserError

SHIMS = Path(__file__).resolve().parent / "shims" / "bin"
REPO_ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

BUILTIN: dict[str, dict[str, Any]] = {
    "busybox": {"command": ["sh"]},
    "busybox:*": {"command": ["sh"]},
    "alpine": {"command": ["/bin/sh"]},
    "alpine:*": {"command": ["/bin/sh"]},
    "python:*": {"command": ["python3"], "path": ["{python_bin}"]},
    "argoproj/argosay:v1": {"command": ["cowsay"], "path": ["{shims}"]},
    "argoproj/argosay:v2": {"entrypoint": ["{shims}/argosay"], "path": ["{shims}"]},
    "docker.io/argoproj/argosay:v2": {"entrypoint": ["{shims}/argosay"], "path": ["{shims}"]},
}


@dataclass(frozen=True)
class ImageRuntime:
    """How to run a container of one image locally."""

    entrypoint: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)

    def argv(self, command: list[str] | None, args: list[str] | None) -> list[str]:
        """Docker's rule: command replaces the entrypoint; args replace the default command."""
        if command:
            return [*command, *(args or [])]
        if args:
            return [*self.entrypoint, *args]
        return [*self.entrypoint, *self.command]

    def search_path(self) -> str:
        return ":".join([*self.path, SYSTEM_PATH])


def _expand(value: str) -> str:
    return (value.replace("{shims}", str(SHIMS)).replace("{python_bin}", str(Path(sys.executable).parent))
            .replace("{repo}", str(REPO_ROOT)))


def _runtime(entry: Mapping[str, Any], image: str) -> ImageRuntime:
    if not isinstance(entry, Mapping):
        raise UserError(f"entry for {image!r} must be a mapping", field="engine.image_map")
    unknown = set(entry) - {"entrypoint", "command", "path", "env"}
    if unknown:
        raise UserError(f"entry for {image!r} has unknown keys {sorted(unknown)} (known: entrypoint, command, path, "
                        "env)", field="engine.image_map")
    return ImageRuntime(
        entrypoint=tuple(_expand(str(v)) for v in entry.get("entrypoint") or ()),
        command=tuple(_expand(str(v)) for v in entry.get("command") or ()),
        path=tuple(_expand(str(v)) for v in entry.get("path") or ()),
        env={str(k): _expand(str(v)) for k, v in (entry.get("env") or {}).items()},
    )


class ImageMap:
    """Resolves an image reference to an :class:`ImageRuntime`."""

    def __init__(self, cfg: Config) -> None:
        steps_image = str(cfg.get("kubernetes.steps_image"))
        steps_entry = {"path": ["{python_bin}"], "env": {"PYTHONPATH": "{repo}"}}
        self.maps: list[dict[str, Any]] = [dict(cfg.get("engine.image_map") or {}),
                                           {steps_image: steps_entry, steps_image.rsplit(":", 1)[0]: steps_entry},
                                           BUILTIN]

    def resolve(self, image: str | None) -> ImageRuntime:
        image = (image or "").strip()
        bare = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
        for table in self.maps:
            for key in (image, bare):
                if key in table:
                    return _runtime(table[key], key)
            for pattern, entry in table.items():
                if any(ch in pattern for ch in "*?[") and fnmatch.fnmatchcase(image, pattern):
                    return _runtime(entry, pattern)
        return ImageRuntime()
