"""Attacks on a real ``aipipe server`` (issue 11), over real HTTP: each is refused with the right status
and message, and nothing is created or deleted outside the server's home."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import requests

from aipipe.engine.store import RunStore
from aipipe.errors import UserError
from aipipe.server.token import load_or_create_token, read_token
from aipipe.services.process import free_port, process_alive
from tests.server.conftest import REPO_ROOT, ServerProcess, start_server

NS = "argo"
EVIL = "http://evil.example"
SPEC: dict[str, Any] = {"entrypoint": "main",
                        "templates": [{"name": "main", "container": {"image": "x", "command": ["true"]}}]}
BAD_NAMES = ["../../../../escape-test", "/some/dir", "Upper-Case", "a" * 300, "has/slash", "x/../../y"]
BAD_NAMESPACES = ["../x", "Bad NS", "..", "UPPER"]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("attacks")
    (root / "victim").mkdir()
    (root / "victim" / "keep.txt").write_text("keep")
    return root


@pytest.fixture(scope="module")
def srv(base: Path) -> Iterator[ServerProcess]:
    server = start_server(base / "home")
    yield server
    server.stop()


def _outside(base: Path) -> set[str]:
    """Every path under ``base`` outside the server's home."""
    return {str(p) for p in base.rglob("*") if not p.is_relative_to(base / "home")}


def _refused(resp: requests.Response, status: int, code: int, *words: str) -> str:
    assert resp.status_code == status, (resp.status_code, resp.text)
    body = resp.json()
    assert body["code"] == code, body
    for word in words:
        assert word in body["message"], body["message"]
    return body["message"]


def _segment(text: str) -> str:
    """``text`` as one URL path segment, dots too (so no client folds ``..`` away before the server sees it)."""
    return quote(text, safe="").replace(".", "%2E")


def _workflows(srv: ServerProcess) -> list[dict]:
    return srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", timeout=30).json()["items"]


# -- authentication, origin, host ---------------------------------------------------------------
def test_token_file_is_private_and_the_link_goes_to_the_terminal_only(srv: ServerProcess) -> None:
    path = srv.home / "server.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == srv.token and len(srv.token or "") >= 40
    terminal = (srv.home / "server.out").read_text()
    assert terminal.count(f"/login?token={srv.token}") == 1
    srv.http.get(f"{srv.url}/login", params={"token": srv.token}, timeout=30)
    assert srv.token not in (srv.home / "server.log").read_text()  # the log never carries it


def test_unauthenticated_and_wrong_token_requests_are_refused(srv: ServerProcess) -> None:
    url = f"{srv.url}/api/v1/workflows/{NS}"
    body: dict[str, Any] = {"workflow": {"metadata": {"name": "no-token"}, "spec": SPEC}}
    _refused(requests.post(url, json=body, timeout=30), 401, 16, "token not valid")
    _refused(requests.post(url, json=body, headers={"Authorization": "Bearer wrong"}, timeout=30), 401, 16)
    _refused(requests.get(url, timeout=30), 401, 16)
    _refused(requests.get(f"{srv.url}/api/v1/workflow-events/{NS}", timeout=30), 401, 16)
    _refused(requests.get(f"{srv.url}/api/v1/workflows/{NS}/x/log", timeout=30), 401, 16)
    page = requests.get(f"{srv.url}/", allow_redirects=False, timeout=30)
    assert page.status_code == 302 and page.headers["Location"] == "/login"
    assert "no-token" not in [w["metadata"]["name"] for w in _workflows(srv)]


def test_cross_site_text_plain_post_is_refused(srv: ServerProcess) -> None:
    """What a web page can send with no preflight: text/plain, a foreign Origin (with or without the token)."""
    url = f"{srv.url}/api/v1/workflows/{NS}"
    raw = json.dumps({"workflow": {"metadata": {"name": "cross-site"}, "spec": SPEC}})
    for headers in ({}, srv.headers()):
        resp = requests.post(url, data=raw, headers={**headers, "Content-Type": "text/plain", "Origin": EVIL},
                             timeout=30)
        _refused(resp, 403, 7, "cross-origin", EVIL)
    other = f"http://localhost:{srv.url.rsplit(':', 1)[1]}"  # same machine, another origin than 127.0.0.1
    _refused(requests.post(url, data=raw, headers={**srv.headers(), "Content-Type": "application/json",
                                                   "Origin": other}, timeout=30), 403, 7)
    _refused(srv.http.post(url, data=raw, headers={"Content-Type": "text/plain"}, timeout=30), 415, 3,
             "application/json")
    _refused(srv.http.post(url, data={"workflow": raw}, timeout=30), 415, 3)  # a form post
    assert "cross-site" not in [w["metadata"]["name"] for w in _workflows(srv)]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:2746", "127.0.0.1.nip.io", "10.0.0.1", "[::2]",
                                  "127.0.0.1:1@evil.example"])
