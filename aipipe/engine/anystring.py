"""Argo's ``AnyString``: a parameter's ``value``, ``default`` and ``enum`` entries decode from a JSON string, number or
boolean into text (``true``, ``30``, ``2.5``, ``20200219``: numbers in plain decimal notation, never exponents)."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

TEXT_FIELDS = ("value", "default")
_EXACT_FLOAT_INTS = 2 ** 53  # every integer up to this one is a float64 exactly


def any_string(value: Any) -> Any:
    """A scalar as Argo's AnyString decodes it; anything else (text, objects, lists, null) as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) <= _EXACT_FLOAT_INTS:
        return str(value)
    if isinstance(value, int):  # AnyString reads a JSON number as a float64: a larger integer loses its last digits
        value = float(value)
    if isinstance(value, float) and math.isfinite(value):
        text = format(Decimal(repr(value)), "f")  # strconv.FormatFloat(v, 'f', -1, 64): shortest, no exponent,
        return text.removesuffix(".0")  # and no fraction on a whole number (1.0 is "1")
    return value


def text_parameters(doc: Any) -> None:
    """Turn, in place, every parameter's scalar ``value``, ``default``, ``valueFrom.default`` and ``enum`` entries
    in a manifest into text (the objects of any ``parameters`` list: arguments, inputs, outputs)."""
    if isinstance(doc, dict):
        for key, item in doc.items():
            if key == "parameters" and isinstance(item, list):
                for param in item:
                    if isinstance(param, dict):
                        _text_fields(param)
            text_parameters(item)
    elif isinstance(doc, list):
        for item in doc:
            text_parameters(item)


def text_parameter_lookup(lookup: Callable[[str, str], Any]) -> Callable[[str, str], Any]:
    """A template lookup whose manifests have their parameters as text (each found manifest is changed in place)."""
    def found(kind: str, name: str) -> Any:
        manifest = lookup(kind, name)
        text_parameters(manifest)
        return manifest
    return found


def _text_fields(param: dict[str, Any]) -> None:
    for field in TEXT_FIELDS:
        if field in param:
            param[field] = any_string(param[field])
    if isinstance(param.get("enum"), list):
        param["enum"] = [any_string(v) for v in param["enum"]]
    source = param.get("valueFrom")
    if isinstance(source, dict) and "default" in source:
        source["default"] = any_string(source["default"])
