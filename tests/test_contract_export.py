"""``python -m steps.export_annotations`` follows step contract v1: flags, output files, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from steps.export_annotations import seed
from steps.export_annotations.contract import CONTRACT as EXPORT
from tests.fixtures_labelstudio import LabelStudioServer, free_port

REPO = Path(__file__).resolve().parents[1]
REPORT = Path(EXPORT.artifacts[0].path).name


def run_step(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "outputs"
    full_env = {**os.environ, "AIPIPE_HOME": str(tmp_path / "home"), "AIPIPE_OUTPUTS_DIR": str(out),
                "PYTHONPATH": str(REPO), **env}
    proc = subprocess.run([sys.executable, "-m", EXPORT.module, *args], env=full_env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    return proc, out


@pytest.fixture(scope="module")
def small_project(label_studio: LabelStudioServer) -> seed.SeededProject:
    return seed.seed_project(label_studio.source(), images=8, title="contract test", size=16, seed=4)


def test_help_documents_every_flag() -> None:
    proc = subprocess.run([sys.executable, "-m", EXPORT.module, "--help"], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert proc.returncode == 0
    for flag in [*(f"--{i.name}" for i in EXPORT.inputs), "--retries", "--backoff-seconds", "--workers"]:
        assert flag in proc.stdout
    for name in EXPORT.output_names():
        assert name in proc.stdout


def test_success_writes_every_output_parameter(label_studio: LabelStudioServer, small_project: seed.SeededProject,
                                               tmp_path: Path) -> None:
    proc, out = run_step(tmp_path, label_studio.env(), "--project", "contract test", "--val-fraction", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted([*EXPORT.output_names(), REPORT])
    values = {name: (out / name).read_text() for name in EXPORT.output_names()}
    assert values["dataset_uri"].startswith((tmp_path / "home" / "store" / "datasets").as_uri())
    assert values["dataset_uri"].endswith("/" + values["dataset_version"])
    assert int(values["num_items"]) == 8 and int(values["num_new"]) == 8
    assert json.loads(values["classes"]) == list(seed.DIGITS) and values["changed"] == "true"
    assert json.loads((out / REPORT).read_text())["items"] == 8
    again, out = run_step(tmp_path, label_studio.env(), "--project", str(small_project.id), "--val-fraction", "0.5")
    assert again.returncode == 0 and (out / "changed").read_text() == "false" and (out / "num_new").read_text() == "0"


def test_wrong_token_exits_2_with_one_line(label_studio: LabelStudioServer, small_project: seed.SeededProject,
                                           tmp_path: Path) -> None:
    proc, out = run_step(tmp_path, label_studio.env("f" * 40), "--project", str(small_project.id))
    assert proc.returncode == 2
    assert "401" in proc.stderr and "LABEL_STUDIO_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
    assert "401" in json.loads((out / REPORT).read_text())["error"]
    assert not (out / "dataset_uri").exists()


def test_zero_annotations_exit_2_and_keep_the_report(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    project = label_studio.create_project("empty contract test", seed.classification_config(["a"]))
    label_studio.import_tasks(project, [{"image": "http://127.0.0.1:9/x.png"}])
    proc, out = run_step(tmp_path, label_studio.env(), "--project", str(project))
    assert proc.returncode == 2 and "zero usable annotations" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads((out / REPORT).read_text())["tasks_exported"] == 0


def test_bad_flag_values_exit_2(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    proc, _ = run_step(tmp_path, label_studio.env(), "--project", "1", "--val-fraction", "1.5")
    assert proc.returncode == 2 and "val-fraction" in proc.stderr
    proc, _ = run_step(tmp_path, label_studio.env(), "--project", "no such project title")
    assert proc.returncode == 2 and "no such project title" in proc.stderr


def test_unreachable_label_studio_exits_3_naming_the_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    proc, out = run_step(tmp_path, {"LABEL_STUDIO_URL": url, "LABEL_STUDIO_API_KEY": "x" * 40}, "--project", "1",
                         "--retries", "2", "--backoff-seconds", "0.1")
    assert proc.returncode == 3 and url in proc.stderr and "Traceback" not in proc.stderr
    assert url in json.loads((out / REPORT).read_text())["error"]
