"""Artifact downloads on Argo's artifact-server routes from a real ``aipipe server``: the file the Argo UI
links to, the by-name and by-uid routes, folders stored with ``archive: none``, the repository reference the
UI needs, and refusals (unknown names 404, paths out of the repository 400, no token)."""

from __future__ import annotations

import io
import socket
import tarfile
import time
from typing import Any

import pytest
import requests

from tests.server.conftest import ServerProcess

NS = "argo"
WORKFLOW = {"metadata": {"generateName": "art-"}, "spec": {"entrypoint": "main", "templates": [
    {"name": "main", "steps": [[{"name": "make", "template": "make"}],
                               [{"name": "use", "template": "use", "arguments": {"artifacts": [
                                   {"name": "in", "from": "{{steps.make.outputs.artifacts.result}}"}]}}]]},
    {"name": "make", "container": {"image": "alpine", "command": ["sh", "-c",
     "echo payload > /tmp/out.txt; mkdir -p /tmp/d/sub; echo A > /tmp/d/a.txt; echo B > /tmp/d/sub/b.txt"]},
     "outputs": {"artifacts": [{"name": "result", "path": "/tmp/out.txt"},
                               {"name": "folder", "path": "/tmp/d", "archive": {"none": {}}}]}},
    {"name": "use", "inputs": {"artifacts": [{"name": "in", "path": "/tmp/in.txt"},
                                             {"name": "note", "path": "/tmp/note.txt", "raw": {"data": "hello raw"}}]},
     "container": {"image": "alpine", "command": ["cat", "/tmp/in.txt", "/tmp/note.txt"]}}]}}


