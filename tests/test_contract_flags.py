"""Typed step flags and step discovery: a parameter is declared once (a pydantic field) and becomes the
contract's input, the step's parsed and validated flag, and the template's parameter; steps are found
by their folders and named by them, no exceptions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from aipipe.contract import Output, step_contract
from aipipe.discovery import discover_steps, step
from aipipe.errors import UserError
from aipipe.flags import flag_inputs
from aipipe.stepkit import parse_step_args


class Flags(BaseModel):
    dataset_uri: str = Field(description="dataset URI")
    epochs: int = Field(10, ge=1, le=100, description="training epochs")
    lr: float = Field(0.05, gt=0, description="learning rate")
    hflip: bool = Field(True, description="random flips")
    precision: Literal["auto", "fp16"] = Field("auto", description="precision")


class StepFlags(Flags):
    dry_run: bool = Field(False, description="change nothing")
    profile: list[str] = Field([], description="repeatable")
    workers: int = Field(8, ge=1, description="parallel downloads")


SPEC = step_contract("steps.tiny_probe", description="a probe", flags=Flags, outputs=(Output("x", "an output"),))


def test_the_contract_inputs_come_from_the_flags_model() -> None:
    assert (SPEC.name, SPEC.module, SPEC.template_name) == ("tiny-probe", "steps.tiny_probe", "aipipe-tiny-probe-v1")
    got = {i.name: (i.default, i.enum, i.type, i.minimum, i.maximum) for i in SPEC.inputs}
    assert got == {
        "dataset-uri": (None, (), "str", None, None),
        "epochs": ("10", (), "int", 1.0, 100.0),
        "lr": ("0.05", (), "float", 0.0, None),
        "hflip": ("true", ("true", "false"), "bool", None, None),
        "precision": ("auto", ("auto", "fp16"), "str", None, None),
    }


def test_argv_parses_into_the_typed_model_with_the_step_options() -> None:
    flags = parse_step_args(SPEC, StepFlags, ["--dataset-uri", "file:///d", "--epochs", "3", "--hflip", "false",
                                              "--dry-run", "--profile", "a", "--profile", "b"])
    assert (flags.epochs, flags.lr, flags.hflip, flags.dry_run, flags.profile, flags.workers) == (
        3, 0.05, False, True, ["a", "b"], 8)


@pytest.mark.parametrize(("argv", "flag", "needle"), [
    (["--epochs", "many"], "--epochs", "valid integer"),
    (["--epochs", "0"], "--epochs", "greater than or equal to 1"),
    (["--lr", "0"], "--lr", "greater than 0"),
    (["--workers", "0"], "--workers", "greater than or equal to 1"),
])
def test_a_bad_value_is_a_user_error_naming_the_flag(argv: list[str], flag: str, needle: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_step_args(SPEC, StepFlags, ["--dataset-uri", "u", *argv])
    assert caught.value.field == flag and needle in str(caught.value)


def test_a_missing_flag_or_a_value_outside_the_enum_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["--dataset-uri", "u", "--precision", "fp8"]):
        with pytest.raises(SystemExit) as stopped:
            parse_step_args(SPEC, StepFlags, argv)
        assert stopped.value.code == 2
    assert "--dataset-uri" in capsys.readouterr().err


def test_a_flag_without_description_or_of_an_unknown_type_is_refused() -> None:
    class NoHelp(BaseModel):
        seed: int = 0

    class Odd(BaseModel):
        when: dict[str, int] = Field({}, description="a mapping")

    with pytest.raises(TypeError, match="description"):
        flag_inputs(NoHelp)
    with pytest.raises(TypeError, match="unsupported flag type"):
        flag_inputs(Odd)


def test_every_step_folder_is_found_and_named_by_its_folder() -> None:
    found = discover_steps()
    assert set(found) == {"export-annotations", "train", "evaluate", "convert-trt", "deploy"}
    for name, spec in found.items():
        assert spec.module == f"steps.{name.replace('-', '_')}" and spec.template_name == f"aipipe-{name}-v1"
    assert step("convert_trt") is found["convert-trt"]
    with pytest.raises(UserError, match="no step folder steps/nope/"):
        step("nope")


def _package(root: Path, name: str, contract: str) -> None:
    folder = root / name / "my_step"
    folder.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (folder / "__init__.py").write_text("")
    (folder / "contract.py").write_text(textwrap.dedent(contract))


GOOD = """
    from pydantic import BaseModel, Field
    from aipipe.contract import Output, step_contract

    class Flags(BaseModel):
        name: str = Field(description="a name")

    CONTRACT = step_contract(__package__, description="d", flags=Flags, outputs=(Output("o", "out"),))
"""


def test_discovery_scans_the_named_package_and_holds_the_naming_rule(tmp_path: Path) -> None:
    _package(tmp_path, "goodsteps", GOOD)
    _package(tmp_path, "badsteps", GOOD.replace("step_contract(__package__,", 'step_contract("steps.other",'))
    probe = ("from aipipe.discovery import discover_steps\nfrom aipipe.errors import UserError\n"
             "print({n: s.template_name for n, s in discover_steps('goodsteps').items()})\n"
             "try:\n    discover_steps('badsteps')\nexcept UserError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    good, bad = done.stdout.splitlines()
    assert good == "{'my-step': 'aipipe-my-step-v1'}"
    assert bad.startswith("badsteps.my_step.contract: names step 'other'") and "'my-step'" in bad
