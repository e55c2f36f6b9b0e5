"""``aipipe run pipelines/retrain.py`` on a fresh AIPIPE_HOME: templates registered, clear failure without secrets."""

from __future__ import annotations

from aipipe.engine.store import WORKFLOW_TEMPLATE, RunStore
from tests.runs.conftest import REPO_ROOT


def test_retrain_registers_templates_and_fails_clearly_without_the_secret(engine, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one table row per line in `templates list`
    result = engine.run("run", str(REPO_ROOT / "pipelines" / "retrain.py"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    store = RunStore.from_home(engine.home)
    names = {t["metadata"]["name"] for t in store.list_resources(WORKFLOW_TEMPLATE)}
    step_templates = {"aipipe-export-annotations-v1", "aipipe-train-v1", "aipipe-evaluate-v1", "aipipe-convert-v1",
                      "aipipe-deploy-v1"}
    assert step_templates <= names
    listed = engine.run("templates", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert all(any(row[:1] == ["WorkflowTemplate"] and name in row for row in rows) for name in step_templates), \
        listed.stdout
    (run,) = store.list_workflows()
    nodes = {n["displayName"]: n for n in run["status"]["nodes"].values()}
    export = nodes["export-annotations"]
    assert export["phase"] in ("Error", "Failed") and "label-studio-api-key" in export["message"]
    assert all(nodes[step]["phase"] == "Omitted" for step in ("train", "evaluate", "convert", "deploy"))
    assert run["status"]["phase"] in ("Error", "Failed")
