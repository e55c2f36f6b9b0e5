"""Manifests read as Kubernetes reads them (go-yaml v2's scalars), and the parameter text Argo then holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from aipipe.compile import load_documents
from aipipe.compile.goyaml import go_scalar, load_all
from aipipe.engine.anystring import text_parameters
from aipipe.errors import UserError


@pytest.mark.parametrize(("text", "value"), [
    ("5e-8", 5e-8), ("1e3", 1000.0), ("1.5e3", 1500.0), ("08", 8.0), ("017", 15), ("0o17", 15), ("0x1F", 31),
    ("0b101", 5), ("1_000", 1000), ("+12", 12), (".5", 0.5), ("99999999999999999999", 1e20),
    ("10:30", "10:30"), ("2024-01-31", "2024-01-31"), ("2024-1-2 10:00:00", "2024-1-2 10:00:00"), ("1.2.3", "1.2.3"),
    ("-", "-"), (".", "."),
])
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, value: object) -> None:
    assert go_scalar(text) == value
    assert type(go_scalar(text)) is type(value)


def test_booleans_nulls_and_keys() -> None:
    [doc] = load_all("a: Yes\nb: NO\nc: off\nd: ~\ne:\nf: '08'\n2: two\n1.5: half\n1000000.0: big\nyes: key\n"
                     "n: y\n")
    assert doc == {"a": True, "b": False, "c": False, "d": None, "e": None, "f": "08", "2": "two", "1.5": "half",
                   "1e+06": "big", "true": "key", "n": "y"}  # y and n stay text: see the module's docstring


def test_parameters_get_argos_text(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text("kind: Workflow\nspec:\n  arguments:\n    parameters:\n"
                    "    - {name: p, value: 5e-8}\n    - {name: at, value: 10:30}\n"
                    "    - {name: day, value: 2024-01-31}\n"
                    "    - {name: ok, value: on}\n    - {name: whole, value: 2.0}\n    - {name: month, value: 08}\n")
    [doc] = load_documents(path)
    text_parameters(doc)
    values = {p["name"]: p["value"] for p in doc["spec"]["arguments"]["parameters"]}
    assert values == {"p": "0.00000005", "at": "10:30", "day": "2024-01-31", "ok": "true", "whole": "2",
                      "month": "8"}


def test_a_null_key_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text("kind: Workflow\n~: x\n")
    with pytest.raises(UserError, match="not valid as JSON: unsupported map key None"):
        load_documents(path)


def test_merge_keys_apply_where_they_stand() -> None:
    [doc] = load_all("a: &a {x: 1, y: 2}\nb: {x: 9, <<: *a, z: 3}\nc: {<<: *a, x: 9}\n"
                     "d: {<<: [{k: 1}, {k: 2, m: 5}]}\n")
    assert doc["b"] == {"x": 1, "y": 2, "z": 3}  # the merge overrides the key before it
    assert doc["c"] == {"x": 9, "y": 2}  # and the key after it overrides the merge
    assert doc["d"] == {"k": 1, "m": 5}  # of merged mappings, the first wins


def test_strict_reading_refuses_a_key_set_twice(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text("kind: Workflow\nspec:\n  a: &a {args: [x]}\n  b:\n    <<: *a\n    args: [y]\n")
    with pytest.raises(UserError, match='line 6: key "args" already set in map'):
        load_documents(path)
    assert load_all(path.read_text())[0]["spec"]["b"] == {"args": ["y"]}  # the API's reading: the last one wins


def test_a_large_integer_parameter_reads_as_argo_reads_it() -> None:
    doc = {"parameters": [{"name": "id", "value": 1234567890123456789}, {"name": "n", "value": 2 ** 53}]}
    text_parameters(doc)
    assert [p["value"] for p in doc["parameters"]] == ["1234567890123456800", "9007199254740992"]
