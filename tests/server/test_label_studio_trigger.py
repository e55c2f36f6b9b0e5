"""A real Label Studio posts its webhooks to a real ``aipipe server`` as annotations are created through its
API. The webhook is registered with ``aipipe triggers register-label-studio`` and the binding (cron/'s, with
a threshold of 3) installed with ``aipipe triggers apply``; the retrain is a short stand-in template."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from aipipe.config import load_config
from cron import label_studio_webhook
from steps.export_annotations import seed
from tests.fixtures_labelstudio import LabelStudioServer
from tests.server.conftest import REPO_ROOT, ServerProcess, start_server
from tests.server.test_triggers_api import runs, settle, stand_in_template

NS = "argo"
THRESHOLD = 3


def aipipe(server: ServerProcess, ls: LabelStudioServer, *args: str, token: str | None = None) -> str:
    env = {**os.environ, **ls.env(), "AIPIPE_HOME": str(server.home), "ARGO_SERVER": server.url}
    env.pop("ARGO_TOKEN", None)
    if token is not None:
        env["ARGO_TOKEN"] = token
    result = subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def wired(label_studio: LabelStudioServer, tmp_path_factory: pytest.TempPathFactory):
    """One server, one project with its webhook and binding, for the module's tests (Label Studio is slow
    to start, so it is shared)."""
    home = tmp_path_factory.mktemp("ls-trigger") / "home"
    server = start_server(home)
    try:
        stand_in_template(server)
        binding = label_studio_webhook.event_binding(load_config(env={"AIPIPE_MIN_NEW_ANNOTATIONS": str(THRESHOLD)},
                                                                  path=None))
        manifest = home.parent / "binding.yaml"
        manifest.write_text(yaml.safe_dump(binding))
        assert "WorkflowEventBinding" in aipipe(server, label_studio, "triggers", "apply", str(manifest))
        project = label_studio.create_project("trigger test", seed.classification_config(["cat", "dog"]))
        tasks = label_studio.import_tasks(project, [{"image": f"/data/{i}.png"} for i in range(12)])
        registered = aipipe(server, label_studio, "triggers", "register-label-studio", str(project))
        assert "created" in registered and "with the server token" in registered
        yield server, project, tasks
    finally:
        server.stop()


def test_n_new_annotations_start_exactly_one_retrain(wired, label_studio: LabelStudioServer) -> None:
    server, project, tasks = wired
    first = [label_studio.annotate(t, seed.choice_result("cat")) for t in tasks[:THRESHOLD - 1]]
    assert settle(server, 0) == []
    label_studio.annotate(tasks[THRESHOLD - 1], seed.choice_result("dog"))
    (run,) = settle(server, 1)
    assert run["spec"]["arguments"]["parameters"] == [{"name": "project", "value": str(project)}]
    assert run["metadata"]["labels"]["aipipe.io/trigger"] == "webhook"
    # Label Studio delivers the same annotation again when it is updated: nothing new, no run
    label_studio.source().client.annotations.update(id=first[0], result=seed.choice_result("dog"))
    assert len(settle(server, 1)) == 1


def test_a_webhook_with_a_bad_token_gets_401_and_starts_nothing(wired, label_studio: LabelStudioServer) -> None:
    server, project, tasks = wired
    before = len(runs(server))
    assert "updated" in aipipe(server, label_studio, "triggers", "register-label-studio", str(project),
                               token="not-the-server-token")
    log = Path(server.home) / "server.log"
    refused = log.read_text().count("/label-studio 401")
    for task in tasks[THRESHOLD:THRESHOLD * 2 + 1]:
        label_studio.annotate(task, seed.choice_result("cat"))
    deadline = time.monotonic() + 30
    while log.read_text().count("/label-studio 401") < refused + THRESHOLD + 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert log.read_text().count("/label-studio 401") >= refused + THRESHOLD + 1
    assert len(settle(server, before, wait=2.0)) == before
