"""Through a real ``aipipe server``: a run reads a local ConfigMap, and a workflow with a field the engine
cannot honour is refused at submit and at lint with Argo's InvalidArgument shape, naming the field."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.conftest import ServerProcess, start_server

NS = "argo"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("cm") / "home"
    folder = home / "configmaps" / "app-settings"
    folder.mkdir(parents=True)
    (folder / "greeting").write_text("hello from a configmap\n")
    srv = start_server(home)
    yield srv
    srv.stop()


def manifest(**leaf: Any) -> dict[str, Any]:
    return {"metadata": {"generateName": "cm-"}, "spec": {"entrypoint": "main", "templates": [
        {"name": "main", **leaf, "container": {
            "image": "busybox", "command": ["sh", "-c", "echo \"$GREETING\"; cat /cfg/greeting"],
            "env": [{"name": "GREETING", "valueFrom": {"configMapKeyRef": {"name": "app-settings",
                                                                          "key": "greeting"}}}],
            "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]},
         "volumes": [{"name": "cfg", "configMap": {"name": "app-settings"}}]}]}}


def test_a_submitted_run_reads_the_local_config_map(server: ServerProcess) -> None:
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json={"workflow": manifest()}, timeout=30)
    assert created.status_code == 200, created.text
    name = created.json()["metadata"]["name"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        wf = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()
        if wf.get("status", {}).get("phase") in ("Succeeded", "Failed", "Error"):
            break
        time.sleep(0.3)
    assert wf["status"]["phase"] == "Succeeded", wf["status"]
    [pod] = [n for n in wf["status"]["nodes"].values() if n["type"] == "Pod"]
    assert pod["outputs"]["result"] == "hello from a configmap\nhello from a configmap"


@pytest.mark.parametrize("path", ["", "/lint"])
def test_a_memoize_without_its_cache_is_refused_naming_the_field(server: ServerProcess, path: str) -> None:
    body = {"workflow": manifest(memoize={"key": "k", "maxAge": "10"})}
    resp = server.http.post(f"{server.url}/api/v1/workflows/{NS}{path}", json=body, timeout=30)
    assert resp.status_code == 400, resp.text
    answer = resp.json()
    assert answer["code"] == 3 and "memoize" in answer["message"] and "'cache' is a required property" in answer[
        "message"], answer  # the CRD schema requires key, maxAge and cache
    listed = server.http.get(f"{server.url}/api/v1/workflows/{NS}", timeout=30).json()
    assert all("memoize" not in str(item.get("spec")) for item in listed.get("items") or [])


def test_a_second_submitted_run_hits_the_memoized_step(server: ServerProcess) -> None:
    memoize = {"key": "greeting", "maxAge": "1h", "cache": {"configMap": {"name": "server-memo"}}}
    pods = [_pod_of(_finished(server, manifest(memoize=memoize))) for _ in range(2)]
    assert [p["memoizationStatus"] for p in pods] == [
        {"hit": hit, "key": "greeting", "cacheName": "server-memo"} for hit in (False, True)]
    assert pods[1]["outputs"] == pods[0]["outputs"] and pods[1]["phase"] == "Succeeded"


def _finished(server: ServerProcess, workflow: dict[str, Any]) -> dict[str, Any]:
    created = server.http.post(f"{server.url}/api/v1/workflows/{NS}", json={"workflow": workflow}, timeout=30)
    assert created.status_code == 200, created.text
    name = created.json()["metadata"]["name"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        wf: dict[str, Any] = server.http.get(f"{server.url}/api/v1/workflows/{NS}/{name}", timeout=30).json()
        if wf.get("status", {}).get("phase") in ("Succeeded", "Failed", "Error"):
            return wf
        time.sleep(0.3)
    raise AssertionError(f"{name} did not finish")


def _pod_of(wf: dict[str, Any]) -> dict[str, Any]:
    assert wf["status"]["phase"] == "Succeeded", wf["status"]
    [pod] = [n for n in wf["status"]["nodes"].values() if n["type"] == "Pod"]
    return pod

