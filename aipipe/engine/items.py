"""Loop items as Argo's ``wfv1.Item`` keeps them: how ``{{item}}``, ``{{item.KEY}}`` and a child's name read.

An Item is the raw JSON text it was read from (``json.RawMessage``), and ``Item.String()`` is that text compacted:
a ``withParam`` list keeps each number as written (``1.50``, ``2e2``) and each nested object in its own key order.
``withItems`` reach the controller through Go maps and float64s (the CLI turns the YAML into JSON), so their map
keys come sorted and their numbers canonical. :func:`parse_param_items` reads a ``withParam`` text keeping what an
Item keeps; values read from YAML stay plain Python values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.values import to_json


class RawInt(int):
    """An integer read from JSON text, with that text (``json_text``)."""

    json_text: str


class RawFloat(float):
    """A float read from JSON text, with that text (``1.50`` stays ``1.50``)."""

    json_text: str


class JsonObject(dict[str, Any]):
    """An object read from JSON text: its keys in the text's order, which ``Item.String()`` keeps."""

    keeps_order = True


def _raw(kind: type[RawInt] | type[RawFloat]) -> Callable[[str], RawInt | RawFloat]:
    def parse(text: str) -> RawInt | RawFloat:
        number = kind(text)
        number.json_text = text
        return number
    return parse


def parse_param_items(text: str) -> Any:
    """``text`` read as Argo reads a ``withParam`` value into Items (raises ``json.JSONDecodeError``)."""
    return json.loads(text, parse_int=_raw(RawInt), parse_float=_raw(RawFloat), object_pairs_hook=JsonObject)


def item_text(item: Any) -> str:
    """``Item.String()``: a string bare, anything else its compact JSON (``true``, ``1.50``, ``{"b":1,"a":2}``)."""
    if isinstance(item, str):
        return item
    return to_json(item, escape_html=False)


def map_item_text(item: dict[str, Any]) -> str:
    """``{{item}}`` of a map item: ``json.Marshal`` of the Go map of its values, so the top keys sorted."""
    return to_json(dict(item))  # a plain dict: its own keys sorted, nested objects as read


def item_scope(item: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(flat values, raw values) a loop item contributes: ``item`` and, for maps, ``item.KEY``."""
    if isinstance(item, dict):
        values = {"item": map_item_text(item)}
        values.update({f"item.{key}": item_text(val) for key, val in item.items()})
    else:
        values = {"item": item_text(item)}
    return values, {"item": item}


def item_label(item: Any) -> str:
    """The ``name(i:LABEL)`` part of a loop child's name; maps render as sorted ``k:v`` pairs, lists as Go's
    ``%v`` prints them (``[1 2]``, ``[x y]``: elements as ``{{item}}`` renders them, space-separated); as Argo's
    generateNodeName, without parentheses (``f(x)`` labels ``fx``)."""
    if isinstance(item, dict):
        label = ",".join(f"{k}:{item_text(v)}" for k, v in sorted(item.items()))
    elif isinstance(item, list):
        label = "[" + " ".join(item_text(v) for v in item) + "]"
    else:
        label = item_text(item)
    return label.replace("(", "").replace(")", "")
