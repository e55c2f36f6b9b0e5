"""What every step's ``__main__`` uses: the exit-code wrapper, output files, Argo progress.

Kept free of heavy imports so steps import it on GPU images.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aipipe.contract import OUTPUTS_DIR, StepSpec
from aipipe.errors import AipipeError, ExitCode


def outputs_dir() -> Path:
    """Where output parameters go: ``AIPIPE_OUTPUTS_DIR`` or ``/tmp/outputs``."""
    return Path(os.environ.get("AIPIPE_OUTPUTS_DIR", OUTPUTS_DIR))


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return "" if value is None else str(value)


def write_outputs(spec: StepSpec, values: Mapping[str, Any]) -> Path:
    """Write each declared output parameter to ``<outputs_dir>/<name>``; all must be given."""
    missing = set(spec.output_names()) - set(values)
    unknown = set(values) - set(spec.output_names())
    if missing or unknown:
        raise ValueError(f"{spec.name}: outputs mismatch: missing {sorted(missing)}, unknown {sorted(unknown)}")
    out = outputs_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        (out / name).write_text(_render(value))
    return out


def write_report(name: str, report: Mapping[str, Any]) -> Path:
    """Write a JSON report artifact ``<outputs_dir>/<name>``."""
    out = outputs_dir()
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(report, indent=2, sort_keys=True, default=str))
    return path


def report_progress(done: int, total: int) -> None:
    """Write Argo's ``ARGO_PROGRESS_FILE`` (``N/M``) when running under Argo or the engine.

    Written beside the target and renamed into place, so a reader never sees a half-written value."""
    target = os.environ.get("ARGO_PROGRESS_FILE")
    if target:
        staging = Path(f"{target}.{os.getpid()}.tmp")
        staging.write_text(f"{done}/{total}")
        os.replace(staging, target)


def run_step(step: str, main: Callable[[], Any]) -> None:
    """Run a step's main; map errors to contract exit codes with one clear line, no traceback."""
    try:
        main()
    except AipipeError as exc:
        print(f"{step}: error: {exc}", file=sys.stderr)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        print(f"{step}: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(int(ExitCode.OK))


def parse_step_args(
    spec: StepSpec,
    argv: list[str] | None = None,
    extend: Callable[[argparse.ArgumentParser], None] | None = None,
) -> dict[str, Any]:
    """Parse a step's flags: ``--<input> VALUE`` for each contract input, plus any ``extend`` adds.

    Returns {flag name with dashes: value}. Bad flags exit 2 (argparse's usage-error code).
    """

    parser = argparse.ArgumentParser(prog=f"python -m {spec.module}", description=spec.description)
    for item in spec.inputs:
        help_text = item.description + (f" (default: {item.default!r})" if item.default is not None else "")
        help_text = help_text.replace("%", "%%")  # argparse formats help with %: a literal "(%)" must be escaped
        parser.add_argument(f"--{item.name}", required=item.default is None, default=item.default,
                            choices=item.enum or None, help=help_text)
    parser.epilog = "outputs (files under $AIPIPE_OUTPUTS_DIR or /tmp/outputs): " + ", ".join(
        spec.output_names()) + ". Exit codes: 0 ok, 2 input error, 3 service unavailable."
    if extend is not None:
        extend(parser)
    ns = parser.parse_args(argv)
    return {name.replace("_", "-"): value for name, value in vars(ns).items()}
