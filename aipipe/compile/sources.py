"""Gather the manifests to lint from paths: YAML files, folders of them, or pipeline ``.py`` files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aipipe.compile.compiler import YAML_SUFFIXES, compile_pipeline, load_documents
from aipipe.config import Config
from aipipe.errors import UserError


def documents_from_paths(paths: Iterable[Path], cfg: Config) -> list[tuple[str, dict[str, Any]]]:
    """``(file, manifest)`` pairs; a ``.py`` pipeline is compiled with its default parameters."""
    docs: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.suffix in YAML_SUFFIXES and p.is_file())
            if not files:
                raise UserError("folder holds no .yaml/.yml/.json manifests", field=str(path))
            docs += [(str(f), d) for f in files for d in load_documents(f)]
        elif not path.is_file():
            raise UserError("no such file", field=str(path))
        elif path.suffix == ".py":
            docs += [(str(path), d) for d in compile_pipeline(path, cfg).documents()]
        elif path.suffix in YAML_SUFFIXES:
            docs += [(str(path), d) for d in load_documents(path)]
        else:
            raise UserError("expected .yaml/.yml/.json manifests, a folder of them, or a pipeline .py", field=str(path))
    return docs
