"""``-o json|yaml|wide|name``: one meaning on every listing and get command, as in the argo CLI.

No ``-o`` prints the human view (a table or a tree); ``wide`` adds columns; ``json``/``yaml`` print
the objects themselves; ``name`` prints one name per line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer
import yaml

from aipipe.errors import UserError

FORMATS = ("json", "yaml", "wide", "name")

OutputOpt = Annotated[str | None, typer.Option("--output", "-o", metavar="FORMAT",
                                               help="json | yaml | wide | name (default: a table)")]


def output_format(value: str | None) -> str | None:
    """The checked ``-o`` value (None for the default view)."""
    if value is None or value == "":
        return None
    if value not in FORMATS:
        raise UserError(f"expected one of {', '.join(FORMATS)}, got {value!r}", field="--output")
    return value


def emit_objects(fmt: str, objects: Sequence[Any] | Any, names: Callable[[], Sequence[str]]) -> bool:
    """Print ``objects`` as JSON/YAML or ``names()`` one a line; False for the human views (default, wide)."""
    if fmt == "json":
        sys.stdout.write(json.dumps(objects, indent=2, default=str) + "\n")
    elif fmt == "yaml":
        sys.stdout.write(yaml.safe_dump(objects, sort_keys=False, default_flow_style=False))
    elif fmt == "name":
        sys.stdout.write("".join(f"{n}\n" for n in names()))
    else:
        return False
    return True