def test_dns_rebinding_host_is_refused(srv: ServerProcess, host: str) -> None:
    resp = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", headers={"Host": host}, timeout=30)
    _refused(resp, 403, 7, "not a loopback address")


def test_login_sets_an_httponly_strict_cookie_that_works_for_reads(srv: ServerProcess) -> None:
    wrong = requests.get(f"{srv.url}/login", params={"token": "nope"}, allow_redirects=False, timeout=30)
    assert wrong.status_code == 401 and "Set-Cookie" not in wrong.headers
    form = requests.get(f"{srv.url}/login", timeout=30)
    assert form.status_code == 200 and '<form method="post"' in form.text
    login = requests.get(f"{srv.url}/login", params={"token": srv.token}, allow_redirects=False, timeout=30)
    assert login.status_code == 302 and login.headers["Location"] == "/"
    cookie = login.headers["Set-Cookie"]
    assert cookie.startswith("authorization=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    browser = requests.Session()
    browser.cookies.update(login.cookies)
    assert browser.get(f"{srv.url}/api/v1/workflows/{NS}", timeout=30).status_code == 200
    assert 'id="runs"' in browser.get(f"{srv.url}/", timeout=30).text
    posted = browser.post(f"{srv.url}/login", data={"token": srv.token}, allow_redirects=False, timeout=30)
    assert posted.status_code == 302 and "authorization=" in posted.headers["Set-Cookie"]


def test_cookie_needs_a_same_origin_origin_or_referer_to_change_state(srv: ServerProcess) -> None:
    browser = requests.Session()
    browser.get(f"{srv.url}/login", params={"token": srv.token}, timeout=30)
    url = f"{srv.url}/api/v1/workflows/{NS}"
    body: dict[str, Any] = {"workflow": {"metadata": {"name": "csrf"}, "spec": SPEC}, "serverDryRun": True}
    _refused(browser.post(url, json=body, timeout=30), 403, 7, "cookie")
    _refused(browser.post(url, json=body, headers={"Referer": f"{EVIL}/page"}, timeout=30), 403, 7)
    _refused(browser.post(url, json=body, headers={"Origin": EVIL}, timeout=30), 403, 7)
    assert browser.post(url, json=body, headers={"Origin": srv.url}, timeout=30).status_code == 200
    assert browser.post(url, json=body, headers={"Referer": f"{srv.url}/"}, timeout=30).status_code == 200
    assert "csrf" not in [w["metadata"]["name"] for w in _workflows(srv)]  # dry runs only


# -- names and the filesystem ----------------------------------------------------------------------
def test_bad_names_and_namespaces_are_refused_and_touch_nothing(srv: ServerProcess, base: Path) -> None:
    before = _outside(base)
    victim = str(base / "victim")
    for name in [*BAD_NAMES, victim]:
        resp = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}",
                             json={"workflow": {"metadata": {"name": name}, "spec": SPEC}}, timeout=30)
        problem = "must be no more than 253 characters" if len(name) > 253 else "RFC 1123 subdomain"
        _refused(resp, 400, 3, f'Workflow.argoproj.io "{name}" is invalid: metadata.name: Invalid value', problem)
        for method in ("get", "delete"):
            path = f"{srv.url}/api/v1/workflows/{NS}/{_segment(name)}"
            _refused(getattr(srv.http, method)(path, timeout=30), 400, 3, "metadata.name: Invalid value")
        _refused(srv.http.put(f"{srv.url}/api/v1/workflows/{NS}/{_segment(name)}/stop", json={}, timeout=30),
                 400, 3)
    _refused(srv.http.post(f"{srv.url}/api/v1/workflows/{NS}",
                           json={"workflow": {"metadata": {"generateName": "../x-"}, "spec": SPEC}}, timeout=30),
             400, 3, "metadata.generateName: Invalid value")
    _refused(srv.http.post(f"{srv.url}/api/v1/workflows/{NS}",
                           json={"workflow": {"metadata": {"name": "ok", "namespace": "other"}, "spec": SPEC}},
                           timeout=30), 400, 3, "does not match the namespace")
    for namespace in BAD_NAMESPACES:
        resp = srv.http.post(f"{srv.url}/api/v1/workflows/{_segment(namespace)}",
                             json={"workflow": {"metadata": {"name": "fine"}, "spec": SPEC}}, timeout=30)
        _refused(resp, 400, 3, f'namespace "{namespace}" is invalid', "RFC 1123 label")
        _refused(srv.http.get(f"{srv.url}/api/v1/workflow-templates/{_segment(namespace)}", timeout=30),
                 400, 3, f'namespace "{namespace}" is invalid')
    template: dict[str, Any] = {"metadata": {"name": "../../escape-test"}, "spec": SPEC}
    _refused(srv.http.post(f"{srv.url}/api/v1/workflow-templates/{NS}", json={"template": template}, timeout=30),
             400, 3, 'WorkflowTemplate.argoproj.io "../../escape-test" is invalid')
    _refused(srv.http.post(f"{srv.url}/api/v1/cluster-workflow-templates", json={"template": template},
                           timeout=30), 400, 3, "ClusterWorkflowTemplate.argoproj.io")
    cron: dict[str, Any] = {"metadata": {"name": "Nightly"}, "spec": {"schedules": ["0 3 * * *"], "workflowSpec": SPEC}}
    _refused(srv.http.post(f"{srv.url}/api/v1/cron-workflows/{NS}", json={"cronWorkflow": cron}, timeout=30),
             400, 3, 'CronWorkflow.argoproj.io "Nightly" is invalid')
    _refused(srv.http.post(f"{srv.url}/api/v1/workflows/{NS}/submit",
                           json={"resourceKind": "WorkflowTemplate", "resourceName": "../x"}, timeout=30), 400, 3,
             "resourceName: Invalid value")
    assert _workflows(srv) == [] or all("escape" not in w["metadata"]["name"] for w in _workflows(srv))
    assert _outside(base) == before
    assert (base / "victim" / "keep.txt").read_text() == "keep"
    for folder in [srv.home, *srv.home.parents]:
        assert not (folder / "escape-test").exists(), folder
    assert not Path("/some/dir").exists()


