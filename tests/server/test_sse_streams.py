"""The watch and log streams of a real ``aipipe server``: Server-Sent Events for ``Accept: text/event-stream``
(browsers, Argo's CLI), newline-delimited JSON for everyone else (the official SDK, Hera), headers at once,
keep-alive comments, and a client that goes away ending its stream without a traceback in the log."""

from __future__ import annotations

import json
import shutil
import socket
import time
from collections.abc import Iterator
from typing import Any

import argo_workflows
import pytest
import requests
from argo_workflows.api import workflow_service_api
from hera.workflows import WorkflowsService

from aipipe.server.sse import KEEPALIVE_SECONDS
from tests.server.conftest import ServerProcess

NS = "argo"
SSE = {"Accept": "text/event-stream"}
DONE = ("Succeeded", "Failed", "Error")


def _submit(server: ServerProcess, script: str, generate_name: str = "sse-") -> str:
    body = {"workflow": {"metadata": {"generateName": generate_name}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", script]}}]}}}
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json=body, timeout=30)
    assert created.ok, created.text
    return created.json()["metadata"]["name"]


def _wait(server: ServerProcess, name: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        obj = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()
        if obj.get("status", {}).get("phase") in DONE:
            return obj
        time.sleep(0.2)
    raise AssertionError(f"{name} did not finish")


def sse_messages(resp: requests.Response) -> Iterator[dict[str, Any] | str]:
    """Parse an event stream as a browser does: ``data:`` lines up to a blank line make one message;
    a ``:`` comment line is yielded as the string ``":"``."""
    data: list[str] = []
    for raw in resp.iter_lines(chunk_size=1, decode_unicode=True):
        if raw.startswith(":"):
            yield ":"
        elif raw.startswith("data:"):
            data.append(raw[5:].lstrip(" "))
        elif raw == "" and data:
            yield json.loads("\n".join(data))
            data = []


def assert_no_nulls(value: Any, where: str = "") -> None:
    """Fail naming the first JSON null found in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert item is not None, f"null at {where}.{key}"
            assert_no_nulls(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            assert_no_nulls(item, f"{where}[{i}]")


def test_watch_is_server_sent_events(server: ServerProcess) -> None:
    name = _submit(server, "echo one; sleep 1; echo two")
    params = {"listOptions.fieldSelector": f"metadata.name={name}"}
    events = []
    with server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params=params, headers=SSE, stream=True,
                         timeout=60) as resp:
        assert resp.status_code == 200
        assert resp.headers["Content-Type"] == "text/event-stream"
        assert resp.headers["Cache-Control"] == "no-cache"
        assert resp.headers["X-Accel-Buffering"] == "no"
        for message in sse_messages(resp):
            if message == ":":
                continue
            assert isinstance(message, dict) and set(message) == {"result"}
            events.append(message["result"])
            if message["result"]["object"]["status"].get("phase") in DONE:
                break
    assert events[0]["type"] == "ADDED" and all(e["type"] == "MODIFIED" for e in events[1:])
    assert events[-1]["object"]["status"]["phase"] == "Succeeded"
    for event in events:
        assert_no_nulls(event)
        assert event["object"]["spec"]["arguments"] == {}


def test_watch_is_json_lines_for_other_clients(server: ServerProcess) -> None:
    name = _submit(server, "echo hello")
    _wait(server, name)
    params = {"listOptions.fieldSelector": f"metadata.name={name}", "listOptions.timeoutSeconds": "1"}
    for accept in ("application/json", "*/*"):
        resp = server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params=params,
                               headers={"Accept": accept}, timeout=30)
        assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
        lines = resp.text.splitlines()
        assert len(lines) == 1, resp.text
        event = json.loads(lines[0])["result"]
        assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == name
        assert not resp.text.startswith("data:")


def test_watch_of_every_namespace(server: ServerProcess) -> None:
    here = _submit(server, "true", "here-")
    body = {"workflow": {"metadata": {"generateName": "there-"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "alpine", "command": ["true"]}}]}}}
    there = server.http.post(f"{server.url}/api/v1/workflows/team-b", json=body, timeout=30).json()
    _wait(server, here)
    params = {"listOptions.timeoutSeconds": "1"}
    resp = server.http.get(f"{server.url}/api/v1/workflow-events/", params=params, headers=SSE, timeout=30)
    assert resp.headers["Content-Type"] == "text/event-stream"
    seen = {(m["result"]["object"]["metadata"]["namespace"], m["result"]["object"]["metadata"]["name"])
            for m in sse_messages(resp) if isinstance(m, dict)}
    assert {(NS, here), ("team-b", there["metadata"]["name"])} <= seen
    one = server.http.get(f"{server.url}/api/v1/workflow-events/team-b", params=params, headers=SSE, timeout=30)
    assert {m["result"]["object"]["metadata"]["namespace"] for m in sse_messages(one) if isinstance(m, dict)} \
        == {"team-b"}


def test_hera_reads_the_log_route_as_json(server: ServerProcess) -> None:
    """Hera's ``workflow_logs`` sends ``Accept: */*`` and parses the answer as one JSON document: it must not
    get event-stream framing (a one-line log is one ``{"result": …}`` object, as from Argo's server)."""
    name = _submit(server, "echo just one")
    _wait(server, name)
    service = WorkflowsService(host=server.url, namespace=NS, token=server.token)
    service.workflow_logs(name, container="main")  # raises if the body is not one JSON document
    raw = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/log", timeout=30)
    assert json.loads(raw.text) == {"result": {"content": "just one", "podName": name}}


def test_watch_fields_projection_as_the_ui_asks(server: ServerProcess) -> None:
    """The Argo UI's list page watches with ``fields=result.object.metadata.name,…``: only those come back
    (plus what Argo's Go struct always carries: ``spec.arguments``)."""
    name = _submit(server, "echo projected")
    _wait(server, name)
    fields = ("result.object.metadata.name,result.object.metadata.namespace,result.object.status.phase,"
              "result.object.status.progress,result.type")
    params = {"listOptions.fieldSelector": f"metadata.name={name}", "listOptions.timeoutSeconds": "1",
              "fields": fields}
    resp = server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params=params, headers=SSE, timeout=30)
    [message] = [m for m in sse_messages(resp) if isinstance(m, dict)]
    assert message == {"result": {"type": "ADDED", "object": {
        "metadata": {"name": name, "namespace": NS}, "spec": {"arguments": {}},
        "status": {"phase": "Succeeded", "progress": "1/1"}}}}
    whole = server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params={**params, "fields": ""},
                            headers=SSE, timeout=30)
    [full] = [m for m in sse_messages(whole) if isinstance(m, dict)]
    assert full["result"]["object"]["status"]["artifactRepositoryRef"]["default"] is True
    listed = server.http.get(f"{server.url}/api/v1/workflows/{NS}", timeout=30,
                             params={"fields": "items.metadata.name,items.status.phase"}).json()
    item = next(i for i in listed["items"] if i["metadata"]["name"] == name)
    assert item == {"metadata": {"name": name}, "spec": {"arguments": {}}, "status": {"phase": "Succeeded"}}


def test_sdk_reads_the_json_streams_typed(server: ServerProcess) -> None:
    """The official SDK (Accept: application/json) reads one watch event and one log line, typed."""
    name = _submit(server, "echo only line")
    _wait(server, name)
    config = argo_workflows.Configuration(host=server.url)
    config.api_key["BearerToken"] = server.token
    config.api_key_prefix["BearerToken"] = "Bearer"
    with argo_workflows.ApiClient(config) as client:
        api = workflow_service_api.WorkflowServiceApi(client)
        watched = api.watch_workflows(NS, list_options_field_selector=f"metadata.name={name}",
                                      list_options_timeout_seconds="1")
        assert watched.result.type == "ADDED"
        assert watched.result.object.metadata.name == name
        assert watched.result.object.status.phase == "Succeeded"
        logs = api.workflow_logs(NS, name, log_options_container="main")
        assert logs.result.content == "only line"
        assert logs.result.pod_name == name


def test_log_stream_is_server_sent_events(server: ServerProcess) -> None:
    name = _submit(server, "for i in 1 2 3; do echo line $i; sleep 0.3; done")
    with server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/log", headers=SSE, stream=True, timeout=60,
                         params={"logOptions.container": "main", "logOptions.follow": "true"}) as resp:
        assert resp.headers["Content-Type"] == "text/event-stream"
        messages = [m for m in sse_messages(resp) if m != ":"]
    assert [m["result"]["content"] for m in messages if isinstance(m, dict)] == ["line 1", "line 2", "line 3"]
    with server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/{name}/log", headers=SSE, stream=True,
                         timeout=60, params={"logOptions.container": "main"}) as resp:
        assert [m["result"]["podName"] for m in sse_messages(resp) if isinstance(m, dict)] == [name] * 3


