"""Pipeline parameters: `-p k=v` is validated against the table in pipelines/retrain.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aipipe.compile import compile_pipeline, parse_assignments
from aipipe.compile.params import PipelineParam, resolve_params
from aipipe.config import load_config
from aipipe.errors import UserError
from pipelines.retrain import PARAMETERS

REPO = Path(__file__).resolve().parents[1]
PIPELINE = REPO / "pipelines" / "retrain.py"
CFG = load_config(env={})


def values(params: dict[str, str]) -> dict[str, str]:
    wf = compile_pipeline(PIPELINE, CFG, params).workflow
    return {p["name"]: p["value"] for p in wf["spec"]["arguments"]["parameters"]}


def test_table_names_the_issue_parameters():
    names = {p.name for p in PARAMETERS}
    assert {"project", "epochs", "precision", "gpu_memory_mib", "gpu_compute_percent", "target", "provider",
            "batch_size", "margin"} <= names


def test_defaults_and_overrides():
    got = values({"epochs": "5", "precision": "bf16", "target": "kubernetes", "margin": "0.05"})
    assert got["epochs"] == "5" and got["precision"] == "bf16" and got["target"] == "kubernetes"
    assert got["margin"] == "0.05" and got["gpu_compute_percent"] == "50" and got["project"] == "1"


def test_defaults_from_config():
    cfg = load_config(env={"AIPIPE_MODEL_NAME": "cats", "AIPIPE_DEPLOY_PROVIDER": "mig"})
    got = resolve_params(PARAMETERS, None, cfg)
    assert got["model_name"] == "cats" and got["provider"] == "mig"


@pytest.mark.parametrize(("given", "message"), [
    ({"epoch": "3"}, "parameter epoch: unknown parameter"),
    ({"epochs": "three"}, "parameter epochs: expected an int, got 'three'"),
    ({"epochs": "2.5"}, "parameter epochs: expected an int"),
    ({"epochs": "0"}, "parameter epochs: 0 is below the minimum 1"),
    ({"margin": "lots"}, "parameter margin: expected a number, got 'lots'"),
    ({"gpu_compute_percent": "150"}, "parameter gpu_compute_percent: 150 is above the maximum 100"),
    ({"precision": "int8"}, "parameter precision: 'int8' is not one of auto, bf16, fp16, fp32"),
    ({"provider": "nvidia"}, "parameter provider: 'nvidia' is not one of hami"),
])
def test_bad_parameters_fail_naming_the_parameter(given, message):
    with pytest.raises(UserError) as info:
        compile_pipeline(PIPELINE, CFG, given)
    assert message in str(info.value)
    assert info.value.exit_code == 2


def test_bool_parameters():
    flag = PipelineParam("dry", "false", "dry run", "bool")
    assert flag.check("TRUE") == "true"
    with pytest.raises(UserError, match="parameter dry: expected true or false"):
        flag.check("yes please")


def test_parse_assignments():
    assert parse_assignments(["a=1", "b=x=y", "c="]) == {"a": "1", "b": "x=y", "c": ""}
    with pytest.raises(UserError, match="-p: expected NAME=VALUE, got 'epochs'"):
        parse_assignments(["epochs"])


@pytest.mark.parametrize(("args", "message"), [
    (["-p", "epochs=many"], "error: parameter epochs: expected an int, got 'many'"),
    (["-p", "colour=red"], "error: parameter colour: unknown parameter (known: project,"),
])
def test_cli_fails_with_one_clear_line(args, message):
    run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "compile", str(PIPELINE), *args],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