def test_cli_refuses_a_bad_namespace_and_needs_the_token(srv: ServerProcess, tmp_path: Path) -> None:
    manifest = tmp_path / "hello.yaml"
    manifest.write_text(json.dumps({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
                                    "metadata": {"name": "from-cli"}, "spec": SPEC}))
    env = {k: v for k, v in os.environ.items() if k not in ("ARGO_TOKEN", "AIPIPE_SERVER_TOKEN")}
    env.update(PYTHONPATH=str(REPO_ROOT), AIPIPE_HOME=str(tmp_path / "other-home"))  # no token file there

    def submit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "aipipe.cli.main", "submit", str(manifest), "--server", srv.url,
                               *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)

    bad = submit("--namespace", "../x")
    assert bad.returncode == 2 and 'namespace "../x" is invalid: --namespace' in bad.stderr, bad.stderr
    refused = submit()
    assert refused.returncode == 2 and "HTTP 401" in refused.stderr and "server.token" in refused.stderr
    assert "Traceback" not in bad.stderr + refused.stderr
    assert "from-cli" not in [w["metadata"]["name"] for w in _workflows(srv)]
    for args in (["get", "../../escape-test"], ["stop", "/some/dir"], ["run", "--resume", "Bad"]):
        run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", *args], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and f'"{args[-1]}" is invalid: NAME' in run.stderr, run.stderr