def test_run_deleted_while_following_ends_with_an_error_frame(server: ServerProcess) -> None:
    name = _submit(server, "for i in $(seq 1 100); do echo tick $i; sleep 0.1; done", "deleted-")
    messages: list[dict[str, Any]] = []
    with server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}/log", headers=SSE, stream=True, timeout=60,
                         params={"logOptions.follow": "true"}) as resp:
        for message in sse_messages(resp):
            if isinstance(message, dict):
                messages.append(message)
                if len(messages) == 1:
                    assert server.http.delete(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).ok
    assert messages[0]["result"]["content"] == "tick 1"
    assert messages[-1] == {"error": {"grpc_code": 5, "http_code": 404, "http_status": "Not Found",
                                      "message": f'workflows.argoproj.io "{name}" not found'}}


def test_headers_at_once_then_keepalive_comments(server: ServerProcess) -> None:
    """A watch with nothing to send answers its headers at once and keeps the connection with ``:`` comments."""
    params = {"listOptions.fieldSelector": "metadata.name=nothing-here"}
    started = time.monotonic()
    with server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params=params, headers=SSE, stream=True,
                         timeout=KEEPALIVE_SECONDS + 20) as resp:
        assert time.monotonic() - started < 5, "headers were held back"
        assert resp.headers["Content-Type"] == "text/event-stream"
        first = next(sse_messages(resp))
        waited = time.monotonic() - started
    assert first == ":"
    assert KEEPALIVE_SECONDS - 1 <= waited <= KEEPALIVE_SECONDS + 10


