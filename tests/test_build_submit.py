"""`aipipe submit`, `templates apply` and `cron apply` against a loopback Argo Server stand-in.

The stand-in speaks the Argo Server REST paths the client uses and records every request, so the
tests can check request bodies (against swagger.json) and that nothing is written when an item
of a batch is invalid. (No Argo server can run here; the engine's own server is tested by its owner.)
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from aipipe.argo import ArgoClient
from aipipe.errors import AuthError, ConflictError, ServiceUnavailable, UserError

REPO = Path(__file__).resolve().parents[1]
PIPELINE = REPO / "pipelines" / "retrain.py"
TOKEN = "test-token-123"
COLLECTIONS = {"workflows": "Workflow", "workflow-templates": "WorkflowTemplate", "cron-workflows": "CronWorkflow"}
BODY_KEY = {"workflows": "workflow", "workflow-templates": "template", "cron-workflows": "cronWorkflow"}


class FakeArgo:
    """State and scripted answers of the stand-in server."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.stored: dict[tuple[str, str], dict[str, Any]] = {}
        self.reject: dict[str, str] = {}  # resource name -> 400 message on create (dry-run or not)
        self.force_status: int | None = None
        self.phases: list[str] = ["Running", "Succeeded"]
        self.version = 0

    def writes(self) -> list[dict[str, Any]]:
        """Requests that would change server state (not dry-run, not lint, not GET)."""
        return [r for r in self.requests if r["method"] in ("POST", "PUT") and not r["path"].endswith("/lint")
                and not (r["body"] or {}).get("serverDryRun")
                and not ((r["body"] or {}).get("createOptions") or {}).get("dryRun")]

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any) -> tuple[int, dict[str, Any]]:
        self.requests.append({"method": method, "path": path, "headers": headers, "body": body})
        if self.force_status:
            return self.force_status, {"code": 9, "message": f"forced {self.force_status}"}
        if headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, {"code": 16, "message": "token not valid"}
        parts = path.strip("/").split("/")  # api v1 <collection> <ns> [name|lint]
        collection, rest = parts[2], parts[4:]
        if method == "POST" and rest == ["lint"]:
            return 200, body[BODY_KEY[collection]]
        if method == "POST":
            return self._create(collection, body)
        key = (collection, rest[0])
        if key not in self.stored:
            return 404, {"code": 5, "message": f"{rest[0]} not found"}
        if method == "GET":
            if collection == "workflows":
                return 200, self._workflow_status(self.stored[key])
            return 200, self.stored[key]
        if method == "PUT":
            obj = body[BODY_KEY[collection]]
            if obj["metadata"].get("resourceVersion") != self.stored[key]["metadata"]["resourceVersion"]:
                return 409, {"code": 10, "message": "the object has been modified"}
            return 200, self._store(collection, obj)
        return 405, {"message": "unsupported"}

    def _create(self, collection: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        obj = copy.deepcopy(body[BODY_KEY[collection]])
        meta = obj["metadata"]
        name = meta.get("name") or meta["generateName"] + "x7k2p"
        if name in self.reject:
            return 400, {"code": 3, "message": self.reject[name]}
        if (collection, name) in self.stored:
            return 409, {"code": 6, "message": f'{COLLECTIONS[collection]} "{name}" already exists'}
        meta["name"] = name
        if body.get("serverDryRun") or (body.get("createOptions") or {}).get("dryRun"):
            return 200, obj
        return 200, self._store(collection, obj)

    def _store(self, collection: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        obj = copy.deepcopy(obj)
        obj["metadata"]["resourceVersion"] = str(self.version)
        self.stored[(collection, obj["metadata"]["name"])] = obj
        return obj

    def _workflow_status(self, wf: dict[str, Any]) -> dict[str, Any]:
        phase = self.phases.pop(0) if len(self.phases) > 1 else self.phases[0]
        node = {"id": "n1", "name": f"{wf['metadata']['name']}.export-annotations",
                "displayName": "export-annotations", "type": "Pod", "phase": phase, "startedAt": "2026-01-01T00:00:00Z"}
        return {**wf, "status": {"phase": phase, "nodes": {"n1": node},
                                 **({"message": "child failed"} if phase == "Failed" else {})}}


@pytest.fixture
def argo() -> Iterator[tuple[FakeArgo, str]]:
    fake = FakeArgo()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            status, payload = fake.handle(self.command, self.path.split("?")[0], dict(self.headers), body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def aipipe(*args: str, token: str | None = TOKEN, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGO_", "AIPIPE_"))}
    if token is not None:
        env["ARGO_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def swagger_validator(shared_dir: Path, definition: str) -> jsonschema.Draft4Validator:
    swagger = json.loads((shared_dir / "argo" / "swagger.json").read_text())
    definitions = swagger["definitions"]
    # Documented false positive of the generated schema (../shared/argo/SOURCE.md): IntOrString is
    # typed string only, although Argo accepts integers.
    definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["string", "integer"]}
    return jsonschema.Draft4Validator({"$ref": f"#/definitions/{definition}", "definitions": definitions})


def test_submit_sends_a_valid_create_request_and_prints_the_ui_url(argo, shared_dir):
    fake, url = argo
    run = aipipe("submit", str(PIPELINE), "-p", "epochs=4", "--server", url, "--namespace", "ml")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"submitted aipipe-retrain-x7k2p: {url}/workflows/ml/aipipe-retrain-x7k2p"
    (request,) = fake.requests
    assert request["method"] == "POST" and request["path"] == "/api/v1/workflows/ml"
    assert request["headers"]["Authorization"] == f"Bearer {TOKEN}"
    body = request["body"]
    errors = [e.message for e in swagger_validator(shared_dir, "io.argoproj.workflow.v1alpha1.WorkflowCreateRequest")
              .iter_errors(body)]
    assert errors == []
    params = {p["name"]: p["value"] for p in body["workflow"]["spec"]["arguments"]["parameters"]}
    assert params["epochs"] == "4"
    assert body["workflow"]["metadata"]["generateName"] == "aipipe-retrain-"


def test_swagger_check_is_live(shared_dir):
    validator = swagger_validator(shared_dir, "io.argoproj.workflow.v1alpha1.WorkflowCreateRequest")
    assert list(validator.iter_errors({"workflow": {"spec": {"templates": "not-a-list"}}}))


def test_submit_a_workflow_yaml(argo, tmp_path):
    fake, url = argo
    path = tmp_path / "hello.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "hello-"},
        "spec": {"entrypoint": "main", "arguments": {"parameters": [{"name": "msg", "value": "hi"}]},
                 "templates": [{"name": "main", "container": {"image": "busybox", "args": ["echo"]}}]}}))
    run = aipipe("submit", str(path), "-p", "msg=bye", "--server", url)
    assert run.returncode == 0, run.stderr
    assert f"{url}/workflows/argo/hello-x7k2p" in run.stdout
    assert fake.requests[0]["body"]["workflow"]["spec"]["arguments"]["parameters"] == [{"name": "msg", "value": "bye"}]


def test_submit_resolves_template_refs_on_the_server(argo, tmp_path):
    fake, url = argo
    path = tmp_path / "uses-library.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "lib-"},
        "spec": {"entrypoint": "main", "templates": [{"name": "main", "dag": {"tasks": [
            {"name": "hello", "templateRef": {"name": "library-v1", "template": "say"},
             "arguments": {"parameters": [{"name": "msg", "value": "hi"}]}}]}}]}}))
    missing = aipipe("submit", str(path), "--server", url)
    assert missing.returncode == 2 and "unknown WorkflowTemplate 'library-v1'" in missing.stderr
    assert fake.writes() == []
    fake.stored[("workflow-templates", "library-v1")] = {
        "metadata": {"name": "library-v1", "resourceVersion": "1"},
        "spec": {"templates": [{"name": "say", "inputs": {"parameters": [{"name": "msg"}]},
                                "container": {"image": "busybox", "args": ["{{inputs.parameters.msg}}"]}}]}}
    found = aipipe("submit", str(path), "--server", url)
    assert found.returncode == 0, found.stderr
    assert [r["method"] for r in fake.requests[-2:]] == ["GET", "POST"]


