"""Find the steps: every ``<steps package>/<folder>/contract.py`` that declares ``CONTRACT``.

Plugin loading by folder, not by entry points: adding a step is copying a folder, and the new
step is found at once, by the compiler and by a repository copy on ``PYTHONPATH``, with no
reinstall to refresh package metadata (which entry points would need) and no list to edit. The
platform names no step: the steps package is imported by name (default ``steps``) with
:mod:`importlib`, so ``aipipe/`` keeps no import of ``steps/``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from aipipe.contract import StepSpec, argo_name
from aipipe.errors import UserError

STEPS_PACKAGE = "steps"
CONTRACT_MODULE = "contract"


def step_folders(package: str = STEPS_PACKAGE) -> list[str]:
    """The folders of ``package`` that hold a ``contract.py``, sorted."""
    try:
        root = importlib.import_module(package)
    except ImportError as exc:
        raise UserError(f"cannot import the steps package: {exc}", field="steps") from exc
    found: set[str] = set()
    for base in getattr(root, "__path__", []):
        found.update(p.parent.name for p in Path(base).glob(f"*/{CONTRACT_MODULE}.py")
                     if (p.parent / "__init__.py").is_file())
    return sorted(found)


def load_contract(folder: str, package: str = STEPS_PACKAGE) -> StepSpec:
    """The contract of ``<package>/<folder>``, checked against the naming rule."""
    module_name = f"{package}.{folder}.{CONTRACT_MODULE}"
    module = importlib.import_module(module_name)
    spec = getattr(module, "CONTRACT", None)
    if not isinstance(spec, StepSpec):
        raise UserError("declares no CONTRACT = step_contract(__package__, ...)", field=module_name)
    expected = (argo_name(folder), f"{package}.{folder}")
    if (spec.name, spec.module) != expected:
        raise UserError(f"names step {spec.name!r} run as {spec.module!r}; the folder makes it "
                        f"{expected[0]!r} run as {expected[1]!r} (build it with step_contract(__package__, ...))",
                        field=module_name)
    return spec


def discover_steps(package: str = STEPS_PACKAGE) -> dict[str, StepSpec]:
    """Every step's contract by Argo name, in folder order."""
    return {spec.name: spec for spec in (load_contract(f, package) for f in step_folders(package))}


def step(name: str, package: str = STEPS_PACKAGE) -> StepSpec:
    """One step's contract by its Argo name (``convert-trt``) or folder (``convert_trt``)."""
    folder = name.replace("-", "_")
    if folder not in step_folders(package):
        known = ", ".join(argo_name(f) for f in step_folders(package))
        raise UserError(f"no step folder {package}/{folder}/ with a contract.py (steps: {known})", field="step")
    return load_contract(folder, package)
