"""``http`` templates against a real HTTP server on loopback: the node, its result, Argo's success rules and
wording (upstream's e2e agent_test.go and http_template_test.go, docs/http-template.md), and the engine's bounds."""

from __future__ import annotations

import base64
import contextlib
import copy
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from aipipe.engine.context import dict_templates
from aipipe.engine.httpnode import MAX_BODY_BYTES
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError
from tests.engine.conftest import EngineRun, nodes_by_display


class _Answers(BaseHTTPRequestHandler):
    """``/status/N`` answers N; ``/echo`` answers what it received as JSON; ``/slow`` answers after 5 s; ``/drip``
    sends its body a byte at a time; ``/big`` answers more than the engine keeps; ``/moved`` redirects to
    ``/status/200``; ``/store/NAME`` keeps what a PUT sends and answers it to a GET (404 before); every request is
    counted."""

    hits: ClassVar[list[str]] = []
    stored: ClassVar[dict[str, bytes]] = {}  # PUT /store/NAME (basic auth alice:pw under /store/private/)

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def do_PUT(self) -> None:
        self.hits.append(f"PUT {self.path}")
        if not self._allowed():
            self._send(401, b"who are you")
            return
        self.stored[self.path] = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send(201, b"")

    def _allowed(self) -> bool:
        auth = "Basic " + base64.b64encode(b"alice:pw").decode()
        return not self.path.startswith("/store/private/") or self.headers.get("Authorization") == auth

    def _answer(self) -> None:
        self.hits.append(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/status/"):
            self._send(int(self.path.rsplit("/", 1)[1]), b"status page")
        elif self.path == "/echo":
            self._send(200, json.dumps({"method": self.command, "body": body.decode(),
                                        "token": self.headers.get("X-Token"), "host": self.headers.get("Host")}
                                       ).encode(), extra=[("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")])
        elif self.path == "/slow":
            time.sleep(5)
            self._send(200, b"late")
        elif self.path == "/drip":  # ten bytes, one every 0.4 s: no single read waits a second
            self.send_response(200)
            self.send_header("Content-Length", "10")
            self.end_headers()
            with contextlib.suppress(OSError):
                for _ in range(10):
                    self.wfile.write(b".")
                    self.wfile.flush()
                    time.sleep(0.4)
        elif self.path == "/big":
            self._send(200, b"x" * (MAX_BODY_BYTES + 1))
        elif self.path.startswith("/store/"):
            if not self._allowed():
                self._send(401, b"who are you")
            elif self.path in self.stored:
                self._send(200, self.stored[self.path])
            else:
                self._send(404, b"no such object")
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/status/200")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(404, b"not found")

    def _send(self, status: int, body: bytes, extra: list[tuple[str, str]] = ()) -> None:  # type: ignore[assignment]
        self.send_response(status)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the engine gave up on a slow or oversized answer
            self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Answers.hits.clear()
    _Answers.stored.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _workflow(steps: list[dict[str, Any]], *templates: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "http-"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": [steps]}, *templates]}}


def _call(name: str, template: str, url: str) -> dict[str, Any]:
    return {"name": name, "template": template, "arguments": {"parameters": [{"name": "url", "value": url}]}}


def _http(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "inputs": {"parameters": [{"name": "url"}]},
            "http": {"url": "{{inputs.parameters.url}}", **fields}}


def _node(wf: dict[str, Any], display: str) -> dict[str, Any]:
    [node] = nodes_by_display(wf)[display]
    return node


def test_success_conditions_as_argo_judges_them(engine: EngineRun, server: str) -> None:
    """agent_test.go TestStatusCondition and the default 2xx rule, five HTTP nodes in one step group: a condition
    replaces the 2xx rule (a 404 whose body passes it succeeds), and a redirect is followed."""
    wf = engine.run(_workflow(
        [_call("status-201-fails", "is-201", f"{server}/status/200"),
         _call("status-201-succeeds", "is-201", f"{server}/status/201"),
         _call("condition-over-404", "says-status", f"{server}/status/404"),
         _call("default-rule-fails", "plain", f"{server}/status/404"),
         _call("default-rule-succeeds", "plain", f"{server}/moved")],
        _http("is-201", successCondition="response.statusCode == 201"),
        _http("says-status", successCondition='response.body contains "status"'),
        _http("plain")))
    assert wf["status"]["phase"] == "Failed"
    phases = {d: _node(wf, d)["phase"] for d in ("status-201-fails", "status-201-succeeds", "condition-over-404",
                                                 "default-rule-fails", "default-rule-succeeds")}
    assert phases == {"status-201-fails": "Failed", "status-201-succeeds": "Succeeded",
                      "condition-over-404": "Succeeded", "default-rule-fails": "Failed",
                      "default-rule-succeeds": "Succeeded"}
    assert _node(wf, "status-201-fails")["message"] == "successCondition 'response.statusCode == 201' evaluated false"
    assert _node(wf, "default-rule-fails")["message"] == "received non-2xx response code: 404"
    assert _node(wf, "default-rule-fails")["outputs"] == {"result": "status page"}  # the body, also of a failure
    assert {_node(wf, d)["type"] for d in phases} == {"HTTP"}


def test_post_with_a_secret_header_and_the_result_passed_on(engine: EngineRun, server: str) -> None:
    folder = engine.home / "secrets" / "api"
    folder.mkdir(parents=True)
    (folder / "token").write_text("t0ken-value")
    condition = ('response.headers["Set-Cookie"] == ["a=1", "b=2"] && request.headers["X-Token"][0] != "" '
                 '&& fromJSON(response.body).method == "POST"')
    post = _http("post", method="POST", body="{{inputs.parameters.url}} as body", successCondition=condition,
                 headers=[{"name": "x-token", "valueFrom": {"secretKeyRef": {"name": "api", "key": "token"}}},
                          {"name": "Host", "value": "example.invalid"}])
    show = {"name": "show", "inputs": {"parameters": [{"name": "got"}]},
            "script": {"image": "python:3.11", "command": ["python3"],
                       "source": "import json; d = json.loads('''{{inputs.parameters.got}}'''); print(d['body'])"}}
    wf = _workflow([_call("send", "post", f"{server}/echo")], post, show)
    wf["spec"]["templates"][0]["steps"].append([{"name": "read", "template": "show", "arguments": {"parameters": [
        {"name": "got", "value": "{{steps.send.outputs.result}}"}]}}])
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    echoed = json.loads(_node(out, "send")["outputs"]["result"])
    assert echoed["method"] == "POST" and echoed["host"] == "example.invalid"
    assert echoed["token"] == "[redacted]"  # the server got the secret; the node's result masks it
    assert _node(out, "read")["outputs"]["result"] == f"{server}/echo as body"
    assert "t0ken-value" not in json.dumps(out)  # the secret reached the server, not the run's state
    assert f"POST {server}/echo: 200" in engine.log_text("send", out["status"])


def test_a_request_that_cannot_be_made_fails_with_gos_words(engine: EngineRun, server: str) -> None:
    wf = engine.run(_workflow(
        [_call("slow", "quick", f"{server}/slow"), _call("drip", "quick", f"{server}/drip"),
         _call("local-file", "plain", "file:///etc/passwd"), _call("no-time", "never", f"{server}/status/200"),
         _call("too-big", "plain", f"{server}/big"), _call("bad-condition", "not-bool", f"{server}/status/200")],
        _http("quick", timeoutSeconds=1), _http("plain"), _http("never", timeoutSeconds=0),
        _http("not-bool", successCondition="response.statusCode")))
    assert wf["status"]["phase"] == "Failed"
    assert _node(wf, "slow")["message"] == f'Get "{server}/slow": context deadline exceeded'
    assert _node(wf, "drip")["message"] == f'Get "{server}/drip": context deadline exceeded'  # the whole exchange
    assert _node(wf, "local-file")["message"] == 'Get "file:///etc/passwd": unsupported protocol scheme "file"'
    assert f"over {MAX_BODY_BYTES} bytes" in _node(wf, "too-big")["message"]
    assert _node(wf, "no-time")["message"] == "http.timeoutSeconds: must be a positive number of seconds, got 0"
    assert _node(wf, "bad-condition")["message"] == "unable to cast expression result '200' to bool"
    assert {_node(wf, d)["phase"] for d in ("slow", "drip", "local-file", "too-big", "bad-condition")} == {"Failed"}


def test_a_refused_connection_fails_the_node(engine: EngineRun) -> None:
    wf = engine.run(_workflow([_call("nobody", "plain", "http://127.0.0.1:9/x")], _http("plain")))
    message = _node(wf, "nobody")["message"]
    assert wf["status"]["phase"] == "Failed" and message.startswith('Get "http://127.0.0.1:9/x": ')
    assert "refused" in message.lower()


def test_a_stopped_run_ends_a_waiting_request(engine: EngineRun, server: str) -> None:
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    started = time.monotonic()
    wf = engine.run(_workflow([_call("waits", "plain", f"{server}/slow")], _http("plain")), stop=stop)
    assert time.monotonic() - started < 4.5  # the answer comes after 5 s
    assert wf["status"]["phase"] == "Failed" and _node(wf, "waits")["phase"] == "Failed"


def test_retries_and_results_reach_an_http_template(engine: EngineRun, server: str) -> None:
    retried = {**_http("plain"), "retryStrategy": {"limit": 1}}
    wf = engine.run(_workflow([_call("twice", "plain", f"{server}/status/500")], retried))
    assert wf["status"]["phase"] == "Failed"
    assert [n["type"] for n in nodes_by_display(wf)["twice"]] == ["Retry"]
    assert sorted(n["displayName"] for n in wf["status"]["nodes"].values() if n["type"] == "HTTP") == \
        ["twice(0)", "twice(1)"]


def test_resume_sends_again_only_what_a_dead_driver_left_unanswered(engine: EngineRun, server: str) -> None:
    """As a pod node: a stored Succeeded HTTP node is kept with its result, one stored Running runs again."""
    first = engine.run(_workflow([_call("ask", "plain", f"{server}/status/200")], _http("plain")))
    assert first["status"]["phase"] == "Succeeded" and _Answers.hits == ["/status/200"]
    kept = copy.deepcopy(first)
    kept["status"]["phase"] = "Running"
    for node in kept["status"]["nodes"].values():
        if node["type"] != "HTTP":
            node.update(phase="Running", finishedAt=None)
    assert engine.run(kept)["status"]["phase"] == "Succeeded" and _Answers.hits == ["/status/200"]
    unanswered = copy.deepcopy(kept)
    for node in unanswered["status"]["nodes"].values():
        node.update(phase="Running", finishedAt=None)
        node.pop("outputs", None)
    again = engine.run(unanswered)
    assert again["status"]["phase"] == "Succeeded", again["status"].get("message")
    assert _Answers.hits == ["/status/200"] * 2 and _node(again, "ask")["outputs"] == {"result": "status page"}


def test_submit_refuses_an_http_template_without_url_and_its_exit_code() -> None:
    no_url = _workflow([{"name": "a", "template": "h"}], {"name": "h", "http": {"method": "GET"}})
    with pytest.raises(UserError, match=r"templates\.h\.http\.url.*is required"):
        validate_workflow(no_url, dict_templates([]))
    exit_code = _workflow([_call("a", "h", "http://127.0.0.1:9")], _http("h"))
    exit_code["spec"]["templates"][0]["steps"].append([{"name": "b", "template": "h", "arguments": {"parameters": [
        {"name": "url", "value": "{{steps.a.exitCode}}"}]}}])
    with pytest.raises(UserError, match=r"a http template has no outputs\.exitCode"):
        validate_workflow(exit_code, dict_templates([]))
    result = _workflow([_call("a", "h", "http://127.0.0.1:9")], _http("h"))
    result["spec"]["templates"][0]["steps"].append([{"name": "b", "template": "h", "arguments": {"parameters": [
        {"name": "url", "value": "{{steps.a.outputs.result}}"}]}}])
    validate_workflow(result, dict_templates([]))


def _artifact_workflow(server: str, auth: dict[str, Any] | None) -> dict[str, Any]:
    """A step writes a folder and sends it to an http URL (PUT, tar.gz); the next step takes it with ``from``, a
    third fetches it by URL, and an optional input whose URL answers 404 is skipped."""
    where = {"url": f"{server}/store/private/model.tgz", **({"auth": auth} if auth else {})}
    make = {"name": "make", "script": {"image": "busybox", "command": ["sh"],
                                       "source": "mkdir -p /out && echo weights > /out/w.txt"},
            "outputs": {"artifacts": [{"name": "model", "path": "/out", "http": where}]}}
    use = {"name": "use", "inputs": {"artifacts": [{"name": "model", "path": "/in"},
                                                   {"name": "extra", "path": "/extra", "optional": True,
                                                    "http": {"url": f"{server}/store/absent"}}]},
           "script": {"image": "busybox", "command": ["sh"], "source": "cat /in/w.txt; test -e /extra || echo skipped"}}
    fetch = {"name": "fetch", "inputs": {"artifacts": [{"name": "model", "path": "/in", "http": where}]},
             "script": {"image": "busybox", "command": ["sh"], "source": "cat /in/w.txt"}}
    steps = [[{"name": "make", "template": "make"}],
             [{"name": "use", "template": "use", "arguments": {"artifacts": [
                 {"name": "model", "from": "{{steps.make.outputs.artifacts.model}}"}]}},
              {"name": "fetch", "template": "fetch"}]]
    return {"metadata": {"name": "http-artifacts"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": steps}, make, use, fetch]}}


def test_http_artifacts_go_out_with_put_and_come_back_with_get(engine: EngineRun, server: str) -> None:
    """http_artifacts_test.go: an output artifact PUT to its URL, read back with GET, behind basic auth."""
    folder = engine.home / "secrets" / "store-creds"
    folder.mkdir(parents=True)
    (folder / "user").write_text("alice")
    (folder / "password").write_text("pw")
    auth = {"basicAuth": {"usernameSecret": {"name": "store-creds", "key": "user"},
                          "passwordSecret": {"name": "store-creds", "key": "password"}}}
    wf = engine.run(_artifact_workflow(server, auth))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert _node(wf, "use")["outputs"]["result"] == "weights\nskipped"
    assert _node(wf, "fetch")["outputs"]["result"] == "weights"
    [record] = _node(wf, "make")["outputs"]["artifacts"]
    assert record["http"]["url"] == f"{server}/store/private/model.tgz" and "s3" not in record
    assert _Answers.stored["/store/private/model.tgz"][:2] == b"\x1f\x8b"  # Argo's default archive, tar.gz


def test_an_http_artifact_the_server_refuses_fails_its_node(engine: EngineRun, server: str) -> None:
    wf = engine.run(_artifact_workflow(server, None))
    assert wf["status"]["phase"] == "Failed"
    assert _node(wf, "make")["phase"] == "Error"  # as an artifact the store refuses: the pod's outputs not saved
    assert (f"output artifact 'model': saving file artifact.tgz to {server}/store/private/model.tgz failed with "
            "reason: 401 Unauthorized") in _node(wf, "make")["message"]