def test_submit_401_is_one_clear_line(argo):
    _, url = argo
    run = aipipe("submit", str(PIPELINE), "--server", url, token="wrong")
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert "token not valid" in line and "HTTP 401" in line and "Traceback" not in run.stderr


def test_submit_403_is_an_auth_error(argo):
    fake, url = argo
    fake.force_status = 403
    run = aipipe("submit", str(PIPELINE), "--server", url)
    assert run.returncode == 2 and "HTTP 403" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_submit_409_is_one_clear_line(argo, tmp_path):
    fake, url = argo
    doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "fixed-name"},
           "spec": {"entrypoint": "main", "templates": [{"name": "main", "container": {"image": "busybox"}}]}}
    fake.stored[("workflows", "fixed-name")] = doc
    path = tmp_path / "fixed.yaml"
    path.write_text(yaml.safe_dump(doc))
    run = aipipe("submit", str(path), "--server", url)
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert 'Workflow "fixed-name" already exists' in line


def test_submit_to_an_unreachable_server_exits_3(tmp_path):
    run = aipipe("submit", str(PIPELINE), "--server", "http://127.0.0.1:9")
    assert run.returncode == 3
    (line,) = run.stderr.strip().splitlines()
    assert "cannot reach Argo server at http://127.0.0.1:9" in line


