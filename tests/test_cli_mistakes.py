"""What a newcomer gets wrong, through the real ``aipipe`` CLI in a subprocess: one line, a non-zero exit,
never a traceback. Also: ``templates apply`` says ``unchanged``, a local run leaves the applied templates
alone, a run with Label Studio down fails fast with the reason on the node line, and without a terminal
the run prints one line per node transition."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from aipipe.services.process import free_port
from tests.fixtures_train import SINGLE_PROCESS, TrainSetup
from tests.server.conftest import ServerProcess, start_server

REPO_ROOT = Path(__file__).resolve().parents[1]
PIPELINE = REPO_ROOT / "pipelines" / "retrain.py"
LS_WAIT_SECONDS = 3  # 1 + 2 s of backoff: three attempts
PHASES = "Pending|Running|Succeeded|Failed|Error|Skipped|Omitted"


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "AIPIPE_HOME": str(home), "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH"))))}
    for name in ("AIPIPE_CONFIG", "AIPIPE_STORAGE_ROOT", "AIPIPE_SERVER_TOKEN", "ARGO_TOKEN", "ARGO_SERVER",
                 "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "LABEL_STUDIO_WAIT_SECONDS"):
        env.pop(name, None)
    env.update(extra)
    return env


def aipipe(cwd: Path, env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def assert_one_line_error(done: subprocess.CompletedProcess[str], *needles: str, code: int | None = None) -> str:
    """A non-zero exit, no traceback, and exactly one line on stderr that holds every needle."""
    both = done.stdout + done.stderr
    assert done.returncode != 0, both
    assert code is None or done.returncode == code, f"exit {done.returncode}: {both}"
    assert "Traceback" not in both, both
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A working directory outside the repository."""
    path = tmp_path / "elsewhere"
    path.mkdir()
    return path


