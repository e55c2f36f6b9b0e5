"""Import arrows point down: no step folder imports another step, and ``mlkit`` imports no step or pipeline.

Every import statement counts, including those inside functions and relative ones.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def imported_modules(source: str, module: str, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) for every import in ``source`` (the text of ``module``), at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            yield node.lineno, target
            for alias in node.names:  # `from steps import train` names a package too
                yield node.lineno, f"{target}.{alias.name}"


def _modules(root: Path) -> Iterator[tuple[Path, str, bool]]:
    """(file, module name, is a package) of every module under ``root``."""
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        yield path, ".".join(parts[:-1] if is_package else parts), is_package


def _violations(root: Path, reason_for: Callable[[Path, str], str]) -> list[str]:
    found = []
    for path, module, is_package in _modules(root):
        for line, name in imported_modules(path.read_text(), module, is_package):
            reason = reason_for(path, name)
            if reason:
                found.append(f"{path.relative_to(REPO)}:{line} imports {name} ({reason})")
    return found


def _head(name: str, depth: int) -> str:
    return ".".join(name.split(".")[:depth])


def test_the_walker_sees_nested_and_relative_imports() -> None:
    source = "import os\n\ndef f():\n    from .service import X\n    from .. import step\n    import steps.train\n"
    got = {name for _, name in imported_modules(source, "steps.deploy.server.app")}
    assert got == {"os", "steps.deploy.server.service", "steps.deploy.server.service.X", "steps.deploy",
                   "steps.deploy.step", "steps.train"}
    in_init = {name for _, name in imported_modules("from .gate import g\n", "steps.evaluate", is_package=True)}
    assert "steps.evaluate.gate" in in_init


def test_no_step_imports_another_step() -> None:
    def reason_for(path: Path, name: str) -> str:
        own = f"steps.{path.relative_to(REPO).parts[1]}"
        if _head(name, 1) == "steps" and _head(name, 2) not in (own, "steps"):
            return f"{own} may import only itself and mlkit"
        return ""

    assert _violations(REPO / "steps", reason_for) == []


def test_mlkit_imports_no_step_or_pipeline() -> None:
    def reason_for(path: Path, name: str) -> str:
        return "mlkit is the library the steps build on" if _head(name, 1) in ("steps", "pipelines") else ""

    assert (REPO / "mlkit" / "__init__.py").is_file()
    assert _violations(REPO / "mlkit", reason_for) == []


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (module -> modules it imports) as a path, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_no_import_cycle_in_mlkit_or_steps() -> None:
    """Type-checking-only and function-level imports count too (metrics.py <-> service.py was one)."""
    modules = [m for root in ("mlkit", "steps") for m in _modules(REPO / root)]
    names = {module for _, module, _ in modules}
    graph = {module: {name for _, name in imported_modules(path.read_text(), module, is_package)
                      if name in names and name != module}
             for path, module, is_package in modules}
    assert find_cycle(graph) == []


def test_every_step_folder_imports_itself_relatively() -> None:
    """A copy of any step folder is a step of its own: no module names its own folder absolutely
    (``from steps.train.x import …``), which would make the copy run the original's code."""
    found = []
    for folder in sorted(p for p in (REPO / "steps").iterdir() if (p / "contract.py").is_file()):
        for path in folder.rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                found += [f"{path.relative_to(REPO)}:{node.lineno} {name}" for name in names
                          if name == f"steps.{folder.name}" or name.startswith(f"steps.{folder.name}.")]
    assert not found, found