def test_submit_missing_file_and_bad_parameter_fail_before_any_request(argo):
    fake, url = argo
    missing = aipipe("submit", "pipelines/nope.py", "--server", url)
    assert missing.returncode == 2 and missing.stderr.strip() == "error: pipelines/nope.py: no such file"
    bad = aipipe("submit", str(PIPELINE), "-p", "gpu_memory_mib=lots", "--server", url)
    assert bad.returncode == 2 and "parameter gpu_memory_mib: expected an int" in bad.stderr
    assert fake.requests == []


def test_submit_wait_follows_nodes_until_success(argo):
    fake, url = argo
    fake.phases = ["Running", "Succeeded"]
    run = aipipe("submit", str(PIPELINE), "--server", url, "--wait")
    assert run.returncode == 0, run.stderr
    assert "export-annotations: Running" in run.stdout and "export-annotations: Succeeded" in run.stdout
    assert run.stdout.strip().endswith("aipipe-retrain-x7k2p: Succeeded")


def test_submit_wait_exits_non_zero_when_the_run_fails(argo):
    fake, url = argo
    fake.phases = ["Running", "Failed"]
    run = aipipe("submit", str(PIPELINE), "--server", url, "--wait")
    assert run.returncode == 1
    assert "aipipe-retrain-x7k2p: Failed: child failed" in run.stdout