def test_usage_errors_and_output_formats(home: Path, elsewhere: Path) -> None:
    env = env_for(home)
    assert_one_line_error(aipipe(elsewhere, env, "get"), "Missing argument", "aipipe get --help", code=2)
    assert_one_line_error(aipipe(elsewhere, env, "lsit"), "No such command", code=2)
    assert_one_line_error(aipipe(elsewhere, env, "list", "--colour"), "No such option", code=2)
    assert_one_line_error(aipipe(elsewhere, env, "list", "-o", "xml"), "--output", "json, yaml, wide, name", code=2)
    assert_one_line_error(aipipe(elsewhere, env, "get", "nothing-here"), "nothing-here", code=2)
    # the old `compile -o DIR` names the flag that writes files now
    assert_one_line_error(aipipe(elsewhere, env, "compile", str(PIPELINE), "-o", "out/"), "--out-dir out/", code=2)

    workflow = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "hi-"},
                "spec": {"entrypoint": "main", "templates": [
                    {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", "echo hi"]}}]}}
    (elsewhere / "hi.yaml").write_text(yaml.safe_dump(workflow))
    assert aipipe(elsewhere, env, "run", "hi.yaml").returncode == 0
    name = aipipe(elsewhere, env, "list", "-o", "name").stdout.strip()
    assert re.fullmatch(r"hi-[a-z0-9]+", name), name
    for command in (["list"], ["get", name]):  # the same -o on every listing and get command
        as_json = json.loads(aipipe(elsewhere, env, *command, "-o", "json").stdout)
        as_yaml = yaml.safe_load(aipipe(elsewhere, env, *command, "-o", "yaml").stdout)
        assert as_json == as_yaml
        assert aipipe(elsewhere, env, *command, "-o", "name").stdout == f"{name}\n"
        assert name in aipipe(elsewhere, env, *command, "-o", "wide").stdout
    assert "PARAMETERS" in aipipe(elsewhere, env, "list", "-o", "wide").stdout
    assert aipipe(elsewhere, env, "templates", "list", "-o", "json").stdout.strip() == "[]"
    assert aipipe(elsewhere, env, "deploy", "status", "-o", "yaml").stdout.strip() == "[]"


def test_broken_pipelines_are_one_line(home: Path, elsewhere: Path) -> None:
    env = env_for(home)
    (elsewhere / "raises.py").write_text("def build(cfg):\n    raise RuntimeError('boom')\n")
    (elsewhere / "exits.py").write_text("import sys\nsys.exit(0)\n")
    for command in ("run", "compile", "lint"):
        assert_one_line_error(aipipe(elsewhere, env, command, "raises.py"), "build() raised RuntimeError: boom",
                              "line 2", code=2)
        assert_one_line_error(aipipe(elsewhere, env, command, "exits.py"), "called sys.exit(0)", code=2)
    assert not (home / "runs").exists() or not list((home / "runs").iterdir())  # nothing ran


def test_unwritable_home_and_storage_root_are_one_line(home: Path, tmp_path: Path, elsewhere: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    env = env_for(home, AIPIPE_STORAGE_ROOT=(a_file / "store").as_uri())
    (elsewhere / "hi.yaml").write_text(yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "hi-"},
        "spec": {"entrypoint": "main", "templates": [{"name": "main", "container": {"image": "alpine",
                                                                                   "command": ["true"]}}]}}))
    assert_one_line_error(aipipe(elsewhere, env, "run", "hi.yaml"), "storage.root", f"{a_file} is a file", code=2)

    read_only = tmp_path / "read-only-home"
    read_only.mkdir()
    command = [sys.executable, "-m", "aipipe.cli.main", "list"]
    if os.geteuid() == 0:  # root writes through file modes: a read-only bind mount in a private mount namespace
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.skip("needs unshare(1) to make a read-only folder as root")
        script = (f"mount --bind {read_only} {read_only} && mount -o remount,bind,ro {read_only} && "
                  f"exec {' '.join(command)}")
        done = subprocess.run([unshare, "--mount", "sh", "-c", script], cwd=elsewhere, capture_output=True,
                              text=True, timeout=120, env=env_for(read_only))
        if "mount:" in done.stderr:
            pytest.skip(f"no mount namespace here: {done.stderr.strip()}")
    else:
        read_only.chmod(0o555)
        done = subprocess.run(command, cwd=elsewhere, capture_output=True, text=True, timeout=120,
                              env=env_for(read_only))
    assert_one_line_error(done, "home:", str(read_only), "AIPIPE_HOME", code=2)


def test_step_help_and_a_train_retry_with_another_arch(train_setup: TrainSetup) -> None:
    helped = subprocess.run([sys.executable, "-m", "steps.deploy", "--help"], capture_output=True, text=True,
                            timeout=120, env=train_setup.env())
    assert helped.returncode == 0 and "compute share for the service (%)" in helped.stdout, helped.stderr

    data = train_setup.learnable
    first = train_setup.train(data, "wf-arch", "digits-arch", *SINGLE_PROCESS, "--epochs", "1",
                              label="wf-arch-attempt1")
    assert first.returncode == 0, first.stderr[-3000:]
    retried = train_setup.train(data, "wf-arch", "digits-arch", *SINGLE_PROCESS, "--epochs", "1", "--arch",
                                "resnet50", label="wf-arch-attempt2")
    assert retried.returncode == 2, retried.stderr[-3000:]  # a user error: the template never retries exit 2
    assert "Traceback" not in retried.stderr
    (line,) = [x for x in retried.stderr.splitlines() if "error:" in x]
    assert "arch: the checkpoint holds another model than --arch resnet50" in line


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = start_server(tmp_path / "home", token="cli-mistakes-token")
    try:
        yield running
    finally:
        running.stop()


def _actions(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [re.findall(r"[\w.-]+", line) for line in done.stdout.splitlines()]
    return {row[1]: " ".join(row[2:]) for row in rows if row[:1] in (["WorkflowTemplate"], ["CronWorkflow"])}


def _stored_label_studio_url(server: ServerProcess) -> str:
    found = server.http.get(f"{server.url}/api/v1/workflow-templates/argo/aipipe-export-annotations-v1", timeout=30)
    assert found.ok, found.text
    env = found.json()["spec"]["templates"][0]["container"]["env"]
    return next(e["value"] for e in env if e["name"] == "LABEL_STUDIO_URL")


def test_templates_apply_unchanged_and_a_local_run_with_label_studio_down(
        server: ServerProcess, elsewhere: Path, tmp_path: Path) -> None:
    env = env_for(server.home, ARGO_SERVER=server.url, ARGO_TOKEN=str(server.token))
    steps = {"aipipe-export-annotations-v1", "aipipe-train-v1", "aipipe-evaluate-v1", "aipipe-convert-trt-v1",
             "aipipe-deploy-v1"}
    # from a folder outside the repository, with no path: the bundled pipeline
    assert _actions(aipipe(elsewhere, env, "templates", "apply")) == dict.fromkeys(steps, "created")
    assert _actions(aipipe(elsewhere, env, "templates", "apply")) == dict.fromkeys(steps, "unchanged")
    moved = {**env, "LABEL_STUDIO_URL": "http://127.0.0.1:8081"}
    assert _actions(aipipe(elsewhere, moved, "templates", "apply", "--dry-run")) == dict.fromkeys(
        steps, "would update")
    assert _actions(aipipe(elsewhere, env, "templates", "apply", str(REPO_ROOT / "pipelines" / "templates"))) == \
        dict.fromkeys(steps, "unchanged")  # a folder of template modules
    # cron apply on the compiler's own CronWorkflow YAML (its templateRefs resolve against the server's)
    out = tmp_path / "out"
    assert aipipe(elsewhere, env, "compile", str(PIPELINE), "--out-dir", str(out)).returncode == 0
    (cron_yaml,) = out.glob("cronworkflow-*.yaml")
    assert set(_actions(aipipe(elsewhere, env, "cron", "apply", str(cron_yaml))).values()) == {"created"}
    assert set(_actions(aipipe(elsewhere, env, "cron", "apply", str(out))).values()) == {"unchanged"}
    applied_url = _stored_label_studio_url(server)

    # a local run against a Label Studio that is down (a closed port): the reason is on the node line early,
    # the run fails within the configured wait, and the server's templates are left as applied
    down = f"http://127.0.0.1:{free_port()}"
    run_env = {**env, "LABEL_STUDIO_URL": down, "LABEL_STUDIO_API_KEY": "not-checked",
               "LABEL_STUDIO_WAIT_SECONDS": str(LS_WAIT_SECONDS)}
    started = time.monotonic()
    done = aipipe(elsewhere, run_env, "run", str(PIPELINE), timeout=240)
    took = time.monotonic() - started
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert took < 60, f"{took:.0f} s to fail with Label Studio down"
    lines = done.stdout.strip().splitlines()
    transitions = lines[1:-1]
    assert lines[0].startswith("Name: ") and re.match(r"aipipe-retrain-\w+: Failed in \d+s", lines[-1]), lines
    seen = set()
    for line in transitions:  # one line per node transition, each node and phase once
        match = re.match(rf"\d\d:\d\d:\d\d (\S+): ({PHASES})\b", line)
        assert match, line
        assert match.groups() not in seen, lines
        seen.add(match.groups())
    failed = [line for line in transitions if re.match(r"\S+ export-annotations: Failed", line)]
    assert failed and f"Label Studio at {down} is unavailable (connection refused) after 3 attempts" in failed[0]
    assert {("train", "Omitted"), ("deploy", "Omitted")} <= seen
    assert _stored_label_studio_url(server) == applied_url != down
    listed = aipipe(elsewhere, env, "templates", "list", "-o", "name")
    assert set(listed.stdout.split()) == steps


def test_label_studio_down_is_on_the_node_line_within_seconds(home: Path, elsewhere: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    env = env_for(home, LABEL_STUDIO_URL=down, LABEL_STUDIO_API_KEY="not-checked", LABEL_STUDIO_WAIT_SECONDS="20")
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "aipipe.cli.main", "run", str(PIPELINE)], cwd=elsewhere, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        tree = ""
        while time.monotonic() - started < 30:
            name = aipipe(elsewhere, env, "list", "-o", "name").stdout.strip()
            tree = aipipe(elsewhere, env, "get", name).stdout if name else ""
            if re.search(r"attempt \d/5", tree):
                break
            time.sleep(0.5)
        took = time.monotonic() - started
        line = next((x for x in tree.splitlines() if "export-annotations(0)" in x), "")  # the attempt's pod
        # the backoff is 1, 2, 4, 8 s: on a slow machine the first poll may already see a later attempt
        assert re.search(rf"Label Studio at {re.escape(down)} unreachable \(connection refused\), attempt [1-4]/5",
                         line), tree
        assert took < 15, f"the reason showed after {took:.0f} s"
    finally:
        proc.terminate()
        proc.wait(60)


def test_the_tree_shows_step_progress_and_one_run_progress(home: Path, elsewhere: Path) -> None:
    script = 'echo 3/10 > "$ARGO_PROGRESS_FILE"; sleep 1; echo 10/10 > "$ARGO_PROGRESS_FILE"'
    templates = [
        {"name": "main", "dag": {"tasks": [{"name": "steps", "template": "counting"},
                                           {"name": "after", "template": "quiet", "depends": "steps"}]}},
        {"name": "counting", "container": {"image": "alpine", "command": ["sh", "-c", script]}},
        {"name": "quiet", "container": {"image": "alpine", "command": ["true"]}},
    ]
    (elsewhere / "count.yaml").write_text(yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "count-"},
        "spec": {"entrypoint": "main", "templates": templates}}))
    env = env_for(home)
    done = aipipe(elsewhere, env, "run", "count.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"steps: Succeeded \d+s 10/10", done.stdout), done.stdout  # the transition line
    name = aipipe(elsewhere, env, "list", "-o", "name").stdout.strip()
    tree = aipipe(elsewhere, env, "get", name).stdout
    header = re.search(r"Progress: (\d+/\d+)", tree)
    root = next(line for line in tree.splitlines() if f"{name} (main)" in line)
    step = next(line for line in tree.splitlines() if "steps (counting)" in line)
    assert header and header.group(1) == "2/2" and "  2/2" in root, tree  # one run progress, header and root
    assert "10/10" in step, tree  # the step's own report
