"""What Argo's validateInputs / validateOutputs check of a template's parameter and artifact names and of its
artifacts' fields, including the path rule of Argo's ``Artifact.CleanPath``."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from typing import Any

Problem = tuple[str, str]
_PARAM_NAME = re.compile(r"[-a-zA-Z0-9_]+")  # parameters and artifacts
_PARAM_NAME_RULE = "name must consist of alpha-numeric characters, '_' or '-' e.g. my_param_1, MY-PARAM-1"


def param_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a parameter or artifact (None when it can)."""
    return None if _PARAM_NAME.fullmatch(name) else _PARAM_NAME_RULE


def clean_path_problem(art: Mapping[str, Any]) -> str | None:
    """Why Argo's ``Artifact.CleanPath`` refuses a leaf's artifact path: none given, or a ``..`` that leaves the
    folder written before it (``/tmp/safe/../x`` escapes ``/tmp/safe``; ``/a/b/../b/c`` stays in ``/a/b``)."""
    path, name = str(art.get("path") or ""), art.get("name")
    if not path:
        return f"Artifact '{name}' did not specify a path"
    safe = path[:path.index("/../")] if "/../" in path else path[:-3] if path.endswith("/..") else ""
    cleaned = posixpath.normpath(path)
    if safe and (not cleaned.startswith(safe + "/") or len(cleaned) <= len(safe) + 1):
        return f"Artifact '{name}' attempted to use a path containing '..'. Directory traversal is not permitted"
    return None


def _clean_path(art: Mapping[str, Any], leaf: bool, at: str) -> Iterator[Problem]:
    problem = clean_path_problem(art) if leaf else None
    if problem:
        yield f"{at}.path", f"error in {at}: {problem}"


def artifact_fields(tmpl: Mapping[str, Any], leaf: bool, where: str) -> Iterator[Problem]:
    """As Argo's validateInputs / validateOutputs / validateLeaf: no ``from`` on an input artifact, no ``path`` on a
    steps/dag output artifact, a literal ``globalName`` that is a valid name, and no input artifact path that is a
    volume's mount path; a leaf's artifact paths as Argo's Artifact.CleanPath takes them."""
    inputs, outputs = tmpl.get("inputs") or {}, tmpl.get("outputs") or {}
    mounts = {str(m.get("mountPath")): str(m.get("name")) for m in
              ((tmpl.get("container") or tmpl.get("script") or {}).get("volumeMounts") or []) if isinstance(m, Mapping)}
    for art in inputs.get("artifacts") or []:
        at = f"{where}.inputs.artifacts.{art.get('name')}"
        if art.get("from") not in (None, ""):
            yield f"{at}.from", "from not valid in inputs"
        path = str(art.get("path"))
        if not leaf and art.get("path") not in (None, ""):
            yield f"{at}.path", "path only valid in container/script templates"
        if leaf and path in mounts:
            yield f"{at}.path", f"'{path}' already mounted in container.volumeMounts.{mounts[path]}"
        yield from _clean_path(art, leaf, at)
        if isinstance(art.get("git"), Mapping) and not art["git"].get("repo"):  # Argo's validateArtifactLocation
            yield f"{at}.git.repo", f"{at}.git.repo is required"
    for kind in ("parameters", "artifacts"):
        for item in outputs.get(kind) or []:
            at = f"{where}.outputs.{kind}.{item.get('name')}"
            name = str(item.get("globalName") or "")
            problem = param_name_problem(name) if name and "{{" not in name else None
            if problem:
                yield f"{at}.globalName", f"'{name}' is invalid: {problem}"
            if kind == "artifacts" and not leaf and item.get("path") not in (None, ""):
                yield f"{at}.path", "path only valid in container/script templates"
            if kind == "artifacts":
                yield from _clean_path(item, leaf, at)
