"""Gather manifests from paths: YAML files, pipeline or resource ``.py`` files, or folders of them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aipipe.compile.compiler import YAML_SUFFIXES, load_documents, python_documents
from aipipe.config import Config
from aipipe.errors import UserError

WHAT = "a .py pipeline (or module with build(cfg)), .yaml/.yml/.json manifests, or a folder of them"


def _folder_files(folder: Path) -> list[Path]:
    """YAML and Python files below ``folder``; private modules (``_*.py``) and hidden folders are skipped."""
    found = []
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") or p == "__pycache__" for p in parts) or not path.is_file():
            continue
        if path.suffix in YAML_SUFFIXES or (path.suffix == ".py" and not path.name.startswith("_")):
            found.append(path)
    return found


def _file_documents(path: Path, cfg: Config, named: bool) -> list[dict[str, Any]]:
    if path.suffix == ".py":
        docs = python_documents(path, cfg)
        if not docs and named:
            raise UserError("defines no Workflow, WorkflowTemplate or CronWorkflow (build(cfg) or module-level "
                            "Hera objects)", field=str(path))
        return docs
    if path.suffix in YAML_SUFFIXES:
        return load_documents(path)
    raise UserError(f"expected {WHAT}", field=str(path))


def documents_from_paths(paths: Iterable[Path], cfg: Config) -> list[tuple[str, dict[str, Any]]]:
    """``(file, manifest)`` pairs; a ``.py`` pipeline is compiled with its default parameters."""
    docs: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        if path.is_dir():
            files = _folder_files(path)
            found = [(str(f), d) for f in files for d in _file_documents(f, cfg, named=False)]
            if not found:
                raise UserError(f"folder holds no manifests ({WHAT})", field=str(path))
            docs += found
        elif not path.is_file():
            raise UserError("no such file", field=str(path))
        else:
            docs += [(str(path), d) for d in _file_documents(path, cfg, named=True)]
    return docs
