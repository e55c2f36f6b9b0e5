"""The platform's arrows point down: nothing under ``aipipe/`` imports ``steps`` or ``pipelines``.

Every import statement counts, including those inside functions and relative ones (the walker of
tests/test_layout_imports.py). The platform finds steps by their folders (aipipe.discovery) and runs
them as processes; the demo, which needs both, lives in ``pipelines/``.
"""

from __future__ import annotations

from tests.test_layout_imports import REPO, imported_modules

FORBIDDEN = ("steps", "pipelines")


def forbidden_imports(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, name) of each import of ``steps`` or ``pipelines`` in one module's source."""
    return [(line, name) for line, name in imported_modules(source, module, is_package)
            if name.split(".")[0] in FORBIDDEN]


def test_the_platform_imports_no_step_and_no_pipeline() -> None:
    found = []
    for path in sorted((REPO / "aipipe").rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        found += [f"{path.relative_to(REPO)}:{line} imports {name}"
                  for line, name in forbidden_imports(path.read_text(), module, is_package)]
    assert len(list((REPO / "aipipe").rglob("*.py"))) > 50  # the walk saw the platform
    assert found == []


def test_the_check_sees_imports_inside_functions_and_relative_ones() -> None:
    source = ("import json\nfrom aipipe.contract import StepSpec\n\n"
              "def demo():\n    from steps.deploy.local import LocalDeployments\n    import pipelines.retrain\n")
    assert forbidden_imports(source, "aipipe.cli.demo") == [
        (5, "steps.deploy.local"), (5, "steps.deploy.local.LocalDeployments"), (6, "pipelines.retrain")]
    assert forbidden_imports("from .steps import x\n", "aipipe.cli.demo") == []  # aipipe.cli.steps: the platform's
