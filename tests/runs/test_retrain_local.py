"""``aipipe run pipelines/retrain.py`` on a fresh AIPIPE_HOME: the run carries its templates (the store is
left alone), clear failure without secrets."""

from __future__ import annotations

from aipipe.engine.store import WORKFLOW_TEMPLATE, RunStore
from tests.runs.conftest import REPO_ROOT


def test_retrain_carries_its_templates_and_fails_clearly_without_the_secret(engine, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one table row per line in `templates list`
    result = engine.run("run", str(REPO_ROOT / "pipelines" / "retrain.py"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    store = RunStore.from_home(engine.home)
    assert store.list_resources(WORKFLOW_TEMPLATE) == []  # what `aipipe server` uses is never written by a run
    listed = engine.run("templates", "list", "-o", "name")
    assert listed.returncode == 0 and listed.stdout == "", listed.stdout + listed.stderr
    step_templates = {"export-annotations", "train", "evaluate", "convert-trt", "deploy"}
    (run,) = store.list_workflows()
    assert step_templates <= {t["name"] for t in run["spec"]["templates"]}
    (run,) = store.list_workflows()
    nodes = {n["displayName"]: n for n in run["status"]["nodes"].values()}
    export = nodes["export-annotations"]  # the Retry node: Argo's message once its limit is spent
    assert export["phase"] in ("Error", "Failed") and export["message"] == "No more retries left"
    attempts = [run["status"]["nodes"][child] for child in export["children"]]
    assert attempts and all("label-studio-api-key" in a["message"] for a in attempts)  # each says what is missing
    assert all(nodes[step]["phase"] == "Omitted" for step in ("train", "evaluate", "convert-trt", "deploy"))
    assert run["status"]["phase"] in ("Error", "Failed")
