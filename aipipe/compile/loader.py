"""Load a pipeline's Python file as a module, without running its ``__main__`` block."""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

from aipipe.errors import UserError


def import_root(path: Path) -> tuple[Path, str]:
    """The folder to put on ``sys.path`` and the dotted module name (``pipelines/retrain.py`` ->
    ``pipelines.retrain`` when ``pipelines/`` is a package)."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return folder, ".".join(parts)


def load_module(path: Path) -> ModuleType:
    """Execute the file as its dotted module; errors in the file become one UserError line."""
    path = path.resolve()
    root, name = import_root(path)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    _import_parent(name, path)  # a package whose __init__ imports this module sees a complete one
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError("not a loadable Python file", field=str(path))
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a pipeline calling sys.exit() at import is an error, not a run
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
        raise UserError(f"cannot load pipeline: {describe(exc)}{where(exc, path)}", field=str(path)) from exc
    return module


def _import_parent(name: str, path: Path) -> None:
    parent = name.rpartition(".")[0]
    if not parent:
        return
    try:
        importlib.import_module(parent)
    except (Exception, SystemExit) as exc:
        raise UserError(f"cannot load package {parent}: {describe(exc)}", field=str(path)) from exc


def describe(exc: BaseException) -> str:
    """``RuntimeError: boom``; ``called sys.exit(0)`` for a SystemExit."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}"


def where(exc: BaseException, path: Path) -> str:
    """`` (line N)``: the last line of ``path`` in the traceback of ``exc``."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f" (line {exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path]
    return f" (line {frames[-1].lineno})" if frames else ""
