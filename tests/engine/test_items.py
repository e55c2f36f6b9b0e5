"""Loop items read and rendered as Argo's wfv1.Item keeps them (raw JSON text for withParam, Go maps for withItems)."""

from __future__ import annotations

from aipipe.engine.items import item_label, item_scope, item_text, parse_param_items


def test_with_param_numbers_keep_their_text() -> None:
    items = parse_param_items("[1.50, 2e2, 0.10, 7]")
    assert [item_text(i) for i in items] == ["1.50", "2e2", "0.10", "7"]
    assert [item_label(i) for i in items] == ["1.50", "2e2", "0.10", "7"]
    assert items[0] * 2 == 3.0  # still a number for expressions


def test_with_param_objects_keep_their_key_order_below_the_top() -> None:
    item = parse_param_items('[{"name": "ax", "opts": {"gpu": false, "cpu": 2}, "rate": 1.0}]')[0]
    values, _ = item_scope(item)
    assert values["item.opts"] == '{"gpu":false,"cpu":2}'
    assert values["item.rate"] == "1.0"
    assert values["item"] == '{"name":"ax","opts":{"gpu":false,"cpu":2},"rate":1.0}'
    assert item_label(item) == 'name:ax,opts:{"gpu":false,"cpu":2},rate:1.0'


def test_with_items_maps_read_as_go_maps() -> None:
    values, _ = item_scope({"b": 1.0, "a": {"z": 1, "y": "<é>"}})
    assert values["item"] == '{"a":{"y":"\\u003cé\\u003e","z":1},"b":1}'
    assert values["item.a"] == '{"y":"<é>","z":1}'
    assert item_text(True) == "true" and item_text(1e-7) == "1e-7"