@pytest.fixture
def run(server: ServerProcess) -> dict[str, Any]:
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json={"workflow": WORKFLOW}, timeout=30)
    assert created.ok, created.text
    name = created.json()["metadata"]["name"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        obj = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()
        if obj["status"].get("phase") in ("Succeeded", "Failed", "Error"):
            assert obj["status"]["phase"] == "Succeeded", obj["status"]
            return obj
        time.sleep(0.2)
    raise AssertionError(f"{name} did not finish")


def _node(workflow: dict[str, Any], display: str) -> str:
    return next(k for k, n in workflow["status"]["nodes"].items() if n["displayName"] == display)


def _untar(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def test_repository_reference_on_the_workflow(server: ServerProcess, run: dict[str, Any]) -> None:
    ref = run["status"]["artifactRepositoryRef"]
    assert ref["default"] is True
    s3 = ref["artifactRepository"]["s3"]
    assert s3["bucket"] and s3["endpoint"].startswith("file://") and s3["endpoint"].endswith("/artifacts")


def test_output_file_on_every_route(server: ServerProcess, run: dict[str, Any]) -> None:
    name, uid, node = run["metadata"]["name"], run["metadata"]["uid"], _node(run, "make")
    paths = [f"/artifact-files/{NS}/workflows/{name}/{node}/outputs/result",
             f"/artifact-files/{NS}/archived-workflows/{uid}/{node}/outputs/result",
             f"/artifacts/{NS}/{name}/{node}/result",
             f"/artifacts-by-uid/{uid}/{node}/result"]
    for path in paths:
        resp = server.http.get(server.url + path, timeout=30)
        assert resp.status_code == 200, (path, resp.text)
        assert resp.headers["Content-Disposition"] == 'filename="result.tgz"'
        assert resp.headers["Content-Type"] == "application/gzip"
        assert _untar(resp.content) == {"out.txt": b"payload\n"}


def test_folder_artifact_lists_then_serves_files(server: ServerProcess, run: dict[str, Any]) -> None:
    base = f"{server.url}/artifact-files/{NS}/workflows/{run['metadata']['name']}/{_node(run, 'make')}/outputs/folder"
    redirect = server.http.get(base, timeout=30, allow_redirects=False)
    assert redirect.status_code == 307 and redirect.headers["Location"].endswith("/outputs/folder/")
    listing = server.http.get(base + "/", timeout=30)
    assert listing.status_code == 200 and listing.headers["Content-Type"].startswith("text/html")
    assert 'href="./a.txt"' in listing.text and 'href="./sub/"' in listing.text
    assert server.http.get(base + "/a.txt", timeout=30).content == b"A\n"
    assert server.http.get(base + "/sub/b.txt", timeout=30).content == b"B\n"


def test_raw_input_artifact(server: ServerProcess, run: dict[str, Any]) -> None:
    resp = server.http.get(f"{server.url}/input-artifacts/{NS}/{run['metadata']['name']}/{_node(run, 'use')}/note",
                           timeout=30)
    assert resp.status_code == 200 and resp.text == "hello raw"


def test_input_artifact_passed_with_from_downloads_from_its_source(server: ServerProcess,
                                                                  run: dict[str, Any]) -> None:
    """The node records the source's repository key, as Argo does, so its input downloads like an output."""
    use = run["status"]["nodes"][_node(run, "use")]
    [given] = [a for a in use["inputs"]["artifacts"] if a["name"] == "in"]
    assert given["s3"]["key"]
    resp = server.http.get(f"{server.url}/artifact-files/{NS}/workflows/{run['metadata']['name']}/"
                           f"{_node(run, 'use')}/inputs/in", timeout=30)
    assert resp.status_code == 200, resp.text
    body = resp.content
    assert (b"payload\n" in _untar(body).values()) if body[:2] == b"\x1f\x8b" else body == b"payload\n"


def test_unknown_artifacts_are_404_with_a_message(server: ServerProcess, run: dict[str, Any]) -> None:
    name, node = run["metadata"]["name"], _node(run, "make")
    cases = {f"/artifacts/{NS}/{name}/{node}/nope": 'no output artifact "nope"',
             f"/artifacts/{NS}/{name}/no-such-node/result": 'has no node "no-such-node"',
             f"/artifacts/{NS}/no-such-run/{node}/result": '"no-such-run" not found',
             f"/artifacts-by-uid/00000000-0000-0000-0000-000000000000/{node}/result": "no workflow with uid",
             f"/artifact-files/{NS}/workflows/{name}/{node}/outputs/folder/missing.txt": "nothing stored",
             f"/artifact-files/other/archived-workflows/{run['metadata']['uid']}/{node}/outputs/result":
                 "no workflow with uid"}
    for path, message in cases.items():
        resp = server.http.get(server.url + path, timeout=30)
        assert resp.status_code == 404, (path, resp.status_code, resp.text)
        assert message in resp.json()["message"], (path, resp.text)


def test_bad_paths_are_refused(server: ServerProcess, run: dict[str, Any]) -> None:
    name, node = run["metadata"]["name"], _node(run, "make")
    base = f"/artifact-files/{NS}/workflows/{name}/{node}"
    cases = {f"{base}/outputs/folder/%2e%2e/%2e%2e/%2e%2e/server.token": 400,
             f"{base}/sideways/result": 400,
             f"/artifact-files/{NS}/elsewhere/{name}/{node}/outputs/result": 400,
             "/artifacts-by-uid/not-a-uid/x/result": 400,
             f"/artifacts/Bad_Namespace/{name}/{node}/result": 400}
    for path, status in cases.items():
        resp = requests.get(server.url + path, headers=server.headers(), timeout=30)
        assert resp.status_code == status, (path, resp.status_code, resp.text)
        assert server.token and server.token not in resp.text
    assert "Traceback" not in (server.home / "server.log").read_text()


def test_token_required(server: ServerProcess, run: dict[str, Any]) -> None:
    path = f"/artifacts/{NS}/{run['metadata']['name']}/{_node(run, 'make')}/result"
    anonymous = requests.get(server.url + path, timeout=30, allow_redirects=False)
    assert anonymous.status_code in (302, 401) and not anonymous.content.startswith(b"\x1f\x8b")
    wrong = requests.get(server.url + path, headers={"Authorization": "Bearer wrong"}, timeout=30,
                         allow_redirects=False)
    assert wrong.status_code in (302, 401) and not wrong.content.startswith(b"\x1f\x8b")
    cookie = requests.get(server.url + path, cookies={"authorization": f"Bearer%20{server.token}"}, timeout=30)
    assert cookie.status_code == 200 and cookie.content.startswith(b"\x1f\x8b")


def test_download_dropped_midway_is_quiet(server: ServerProcess) -> None:
    body = {"workflow": {"metadata": {"generateName": "big-"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c",
                                                                      "head -c 30000000 /dev/urandom > /tmp/big"]},
         "outputs": {"artifacts": [{"name": "big", "path": "/tmp/big", "archive": {"none": {}}}]}}]}}}
    name = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json=body, timeout=30).json()["metadata"]["name"]
    deadline = time.monotonic() + 120
    while server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()["status"].get(
            "phase") != "Succeeded":
        assert time.monotonic() < deadline, "the run did not succeed"
        time.sleep(0.3)
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET /artifacts/{NS}/{name}/{name}/big HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Authorization: Bearer {server.token}\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close
    time.sleep(1)
    assert server.http.get(f"{server.url}/api/v1/version", timeout=10).ok
    assert "Traceback" not in (server.home / "server.log").read_text()
