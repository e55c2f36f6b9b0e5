"""What ``env[].valueFrom.resourceFieldRef`` reads, as the kubelet resolves it: the container's own request or limit
(a request it does not set is its limit, else 0), and for a limit it does not set, what the node can give (here this
machine's usable cores, memory and the work folder's disk), divided by ``divisor`` and rounded up."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from aipipe.errors import UserError

RESOURCES = ("limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu", "requests.memory",
             "requests.ephemeral-storage")


def quantity(text: Any, field: str) -> Decimal:
    """A Kubernetes quantity (``500m``, ``2``, ``128Mi``, ``1e3``) as a number; UserError naming ``field``."""
    from kubernetes.utils.quantity import parse_quantity  # the kubernetes package is slow to import: only here

    try:
        return Decimal(parse_quantity(str(text)))
    except (ValueError, ArithmeticError) as exc:
        raise UserError(f"quantities must match the regular expression of a Kubernetes quantity: {text!r}",
                        field=field) from exc


def check_resource_field(ref: Any, field: str) -> None:
    """Refuse what Kubernetes refuses when it creates the pod: an unknown ``resource``, a bad ``divisor``."""
    resource = str((ref or {}).get("resource") or "") if isinstance(ref, Mapping) else ""
    if resource not in RESOURCES:
        raise UserError(f"Unsupported value: {resource!r}: supported values: {', '.join(RESOURCES)}",
                        field=f"{field}.resource")
    if ref.get("divisor") not in (None, "") and quantity(ref["divisor"], f"{field}.divisor") <= 0:
        raise UserError("must be greater than zero", field=f"{field}.divisor")


def resource_field_value(ref: Mapping[str, Any], container: Mapping[str, Any], work_dir: Path) -> str:
    """The value of one ``resourceFieldRef`` for ``container`` (its ``resources``), as text."""
    kind, _, name = str(ref.get("resource") or "").partition(".")
    resources = container.get("resources") or {}
    given = (resources.get(kind) or {}).get(name)
    if given is None and kind == "requests":
        given = (resources.get("limits") or {}).get(name)
    if given is not None:
        amount = quantity(given, f"resources.{kind}.{name}")
    elif kind == "limits":
        amount = _allocatable(name, work_dir)
    else:
        amount = Decimal(0)
    divisor = quantity(ref.get("divisor") or "1", "resourceFieldRef.divisor")
    return str(math.ceil(amount / divisor))


def _allocatable(name: str, work_dir: Path) -> Decimal:
    if name == "cpu":
        return Decimal(len(os.sched_getaffinity(0)))
    if name == "memory":
        return Decimal(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    return Decimal(shutil.disk_usage(work_dir).total)
