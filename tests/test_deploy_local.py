"""Local target with the real serving runtime: detached start, health gate, swap, rollback, status/stop.

The step runs as ``python -m steps.deploy`` in a subprocess, so the tests also prove the deployment
outlives the deploy node's process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from steps.deploy.health import smoke_image
from steps.deploy.local import Instance, LocalDeployments, is_alive

REPO = Path(__file__).resolve().parents[1]
NAME = "aipipe-classifier"
# one model replica, one CPU worker: lean on a 2-core CI machine
LEAN = ["--memory-mb", "300", "--gpu-memory-mib", "1024", "--gpu-compute-percent", "12", "--max-replicas", "1",
        "--device", "cpu", "--health-timeout-s", "90", "--error-grace-s", "4"]


@pytest.fixture(scope="module")
def engines(tmp_path_factory) -> Path:
    """engines/<name>/{1,2}: good bundles; 3: a corrupt engine file; 4: no label map (the server exits)."""
    from steps.convert_trt.bundle import update_manifest
    from steps.convert_trt.fixtures import write_tiny_engine_bundle

    root = tmp_path_factory.mktemp("store") / "engines" / NAME
    first = write_tiny_engine_bundle(root / "1", backend="onnxruntime", image_size=32)
    update_manifest(first, model_version="1")
    for version in ("2", "3", "4"):
        shutil.copytree(first, root / version)
        update_manifest(root / version, model_version=version)
    engine_file = json.loads((root / "3" / "engine.json").read_text())["file"]
    (root / "3" / engine_file).write_bytes(b"not an engine")
    (root / "4" / "classes.json").unlink()
    return root


@pytest.fixture()
def home(tmp_path) -> Iterator[Path]:
    home = tmp_path / "home"
    yield home
    deployments = LocalDeployments(home)
    for name in deployments.names():  # never leave a server behind
        deployments.stop(name)


def _env(home: Path, outputs: Path) -> dict[str, str]:
    return {**os.environ, "AIPIPE_HOME": str(home), "AIPIPE_OUTPUTS_DIR": str(outputs), "PYTHONPATH": str(REPO)}


def _deploy(engines: Path, version: str, home: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess, dict]:
    outputs = tmp_path / f"out-{version}-{len(list(tmp_path.glob('out-*')))}"
    proc = subprocess.run([sys.executable, "-m", "steps.deploy", "--engine-uri", (engines / version).as_uri(),
                           "--model-version", version, *LEAN], env=_env(home, outputs), cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    values = {p.name: p.read_text() for p in outputs.iterdir()} if outputs.is_dir() else {}
    return proc, values


def _predict(url: str) -> dict:
    req = urllib.request.Request(url + "/v1/predict", data=smoke_image(), headers={"Content-Type": "image/jpeg"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _answers(url: str) -> bool:
    try:
        _predict(url)
        return True
    except OSError:
        return False


def _aipipe(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], env=_env(home, home / "out"),
                          capture_output=True, text=True, timeout=60)


def test_deploy_swap_rollback_status_stop(engines, home, tmp_path):
    # 1. first version: the node returns once healthy; the server outlives it
    proc, out = _deploy(engines, "1", home, tmp_path)
    assert proc.returncode == 0, proc.stderr
    url1 = out["endpoint"]
    assert url1.startswith("http://127.0.0.1:") and url1 in proc.stdout
    assert (out["previous_version"], out["rolled_back"]) == ("", "false")
    assert (out["replicas"], out["provider"]) == ("1", "local")
    answer = _predict(url1)
    assert answer["model_version"] == "1" and answer["predictions"][0]["class"].startswith("class_")
    first = LocalDeployments(home).current(NAME)
    assert first is not None and is_alive(first) and first.model_version == "1"

    # 2. the same version again (a retried node): the running deployment is reused
    proc, out = _deploy(engines, "1", home, tmp_path)
    assert proc.returncode == 0 and out["endpoint"] == url1
    assert LocalDeployments(home).current(NAME).pid == first.pid

    # 3. a new version takes over on a new port, then the old one stops
    proc, out = _deploy(engines, "2", home, tmp_path)
    assert proc.returncode == 0, proc.stderr
    url2 = out["endpoint"]
    assert url2 != url1 and out["previous_version"] == "1" and out["rolled_back"] == "false"
    assert _predict(url2)["model_version"] == "2"
    assert not is_alive(first) and not _answers(url1)

    # 4. a broken model fails its gate: exit 2, one clear line, the previous version keeps serving
    proc, out = _deploy(engines, "3", home, tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "version 3 failed" in proc.stderr and f"version 2 keeps serving at {url2}" in proc.stderr
    assert (out["rolled_back"], out["endpoint"], out["previous_version"]) == ("true", url2, "2")
    report = json.loads(out["deploy-report.json"])
    assert not report["health"]["ok"] and report["log_tail"]
    failed = Instance.from_dict(report["instance"])
    assert not is_alive(failed)
    assert _predict(url2)["model_version"] == "2"
    assert LocalDeployments(home).current(NAME).model_version == "2"

    # 5. status and stop
    status = _aipipe(home, "deploy", "status", "--json")
    assert status.returncode == 0, status.stderr
    [row] = json.loads(status.stdout)
    assert (row["name"], row["model_version"], row["url"], row["ready"]) == (NAME, "2", url2, True)
    assert url2 in _aipipe(home, "deploy", "status").stdout
    stopped = _aipipe(home, "deploy", "stop", NAME)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert not _answers(url2)
    assert "no local deployments" in _aipipe(home, "deploy", "status").stdout
    again = _aipipe(home, "deploy", "stop", NAME)
    assert again.returncode == 2 and "no local deployment named" in again.stderr


def test_a_server_that_exits_fails_the_gate_at_once(engines, home, tmp_path):
    proc, out = _deploy(engines, "4", home, tmp_path)
    assert proc.returncode == 2 and "exited" in proc.stderr
    assert (out["rolled_back"], out["endpoint"], out["previous_version"]) == ("true", "", "")
    assert "nothing was serving before" in proc.stderr
    assert LocalDeployments(home).current(NAME) is None


def _record(home: Path, pid: int, start_ticks: str) -> Instance:
    inst = Instance(name=NAME, model_version="9", url="http://127.0.0.1:9", port=9, pid=pid, start_ticks=start_ticks,
                    engine_uri="file:///nowhere", engine_dir=str(home / "x" / "engine"), log="", started_at="now")
    folder = LocalDeployments(home).folder(NAME)
    folder.mkdir(parents=True)
    (folder / "current.json").write_text(json.dumps(inst.to_dict()))
    return inst


def test_a_dead_or_recycled_pid_is_never_signalled(tmp_path):
    home = tmp_path / "home"
    # our own pid with another start time: a recycled pid, not the server that was recorded
    inst = _record(home, os.getpid(), "1")
    deployments = LocalDeployments(home)
    assert not is_alive(inst)
    assert deployments.status(NAME)["alive"] is False and deployments.status(NAME)["ready"] is False
    assert deployments.stop(NAME).pid == os.getpid()  # forgot the record, signalled nothing (we are alive)
    assert deployments.current(NAME) is None and deployments.names() == []


def test_an_unreadable_record_is_a_clear_error(tmp_path):
    from aipipe.errors import UserError

    home = tmp_path / "home"
    folder = LocalDeployments(home).folder(NAME)
    folder.mkdir(parents=True)
    (folder / "current.json").write_text("{not json")
    with pytest.raises(UserError, match="unreadable deployment record"):
        LocalDeployments(home).current(NAME)