def test_python_pipeline_file_submits_like_aipipe_submit(argo):
    fake, url = argo
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGO_", "AIPIPE_"))}
    env.update(ARGO_TOKEN=TOKEN, PYTHONPATH=str(REPO))
    run = subprocess.run([sys.executable, str(PIPELINE), "-p", "epochs=7", "--server", url], capture_output=True,
                         text=True, cwd=REPO, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert f"{url}/workflows/argo/aipipe-retrain-x7k2p" in run.stdout
    params = {p["name"]: p["value"] for p in fake.requests[0]["body"]["workflow"]["spec"]["arguments"]["parameters"]}
    assert params["epochs"] == "7"


def test_templates_apply_creates_then_updates(argo, monkeypatch):
    fake, url = argo
    first = aipipe("templates", "apply", "--server", url)
    assert first.returncode == 0, first.stderr
    assert sorted(name for _, name in fake.stored) == sorted(
        f"aipipe-{s}-v1" for s in ("export-annotations", "train", "evaluate", "convert-trt", "deploy"))
    dry_runs = [r for r in fake.requests if (r["body"] or {}).get("createOptions") == {"dryRun": ["All"]}]
    assert len(dry_runs) == 5 and fake.requests.index(dry_runs[-1]) < fake.requests.index(fake.writes()[0])
    assert first.stdout.count("created") == 5
    fake.requests.clear()
    second = aipipe("templates", "apply", "--server", url)
    assert second.returncode == 0, second.stderr
    assert second.stdout.count("unchanged") == 5 and fake.writes() == []  # nothing changed: nothing written
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:8081")  # a value the templates carry
    third = aipipe("templates", "apply", "--server", url)
    assert third.returncode == 0, third.stderr
    assert third.stdout.count("updated") == 5
    assert [r["method"] for r in fake.writes()] == ["PUT"] * 5


def test_templates_apply_dry_run_writes_nothing(argo):
    fake, url = argo
    run = aipipe("templates", "apply", "--server", url, "--dry-run")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("would create") == 5
    assert fake.writes() == [] and fake.stored == {}


def test_templates_apply_writes_nothing_when_the_last_item_is_rejected_by_the_server(argo):
    fake, url = argo
    fake.reject["aipipe-deploy-v1"] = "templates.deploy.container.image: invalid image"
    run = aipipe("templates", "apply", "--server", url)
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert "dry-run WorkflowTemplate aipipe-deploy-v1: templates.deploy.container.image: invalid image" in line
    assert fake.writes() == [] and fake.stored == {}
    assert len(fake.requests) == 5  # four dry-runs passed, the fifth failed


def test_templates_apply_writes_nothing_when_the_last_item_fails_lint(argo, tmp_path):
    fake, url = argo
    compiled = aipipe("compile", str(PIPELINE), "--out-dir", str(tmp_path))
    assert compiled.returncode == 0, compiled.stderr
    files = sorted(tmp_path.glob("workflowtemplate-*.yaml"))
    last = yaml.safe_load(files[-1].read_text())
    last["spec"]["templates"][0]["container"]["args"].append("{{inputs.parameters.not-declared}}")
    files[-1].write_text(yaml.safe_dump(last))
    run = aipipe("templates", "apply", *map(str, files), "--server", url)
    assert run.returncode == 2
    assert "undefined input parameter 'not-declared'" in run.stderr
    assert "1 lint error(s); nothing was sent to the server" in run.stderr
    assert fake.requests == []


def test_cron_apply(argo):
    fake, url = argo
    run = aipipe("cron", "apply", "--server", url)
    assert run.returncode == 0, run.stderr
    (cron,) = [obj for (collection, _), obj in fake.stored.items() if collection == "cron-workflows"]
    assert cron["metadata"]["name"] == "aipipe-retrain-nightly" and cron["spec"]["schedules"] == ["0 2 * * *"]


def test_client_maps_http_errors(argo):
    fake, url = argo
    client = ArgoClient(url, "argo", TOKEN)
    with pytest.raises(ConflictError):
        fake.stored[("workflows", "dup")] = {"metadata": {"name": "dup"}}
        client.create_workflow({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                                "metadata": {"name": "dup"}, "spec": {"entrypoint": "x"}})
    for status, error in ((401, AuthError), (400, UserError), (422, UserError), (503, ServiceUnavailable)):
        fake.force_status = status
        with pytest.raises(error) as info:
            client.get_workflow("dup")
        assert f"forced {status}" in str(info.value)
    with pytest.raises(UserError, match=r"argo\.server: must start with http"):
        ArgoClient("127.0.0.1:2746", "argo")


def test_submit_and_wait_against_the_engine_server(tmp_path):
    from tests.server.conftest import start_server

    srv = start_server(tmp_path / "home", token=TOKEN)
    try:
        def manifest(name: str, script: str) -> Path:
            path = tmp_path / f"{name}.yaml"
            path.write_text(yaml.safe_dump({
                "apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": f"{name}-"},
                "spec": {"entrypoint": "main", "arguments": {"parameters": [{"name": "code", "value": "0"}]},
                         "templates": [{"name": "main", "inputs": {"parameters": [{"name": "code"}]},
                                        "container": {"image": "busybox", "command": ["sh", "-c"],
                                                      "args": [script]}}]}}))
            return path

        ok = aipipe("submit", str(manifest("hello", "echo hi; exit {{inputs.parameters.code}}")), "--server",
                    srv.url, "--wait")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert f"{srv.url}/workflows/argo/hello-" in ok.stdout and "Succeeded" in ok.stdout
        failed = aipipe("submit", str(manifest("boom", "exit {{inputs.parameters.code}}")), "-p", "code=3",
                        "--server", srv.url, "--wait")
        assert failed.returncode == 1 and "Failed" in failed.stdout
        refused = aipipe("submit", str(manifest("hello", "true")), "--server", srv.url, token="wrong")
        assert refused.returncode == 2 and "HTTP 401" in refused.stderr
    finally:
        srv.stop()
