"""A step is a folder: copying ``steps/evaluate/`` to a new folder and editing only that folder gives a new
step that a pipeline written outside the repository compiles (Hera) and runs on the embedded engine.

The test works on a copy of the repository (``aipipe/``, ``steps/``, ``pipelines/``, ``mlkit/``,
``pyproject.toml``) put first on ``PYTHONPATH``: the engine runs the steps image from the copy, so the
new folder is all the platform sees of the new step. A stepping-stone DAG trains a model on a tiny
dataset (the new step scores it), then runs the new step's template ``aipipe-score-candidate-v1``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from steps.export_annotations.fixtures import write_tiny_dataset

REPO = Path(__file__).resolve().parents[1]
COPIED = ("aipipe", "steps", "pipelines", "mlkit")
NEW_FOLDER = "score_candidate"
NEW_STEP = "score-candidate"  # the folder's Argo name
RUN_TIMEOUT_S = 300

PIPELINE = '''"""Train on a dataset version, then score the model with the step copied from evaluate."""

from hera.workflows import DAG, Task, Workflow
from hera.workflows.models import TemplateRef

from aipipe.compile.params import PipelineParam
from aipipe.discovery import step
from pipelines.templates import build_all

TRAIN, SCORE = step("train"), step("score-candidate")
PARAMETERS = (
    PipelineParam("dataset_uri", "", "dataset version URI"),
    PipelineParam("dataset_version", "", "dataset version"),
)


def _ref(spec):
    return TemplateRef(name=spec.template_name, template=spec.name)


def build(cfg, params):
    with Workflow(generate_name="score-", entrypoint="main",
                  arguments=[p.hera(params[p.name]) for p in PARAMETERS]) as workflow:
        with DAG(name="main"):
            train = Task(name="train", template_ref=_ref(TRAIN), arguments={
                "dataset-uri": "{{workflow.parameters.dataset_uri}}",
                "dataset-version": "{{workflow.parameters.dataset_version}}", "run-id": "{{workflow.uid}}",
                "epochs": "1", "batch-size": "16", "image-size": "16", "num-workers": "0", "hflip": "false",
                "precision": "fp32", "model-name": "copied-step-model"})
            score = Task(name=SCORE.name, template_ref=_ref(SCORE), arguments={
                "dataset-uri": "{{workflow.parameters.dataset_uri}}", "model-name": "copied-step-model",
                "model-version": "{{tasks.train.outputs.parameters.model_version}}", "min-accuracy": "0"})
            train >> score
    return workflow


def templates(cfg):
    return build_all(cfg, (TRAIN, SCORE))
'''


def _snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (bytecode caches aside), by relative path."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _copy_repository(dest: Path) -> None:
    for name in COPIED:
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")


def _aipipe(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_S)


def test_a_copied_step_folder_runs_from_a_pipeline_outside_the_repository(tmp_path: Path) -> None:
    copy, outside, home = tmp_path / "repo", tmp_path / "outside", tmp_path / "home"
    _copy_repository(copy)
    before = _snapshot(copy)

    # the newcomer's whole change: copy the folder, edit a file inside it
    shutil.copytree(copy / "steps" / "evaluate", copy / "steps" / NEW_FOLDER)
    contract = copy / "steps" / NEW_FOLDER / "contract.py"
    text = contract.read_text()
    assert 'description="Score candidate' in text
    contract.write_text(text.replace('description="Score candidate', 'description="(copied from evaluate) Score '
                                     'candidate'))
    after = _snapshot(copy)
    assert {p: h for p, h in after.items() if p in before} == before  # no file of the repository touched
    assert all(p.startswith(f"steps/{NEW_FOLDER}/") for p in set(after) - set(before))

    dataset = write_tiny_dataset(tmp_path / "storage" / "datasets", per_class=20, size=16)
    version = json.loads((dataset / "manifest.json").read_text())["version"]
    outside.mkdir()
    (outside / "score_pipeline.py").write_text(PIPELINE)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AIPIPE_", "MLFLOW_", "ARGO_"))},
           "PYTHONPATH": str(copy), "AIPIPE_HOME": str(home), "AIPIPE_STORAGE_ROOT": (tmp_path / "storage").as_uri(),
           "OMP_NUM_THREADS": "1", "MLFLOW_DISABLE_TELEMETRY": "true"}

    where = subprocess.run([sys.executable, "-c", "import aipipe, steps; print(aipipe.__file__, steps.__path__[0])"],
                           cwd=outside, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.split() == [str(copy / "aipipe" / "__init__.py"), str(copy / "steps")], where.stderr

    compiled = _aipipe(env, outside, "compile", "score_pipeline.py", "-o", "json",
                       "-p", f"dataset_uri={dataset.as_uri()}", "-p", f"dataset_version={version}")
    assert compiled.returncode == 0, compiled.stderr
    names = {doc["metadata"].get("name") for doc in json.loads(compiled.stdout)}
    assert {"aipipe-train-v1", f"aipipe-{NEW_STEP}-v1"} <= names

    ran = _aipipe(env, outside, "run", "score_pipeline.py",
                  "-p", f"dataset_uri={dataset.as_uri()}", "-p", f"dataset_version={version}")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    [name] = _aipipe(env, outside, "list", "-o", "name").stdout.split()
    final = json.loads(_aipipe(env, outside, "get", name, "-o", "json").stdout)
    assert final["status"]["phase"] == "Succeeded"
    [node] = [n for n in final["status"]["nodes"].values() if n.get("displayName") == NEW_STEP]
    outputs = {p["name"]: p.get("value") for p in node["outputs"]["parameters"]}
    assert node["phase"] == "Succeeded" and outputs["promote"] in ("true", "false")
    assert 0.0 <= float(outputs["candidate_metric"]) <= 1.0
    assert _snapshot(copy) == after  # running wrote nothing into the repository copy
