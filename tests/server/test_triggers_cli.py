"""``aipipe triggers apply --kubernetes`` against the fake Kubernetes API (no cluster runs here), and
``aipipe cron list|get|suspend|resume`` against a real ``aipipe server``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fake_kube import FakeKube
from tests.server.conftest import REPO_ROOT, ServerProcess

NS = "argo"


def aipipe(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=180, env={**os.environ, **env})


@pytest.fixture
def kube(tmp_path: Path):
    fake = FakeKube()
    fake.start()
    config = tmp_path / "kubeconfig"
    config.write_text(yaml.safe_dump(fake.kubeconfig()))
    yield fake, config
    fake.stop()


def test_apply_the_projects_triggers_to_a_cluster(kube: tuple[FakeKube, Path], tmp_path: Path) -> None:
    fake, config = kube
    env = {"KUBECONFIG": str(config), "AIPIPE_HOME": str(tmp_path / "home"), "ARGO_NAMESPACE": "ml"}
    result = aipipe("triggers", "apply", "--kubernetes", env=env)
    assert result.returncode == 0, result.stderr
    applied = {(plural, name) for plural, ns, name in fake.objects if ns == "ml"}
    assert applied == {("workflowtemplates", "aipipe-retrain"),
                       ("workfloweventbindings", "aipipe-label-studio-retrain"),
                       ("workfloweventbindings", "aipipe-data-drop-retrain"),
                       ("eventsources", "aipipe-label-studio"), ("eventsources", "aipipe-data-drop"),
                       ("sensors", "aipipe-label-studio-retrain"), ("sensors", "aipipe-data-drop-retrain")}
    source = fake.get("eventsources", "ml", "aipipe-label-studio")
    assert source is not None and source["spec"]["service"]["ports"][0]["port"] == 12000
    assert {m for m, _p, ct in fake.requests if m == "PATCH" and ct.startswith("application/apply-patch+yaml")}
    again = aipipe("triggers", "apply", "--kubernetes", env=env)  # server-side apply: idempotent
    assert again.returncode == 0, again.stderr


def test_apply_to_a_cluster_with_a_bad_token_is_one_line(kube: tuple[FakeKube, Path], tmp_path: Path) -> None:
    fake, config = kube
    broken = fake.kubeconfig()
    broken["users"][0]["user"]["token"] = "wrong"
    config.write_text(yaml.safe_dump(broken))
    result = aipipe("triggers", "apply", "--kubernetes", env={"KUBECONFIG": str(config),
                                                             "AIPIPE_HOME": str(tmp_path / "home")})
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "401" in result.stderr and "Traceback" not in result.stderr


def test_cron_commands_against_the_server(server: ServerProcess) -> None:
    cron: dict[str, Any] = {"metadata": {"name": "nightly"}, "spec": {
        "schedules": ["0 2 * * *"], "timezone": "Europe/Berlin",
        "workflowSpec": {"entrypoint": "main", "templates": [
            {"name": "main", "container": {"image": "alpine", "command": ["true"]}}]}}}
    assert server.http.post(f"{server.url}/api/v1/cron-workflows/{NS}", json={"cronWorkflow": cron}, timeout=30).ok
    env = {"AIPIPE_HOME": str(server.home), "ARGO_SERVER": server.url}
    listed = aipipe("cron", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "nightly" in listed.stdout and "0 2 * * *" in listed.stdout
    assert aipipe("cron", "suspend", "nightly", env=env).returncode == 0
    got = aipipe("cron", "get", "nightly", env=env)
    assert "suspended:" in got.stdout and "True" in got.stdout
    stored = server.http.get(f"{server.url}/api/v1/cron-workflows/{NS}/nightly", timeout=30).json()
    assert stored["spec"]["suspend"] is True
    assert aipipe("cron", "resume", "nightly", env=env).returncode == 0
    stored = server.http.get(f"{server.url}/api/v1/cron-workflows/{NS}/nightly", timeout=30).json()
    assert stored["spec"]["suspend"] is False
    missing = aipipe("cron", "get", "nope", env=env)
    assert missing.returncode != 0 and "not found" in missing.stderr and "Traceback" not in missing.stderr