# -- bounds --------------------------------------------------------------------------------------
def test_bodies_beyond_the_bounds_are_4xx_not_500(srv: ServerProcess) -> None:
    url = f"{srv.url}/api/v1/workflows/{NS}"
    json_type = {"Content-Type": "application/json"}
    started = time.monotonic()
    huge = b'{"workflow": {"metadata": {"name": "big"}, "x": "' + b"a" * (5 * 2**20) + b'"}}'
    _refused(srv.http.post(url, data=huge, headers=json_type, timeout=30), 413, 8)
    deep = b'{"workflow": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    _refused(srv.http.post(url, data=deep, headers=json_type, timeout=30), 400, 3, "nested 200001 levels deep")
    just_over = b'{"workflow": {"metadata": ' + b"[" * 100 + b"]" * 100 + b"}}"
    _refused(srv.http.post(url, data=just_over, headers=json_type, timeout=30), 400, 3, "at most 100")
    _refused(srv.http.post(url, data=b'{"workflow": {"metadata": {"name": "\xff\xfe"}}}', headers=json_type,
                           timeout=30), 400, 3, "not valid UTF-8")
    _refused(srv.http.post(url, data=b'{"workflow": {"x": ' + b"9" * 5000 + b"}}", headers=json_type, timeout=30),
             400, 3, "not valid JSON")
    _refused(srv.http.post(url, data=b'{"workflow": [}', headers=json_type, timeout=30), 400, 3, "not valid JSON")
    assert time.monotonic() - started < 20
    assert srv.http.get(f"{srv.url}/api/v1/version", timeout=30).ok  # still serving


@pytest.mark.parametrize(("path", "param", "value"), [
    ("workflows/argo", "listOptions.limit", "ten"),
    ("workflows/argo", "listOptions.limit", "-1"),
    ("workflows/argo", "listOptions.limit", "1e3"),
    ("workflow-events/argo", "listOptions.timeoutSeconds", "soon"),
    ("workflow-events/argo", "listOptions.timeoutSeconds", "1.5"),
    ("workflow-events/argo", "listOptions.resourceVersion", "latest"),
    ("workflow-events/argo", "listOptions.fieldSelector", "metadata.name"),
    ("workflows/argo", "listOptions.fieldSelector", "nonsense"),
])
def test_malformed_query_parameters_are_400_naming_the_field(srv: ServerProcess, path: str, param: str,
                                                             value: str) -> None:
    resp = srv.http.get(f"{srv.url}/api/v1/{path}", params={param: value}, timeout=30)
    _refused(resp, 400, 3, param)


def test_malformed_log_options_are_400(srv: ServerProcess) -> None:
    created = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}",
                            json={"workflow": {"metadata": {"name": "logged"}, "spec": SPEC}}, timeout=30)
    assert created.ok, created.text
    resp = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/logged/log", params={"logOptions.follow": "maybe"},
                        timeout=30)
    _refused(resp, 400, 3, "logOptions.follow")


def test_a_client_that_goes_away_mid_stream_leaves_no_traceback(srv: ServerProcess) -> None:
    port = int(srv.url.rsplit(":", 1)[1])
    slow = {**SPEC, "templates": [{"name": "main", "container": {"image": "x", "command": [
        "sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; sleep 0.2; done"]}}]}
    assert srv.http.post(f"{srv.url}/api/v1/workflows/{NS}", timeout=30,
                         json={"workflow": {"metadata": {"name": "streamed"}, "spec": slow}}).ok
    for path in (f"/api/v1/workflow-events/{NS}", f"/api/v1/workflows/{NS}/streamed/log?logOptions.follow=true"):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {srv.token}\r\n"
                         "\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # hangs up halfway through a body
        sock.sendall(f"POST /api/v1/workflows/{NS} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer "
                     f"{srv.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                     '{"workflow": '.encode())
        time.sleep(0.2)
    create = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}",
                           json={"workflow": {"metadata": {"name": "after-disconnect"}, "spec": SPEC}}, timeout=30)
    assert create.ok, create.text  # a change, so the abandoned watch tries to write
    time.sleep(1.5)
    log = (srv.home / "server.log").read_text()
    assert "Traceback" not in log and "Error handling request" not in log, log[-3000:]


# -- auth mode, a bad token file -----------------------------------------------------------------
def _server_cli(home: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARGO_TOKEN", "AIPIPE_SERVER_TOKEN")}
    env.update(AIPIPE_HOME=str(home), PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "aipipe.cli.main", "server", *args], env=env, cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_a_token_file_open_to_others_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "server.token").write_text("readable-by-all\n")
    (home / "server.token").chmod(0o644)
    run = _server_cli(home, "--port", str(free_port()))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "open to other users (mode 0644)" in run.stderr and "chmod 600" in run.stderr
    assert "Traceback" not in run.stderr