def test_no_keepalive_comments_in_json_lines(server: ServerProcess) -> None:
    params = {"listOptions.fieldSelector": "metadata.name=nothing-here",
              "listOptions.timeoutSeconds": str(int(KEEPALIVE_SECONDS) + 2)}
    resp = server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", params=params,
                           headers={"Accept": "application/json"}, timeout=KEEPALIVE_SECONDS + 30)
    assert resp.status_code == 200 and resp.text == ""


def test_bad_selector_is_a_400_before_the_stream(server: ServerProcess) -> None:
    resp = server.http.get(f"{server.url}/api/v1/workflow-events/{NS}", headers=SSE, timeout=30,
                           params={"listOptions.fieldSelector": "no-equals-sign"})
    assert resp.status_code == 400
    assert "listOptions.fieldSelector" in resp.json()["message"]


def _raw_get(server: ServerProcess, path: str, accept: str) -> socket.socket:
    """A GET sent on a plain socket (so the test can drop the connection mid-stream)."""
    port = int(server.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: {accept}\r\n"
                 f"Authorization: Bearer {server.token}\r\n\r\n".encode())
    return sock


@pytest.mark.parametrize("accept", ["text/event-stream", "application/json"])
def test_client_going_away_ends_the_stream_quietly(server: ServerProcess, accept: str) -> None:
    name = _submit(server, "for i in $(seq 1 30); do echo line $i; sleep 0.1; done", "gone-")
    socks = [_raw_get(server, f"/api/v1/workflows/{NS}/{name}/log?logOptions.follow=true", accept),
             _raw_get(server, f"/api/v1/workflow-events/{NS}", accept)]
    for sock in socks:
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close
        sock.close()
    _wait(server, name)
    time.sleep(2 * KEEPALIVE_SECONDS / 10 + 1)
    assert server.http.get(f"{server.url}/api/v1/version", timeout=10).ok
    log = (server.home / "server.log").read_text()
    assert "GET /api/v1/workflow-events/argo 200" in log  # the watch ended and was logged
    assert "Traceback" not in log, log


CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
EVENT_SOURCE_JS = """
const done = arguments[arguments.length - 1];
const source = new EventSource(arguments[0]);
const got = [], want = arguments[1];
source.onmessage = e => { got.push(JSON.parse(e.data)); if (got.length >= want) { source.close(); done({got}); } };
source.onerror = () => { source.close(); done({got, error: true}); };
"""


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip("needs Debian's chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def test_browser_event_source_reads_the_streams_with_the_cookie(server: ServerProcess, browser: Any) -> None:
    name = _submit(server, "echo first; echo second")
    _wait(server, name)
    browser.get(f"{server.url}/login?token={server.token}")  # sets the authorization cookie
    watch = browser.execute_async_script(
        EVENT_SOURCE_JS, f"/api/v1/workflow-events/{NS}?listOptions.fieldSelector=metadata.name={name}", 1)
    assert "error" not in watch
    event = watch["got"][0]["result"]
    assert event["type"] == "ADDED" and event["object"]["status"]["phase"] == "Succeeded"
    logs = browser.execute_async_script(EVENT_SOURCE_JS, f"/api/v1/workflows/{NS}/{name}/log", 99)
    assert [m["result"]["content"] for m in logs["got"]] == ["first", "second"]
    browser.delete_all_cookies()
    refused = browser.execute_async_script(EVENT_SOURCE_JS, f"/api/v1/workflow-events/{NS}", 1)
    assert refused == {"got": [], "error": True}
