"""A container/script node's declared outputs, read from its own folders once its process has ended:
parameters (``valueFrom.path``, ``expression``, ``value``, ``default``) and artifacts (saved to the store)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aipipe.engine.execution import ExecutionContext
from aipipe.engine.io import ArtifactError, archive_suffix, save_output


def collect_outputs(ctx: ExecutionContext, key_prefix: str, tmpl: dict[str, Any], own: Callable[[str], Path],
                    readable: Callable[[str], Path], outputs: dict[str, Any], failed: bool) -> list[str]:
    """Add the node's ``parameters`` and ``artifacts`` to ``outputs``; returns the problems (an absent file
    without a default…), which a node that had already failed does not report. ``key_prefix`` is
    ``<workflow>/<node id>``, where artifacts without a key go; artifacts come from the node's ``own`` folders,
    parameters from where they are ``readable``."""
    declared = tmpl.get("outputs") or {}
    params = []
    errors = []
    for spec in declared.get("parameters") or []:
        value_from = spec.get("valueFrom") or {}
        default = value_from.get("default")
        value: str | None = None
        if value_from.get("path"):
            path = readable(str(value_from["path"]))
            if path.is_file():
                value = path.read_text(errors="replace").removesuffix("\n")  # Argo: one trailing newline off
        elif "value" in spec:  # a leaf's valueFrom reads a path (aipipe.engine.lintrules refuses the others)
            value = str(spec["value"])
        if value is None and default is not None:
            value = str(default).removesuffix("\n")
        if value is None:
            if not failed:
                errors.append(f"outputs.parameters.{spec['name']}: {value_from.get('path') or 'no value'} "
                              "not found and no default given")
            continue
        value = ctx.secrets.mask(value)
        params.append({"name": spec["name"], "value": value, **({"valueFrom": value_from} if value_from else {})})
        if spec.get("globalName"):
            params[-1]["globalName"] = spec["globalName"]
    artifacts = []
    for spec in declared.get("artifacts") or []:
        if not spec.get("path"):
            continue
        default_key = f"{key_prefix}/{spec['name']}{archive_suffix(spec)}"
        try:
            record = save_output(spec, own(str(spec["path"])), ctx.storage, ctx.artifact_root,
                                 default_key, ctx.secrets)
        except ArtifactError as exc:
            if failed:
                continue
            errors.append(str(exc))
            continue
        if record is not None:
            artifacts.append(record)
    if params:
        outputs["parameters"] = params
    if artifacts:
        outputs["artifacts"] = artifacts
    return errors