def test_token_file_creation_is_atomic_and_a_symlink_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    made: list[tuple[str, bool]] = []
    threads = [threading.Thread(target=lambda: made.append(load_or_create_token(home))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({token for token, _ in made}) == 1 and sum(created for _, created in made) == 1
    assert os.listdir(home) == ["server.token"]  # no temporary file left behind
    assert stat.S_IMODE((home / "server.token").stat().st_mode) == 0o600
    other = tmp_path / "other"
    other.mkdir()
    (other / "server.token").symlink_to(home / "server.token")
    with pytest.raises(UserError, match="symlink"):
        read_token(other)


def test_auth_mode_server_is_explicit_and_warns_on_every_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    log = home / "server.log"
    for _ in range(2):
        warned = log.read_text().count("authentication is OFF") if log.exists() else 0
        server = start_server(home, extra=("--auth-mode=server",))
        try:
            assert log.read_text().count("authentication is OFF") > warned
            assert requests.get(f"{server.url}/api/v1/workflows/{NS}", timeout=30).status_code == 200
            raw = json.dumps({"workflow": {"metadata": {"name": "x"}, "spec": SPEC}})
            _refused(requests.post(f"{server.url}/api/v1/workflows/{NS}", data=raw,
                                   headers={"Content-Type": "text/plain", "Origin": EVIL}, timeout=30), 403, 7)
            _refused(requests.get(f"{server.url}/api/v1/workflows/{NS}", headers={"Host": "evil.example"},
                                  timeout=30), 403, 7)
        finally:
            server.stop()
    assert not (home / "server.token").exists()
    bad = _server_cli(home, "--auth-mode=none", "--port", str(free_port()))
    assert bad.returncode == 2 and "--auth-mode" in bad.stderr


# -- graceful stop -------------------------------------------------------------------------------
def test_sigterm_leaves_runs_resumable_and_a_restart_finishes_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = start_server(home)
    mount = {"name": "marks", "mountPath": "/marks"}
    script = "echo $$$$ >> /marks/{0}; while [ ! -e /marks/release ]; do sleep 0.1; done"
    spec: dict[str, Any] = {
        "entrypoint": "main", "volumes": [{"name": "marks", "persistentVolumeClaim": {"claimName": "marks"}}],
        "templates": [
            {"name": "main", "steps": [[{"name": "a", "template": "a"}], [{"name": "b", "template": "b"}]]},
            {"name": "a", "container": {"image": "x", "command": ["sh", "-c", "echo run >> /marks/a"],
                                        "volumeMounts": [mount]}},
            {"name": "b",  # no retryStrategy: an interrupted node re-runs on resume as the same attempt
             "container": {"image": "x", "command": ["sh", "-c", script.format("b")], "volumeMounts": [mount]}}]}
    try:  # a failure before the stop below must not leave the server and its node running
        created = first.http.post(f"{first.url}/api/v1/workflows/{NS}",
                                  json={"workflow": {"metadata": {"name": "graceful"}, "spec": spec}}, timeout=30)
        assert created.ok, created.text
        marks = home / "runs" / created.json()["metadata"]["uid"] / "volumes" / "marks"
        deadline = time.monotonic() + 60
        while not (marks / "b").is_file() or not (marks / "b").read_text().strip():
            assert time.monotonic() < deadline, (home / "server.log").read_text()[-3000:]
            time.sleep(0.1)
        node_pid = int((marks / "b").read_text().split()[0])
    except BaseException:
        first.stop()
        raise
    assert first.stop(signal.SIGTERM) == 0
    assert not process_alive(node_pid)
    store = RunStore.from_home(home)
    stored = store.get_workflow(NS, "graceful")
    assert stored["status"]["phase"] == "Running" and not stored["status"].get("message")
    assert "terminated by user" not in json.dumps(stored)
    second = start_server(home)
    try:
        deadline = time.monotonic() + 60
        while len((marks / "b").read_text().split()) < 2:
            assert time.monotonic() < deadline, (home / "server.log").read_text()[-3000:]
            time.sleep(0.1)
        (marks / "release").write_text("")
        while (phase := second.http.get(f"{second.url}/api/v1/workflows/{NS}/graceful", timeout=30).json()[
                "status"]["phase"]) not in ("Succeeded", "Failed", "Error"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert phase == "Succeeded"
        assert (marks / "a").read_text() == "run\n"  # the finished step was kept, not re-run
        assert "continuing runs whose driver had stopped: graceful" in (home / "server.log").read_text()
    finally:
        second.stop()
