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
