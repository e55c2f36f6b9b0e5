"""List queries on a real ``aipipe server``, as the Argo UI and the official SDK send them: set-based label
selectors, ``nameFilter``, ``createdAfter``/``finishedBefore``, ``fields``, ``limit``/``continue`` paging, the
all-namespaces list, and ``resourceKind`` names with the labels submit-from-template adds."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import argo_workflows
import pytest
from argo_workflows.api.workflow_service_api import WorkflowServiceApi

from tests.server.conftest import ServerProcess, start_server

NS, OTHER = "argo", "other"
PHASE = "workflows.argoproj.io/phase"


def _spec(script: str) -> dict[str, Any]:
    return {"entrypoint": "main", "templates": [
        {"name": "main", "container": {"image": "alpine", "command": ["sh", "-c", script]}}]}


def _create(srv: ServerProcess, name: str, script: str = "true", labels: dict[str, str] | None = None,
            namespace: str = NS) -> dict[str, Any]:
    resp = srv.http.post(f"{srv.url}/api/v1/workflows/{namespace}", timeout=30, json={
        "workflow": {"metadata": {"name": name, "labels": labels or {}}, "spec": _spec(script)}})
    assert resp.ok, resp.text
    return resp.json()


def _wait_finished(srv: ServerProcess, names: list[str], namespace: str = NS) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        phases = [srv.http.get(f"{srv.url}/api/v1/workflows/{namespace}/{n}", timeout=30).json()["status"]["phase"]
                  for n in names]
        if all(p in ("Succeeded", "Failed", "Error") for p in phases):
            return
        time.sleep(0.2)
    raise AssertionError(f"{names} did not finish")


def _names(srv: ServerProcess, path: str = f"/api/v1/workflows/{NS}", **params: str) -> list[str]:
    resp = srv.http.get(srv.url + path, params=params, timeout=30)
    assert resp.status_code == 200, resp.text
    return [item["metadata"]["name"] for item in resp.json()["items"]]


def _refused(resp: Any, field: str) -> None:
    assert resp.status_code == 400, resp.text
    body = resp.json()
    assert body["code"] == 3 and field in body["message"], body
    assert "Traceback" not in resp.text


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server holding: red-one (Succeeded), blue-two (Failed), plain-three (Succeeded, no team)."""
    server = start_server(tmp_path_factory.mktemp("lists") / "home")
    try:
        _create(server, "red-one", labels={"team": "red", "tier": "1"})
        _create(server, "blue-two", "exit 1", labels={"team": "blue", "tier": "2"})
        _create(server, "plain-three")
        _wait_finished(server, ["red-one", "blue-two", "plain-three"])
        yield server
    finally:
        server.stop()


def _sdk(srv: ServerProcess) -> WorkflowServiceApi:
    cfg = argo_workflows.Configuration(host=srv.url)
    cfg.api_key["BearerToken"] = srv.token
    cfg.api_key_prefix["BearerToken"] = "Bearer"
    return WorkflowServiceApi(argo_workflows.ApiClient(cfg))


@pytest.mark.parametrize(("selector", "expected"), [
    (f"{PHASE} in (Failed)", {"blue-two"}),  # the Argo UI's phase filter
    (f"{PHASE} in (Succeeded,Failed)", {"red-one", "blue-two", "plain-three"}),
    (f"{PHASE} in (Succeeded, Failed),team notin (blue)", {"red-one", "plain-three"}),
    (f"{PHASE} notin (Succeeded)", {"blue-two"}),
    ("team", {"red-one", "blue-two"}),
    ("!team", {"plain-three"}),
    ("team in (red,blue),!tier", set()),
    (f"team in (red,blue),{PHASE}=Succeeded", {"red-one"}),
    ("team!=red", {"blue-two", "plain-three"}),
    ("team==blue", {"blue-two"}),
    ("tier>1", {"blue-two"}),
    ("tier<2,team", {"red-one"}),
])
def test_label_selectors_set_based_and_equality(srv: ServerProcess, selector: str, expected: set[str]) -> None:
    assert set(_names(srv, **{"listOptions.labelSelector": selector})) == expected
    listed = _sdk(srv).list_workflows(NS, list_options_label_selector=selector)  # the SDK's typed call
    assert {item.metadata.name for item in listed.items or []} == expected


@pytest.mark.parametrize("selector", ["team in (red", "team in ()", "team in red", "a b", "team=(x)", "bad key!",
                                      "tier>one", "team=" + "v" * 64])
def test_a_malformed_label_selector_is_400_naming_it(srv: ServerProcess, selector: str) -> None:
    for path in (f"/api/v1/workflows/{NS}", "/api/v1/archived-workflows"):
        _refused(srv.http.get(srv.url + path, params={"listOptions.labelSelector": selector}, timeout=30),
                 "listOptions.labelSelector")


@pytest.mark.parametrize(("name", "name_filter", "expected"), [
    ("red-one", "", {"red-one"}),  # Exact by default
    ("red", "", set()),
    ("red", "Exact", set()),
    ("b", "Prefix", {"blue-two"}),
    ("-t", "Contains", {"blue-two", "plain-three"}),
    ("o", "Contains", {"red-one", "blue-two"}),
])
def test_name_filter_reads_the_field_selector_name(srv: ServerProcess, name: str, name_filter: str,
                                                   expected: set[str]) -> None:
    params = {"listOptions.fieldSelector": f"metadata.name={name}"} | ({"nameFilter": name_filter}
                                                                      if name_filter else {})
    assert set(_names(srv, **params)) == expected


def test_name_not_equals_and_unsupported_field_selectors(srv: ServerProcess) -> None:
    assert set(_names(srv, **{"listOptions.fieldSelector": "metadata.name!=red-one"})) == {"blue-two", "plain-three"}
    assert set(_names(srv, **{"listOptions.fieldSelector": f"metadata.namespace={NS},metadata.name=blue-two"})) \
        == {"blue-two"}
    url = f"{srv.url}/api/v1/workflows/{NS}"
    _refused(srv.http.get(url, params={"listOptions.fieldSelector": "status.phase=Failed"}, timeout=30),
             "listOptions.fieldSelector")
    _refused(srv.http.get(url, params={"listOptions.fieldSelector": f"metadata.namespace={OTHER}"}, timeout=30),
             "listOptions.fieldSelector")
    _refused(srv.http.get(url, params={"nameFilter": "Fuzzy", "listOptions.fieldSelector": "metadata.name=x"},
                          timeout=30), "nameFilter")


def test_created_after_and_finished_before(srv: ServerProcess) -> None:
    items = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", timeout=30).json()["items"]
    created = {i["metadata"]["name"]: i["metadata"]["creationTimestamp"] for i in items}
    finished = {i["metadata"]["name"]: i["status"]["finishedAt"] for i in items}
    newest = max(created.values())
    after = set(_names(srv, createdAfter=newest))
    assert after == {n for n, c in created.items() if c >= newest} and after
    later = (datetime.fromisoformat(newest) + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    assert _names(srv, createdAfter=later) == []
    # the UI sends Date.toISOString(): milliseconds and Z
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert set(_names(srv, finishedBefore=now)) == set(finished)
    earliest = min(finished.values())
    assert set(_names(srv, finishedBefore=earliest)) == {n for n, f in finished.items() if f <= earliest}
    assert _names(srv, finishedBefore="2000-01-01T00:00:00Z") == []
    _refused(srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", params={"createdAfter": "yesterday"}, timeout=30),
             "createdAfter")


def test_fields_projection_as_the_ui_asks(srv: ServerProcess) -> None:
    ui_fields = ("metadata,items.metadata.uid,items.metadata.name,items.metadata.namespace,"
                 "items.metadata.creationTimestamp,items.metadata.labels,items.status.phase,items.status.finishedAt")
    body = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", params={"fields": ui_fields}, timeout=30).json()
    assert body["metadata"]["resourceVersion"]
    for item in body["items"]:
        assert set(item["metadata"]) == {"uid", "name", "namespace", "creationTimestamp", "labels"}
        assert item["status"]["phase"] in ("Succeeded", "Failed") and "nodes" not in item["status"]
        assert "templates" not in item.get("spec", {})
    dropped = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", params={"fields": "-items.status.nodes"},
                           timeout=30).json()
    assert len(dropped["items"]) == 3
    for item in dropped["items"]:
        assert "nodes" not in item["status"] and item["spec"]["templates"] and item["status"]["phase"]
    one = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/red-one", params={"fields": "metadata.name,status.phase"},
                       timeout=30).json()
    assert one["metadata"] == {"name": "red-one"} and one["status"]["phase"] == "Succeeded"
    assert "templates" not in one.get("spec", {})
    sdk = _sdk(srv)  # the typed calls read projected answers (Workflow's required metadata and spec stay)
    typed = sdk.list_workflows(NS, fields=ui_fields)
    assert {(w.metadata.name, w.status.phase) for w in typed.items} == {
        ("red-one", "Succeeded"), ("blue-two", "Failed"), ("plain-three", "Succeeded")}
    got = sdk.get_workflow(NS, "blue-two", fields="metadata.name,status.phase")
    assert got.metadata.name == "blue-two" and got.status.phase == "Failed" and "templates" not in got.spec


def test_limit_and_continue_page_without_losing_items(tmp_path: Path) -> None:
    srv = start_server(tmp_path / "home")
    try:
        names = [f"page-{i}" for i in range(7)]
        for name in names:
            _create(srv, name)
        _wait_finished(srv, names)
        seen: list[str] = []
        params = {"listOptions.limit": "3"}
        pages = 0
        while True:
            body = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", params=params, timeout=30).json()
            page = [i["metadata"]["name"] for i in body["items"]]
            assert len(page) <= 3
            seen += page
            pages += 1
            if pages == 1:  # runs created and deleted between pages change nothing for the pages still to come
                _create(srv, "page-late")
                assert srv.http.delete(f"{srv.url}/api/v1/workflows/{NS}/{page[0]}", timeout=30).ok
            token = body["metadata"].get("continue")
            if not token:
                break
            params = {"listOptions.limit": "3", "listOptions.continue": token}
        assert pages == 3 and sorted(seen) == sorted(names) and len(seen) == len(set(seen))
        remaining = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", timeout=30, params={
            "listOptions.limit": "2", "listOptions.fieldSelector": "ext.showRemainingItemCount=true"}).json()
        assert remaining["metadata"]["remainingItemCount"] == 5 and remaining["metadata"]["continue"]
        # Argo's own continue tokens are offsets
        assert len(_names(srv, **{"listOptions.limit": "4", "listOptions.continue": "5"})) == 2
        for token in ("not-a-token", "\u00b2", "WyJhIl0"):  # garbage, a non-ASCII digit, a key of the wrong size
            _refused(srv.http.get(f"{srv.url}/api/v1/workflows/{NS}", params={"listOptions.continue": token},
                                  timeout=30), "listOptions.continue")
    finally:
        srv.stop()


def test_all_namespaces_list(srv: ServerProcess) -> None:
    _create(srv, "elsewhere", namespace=OTHER)
    _wait_finished(srv, ["elsewhere"], OTHER)
    every = _names(srv, "/api/v1/workflows/")
    assert set(every) == {"red-one", "blue-two", "plain-three", "elsewhere"}
    assert _names(srv, "/api/v1/workflows/", **{"listOptions.fieldSelector": f"metadata.namespace={OTHER}"}) \
        == ["elsewhere"]
    assert set(_names(srv, "/api/v1/workflows/", **{"listOptions.labelSelector": "!team"})) \
        == {"plain-three", "elsewhere"}
    assert "elsewhere" not in _names(srv)
    assert srv.http.delete(f"{srv.url}/api/v1/workflows/{OTHER}/elsewhere", timeout=30).ok


# -- submit from a template: resourceKind names and labels ----------------------------------------
TEMPLATE: dict[str, Any] = {"metadata": {"name": "tmpl"}, "spec": _spec("true")}


def _put_resources(srv: ServerProcess) -> None:
    resources: tuple[tuple[str, str, dict[str, Any]], ...] = (
            (f"/api/v1/workflow-templates/{NS}", "template", TEMPLATE),
            ("/api/v1/cluster-workflow-templates", "template", {**TEMPLATE, "metadata": {"name": "ctmpl"}}),
            (f"/api/v1/cron-workflows/{NS}", "cronWorkflow", {"metadata": {"name": "nightly"}, "spec": {
                "schedules": ["0 3 * * *"], "suspend": True, "workflowSpec": _spec("true"),
                "workflowMetadata": {"labels": {"from": "cron"}}}}))
    for path, key, obj in resources:
        resp = srv.http.post(srv.url + path, json={key: obj}, timeout=30)
        assert resp.ok or resp.status_code == 409, resp.text


@pytest.mark.parametrize(("kind", "name", "label"), [
    *[(k, "tmpl", "workflows.argoproj.io/workflow-template")
      for k in ("WorkflowTemplate", "workflowtemplate", "workflowtemplates", "wftmpl")],
    *[(k, "ctmpl", "workflows.argoproj.io/cluster-workflow-template")
      for k in ("ClusterWorkflowTemplate", "clusterworkflowtemplate", "clusterworkflowtemplates", "cwftmpl")],
    *[(k, "nightly", "workflows.argoproj.io/cron-workflow") for k in ("CronWorkflow", "cronworkflow", "cronwf")],
])
def test_submit_accepts_argos_kind_names_and_labels_the_run(srv: ServerProcess, kind: str, name: str,
                                                            label: str) -> None:
    _put_resources(srv)
    resp = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}/submit", timeout=30, json={
        "resourceKind": kind, "resourceName": name, "submitOptions": {"dryRun": True, "labels": "extra=yes"}})
    assert resp.ok, resp.text
    labels = resp.json()["metadata"]["labels"]
    assert labels[label] == name and labels["extra"] == "yes"
    assert resp.json()["metadata"]["generateName"] == f"{name}-"


def test_submitted_runs_are_found_by_their_template_label(srv: ServerProcess) -> None:
    _put_resources(srv)
    made = {}
    for kind, name in (("wftmpl", "tmpl"), ("cronwf", "nightly")):
        resp = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}/submit", timeout=30,
                             json={"resourceKind": kind, "resourceName": name})
        assert resp.ok, resp.text
        made[name] = resp.json()
    cron_run = made["nightly"]
    assert cron_run["metadata"]["labels"]["from"] == "cron"
    assert cron_run["metadata"]["annotations"]["workflows.argoproj.io/scheduled-time"]
    assert cron_run["metadata"]["ownerReferences"][0]["kind"] == "CronWorkflow"
    _wait_finished(srv, [w["metadata"]["name"] for w in made.values()])
    assert _names(srv, **{"listOptions.labelSelector": "workflows.argoproj.io/workflow-template=tmpl"}) \
        == [made["tmpl"]["metadata"]["name"]]
    assert _names(srv, **{"listOptions.labelSelector": "workflows.argoproj.io/cron-workflow in (nightly)"}) \
        == [cron_run["metadata"]["name"]]
    for made_run in made.values():
        assert srv.http.delete(f"{srv.url}/api/v1/workflows/{NS}/{made_run['metadata']['name']}", timeout=30).ok


@pytest.mark.parametrize("kind", ["cwft", "Workflow", "WORKFLOWTEMPLATE", "wftemplate", ""])
def test_submit_refuses_kinds_argo_does_not_know(srv: ServerProcess, kind: str) -> None:
    resp = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}/submit", timeout=30,
                         json={"resourceKind": kind, "resourceName": "tmpl"})
    _refused(resp, "resourceKind")


def test_template_and_cron_lists_take_the_same_selectors(srv: ServerProcess) -> None:
    base = f"{srv.url}/api/v1/workflow-templates/tpl"
    for name, labels in (("t-red", {"team": "red"}), ("t-blue", {"team": "blue"}), ("t-none", {})):
        resp = srv.http.post(base, timeout=30, json={"template": {"metadata": {"name": name, "labels": labels},
                                                                   "spec": _spec("true")}})
        assert resp.ok, resp.text
    for selector, expected in (("team in (red,blue)", {"t-red", "t-blue"}), ("team notin (red)", {"t-blue", "t-none"}),
                               ("!team", {"t-none"})):
        assert set(_names(srv, "/api/v1/workflow-templates/tpl", **{"listOptions.labelSelector": selector})) \
            == expected
    for path in ("/api/v1/workflow-templates/empty", "/api/v1/cron-workflows/empty",
                 "/api/v1/cluster-workflow-templates"):
        _refused(srv.http.get(srv.url + path, params={"listOptions.labelSelector": "team in (red"}, timeout=30),
                 "listOptions.labelSelector")


def test_template_lists_page_and_list_every_namespace(srv: ServerProcess) -> None:
    for namespace, name in (("pg-a", "t1"), ("pg-a", "t2"), ("pg-a", "t3"), ("pg-b", "t4")):
        resp = srv.http.post(f"{srv.url}/api/v1/workflow-templates/{namespace}", timeout=30,
                             json={"template": {"metadata": {"name": name, "labels": {"pg": "yes"}},
                                                "spec": _spec("true")}})
        assert resp.ok, resp.text
    seen: list[str] = []
    params = {"listOptions.limit": "2", "listOptions.labelSelector": "pg"}
    while True:
        body = srv.http.get(f"{srv.url}/api/v1/workflow-templates/", params=params, timeout=30).json()
        assert len(body["items"]) <= 2
        seen += [f'{i["metadata"]["namespace"]}/{i["metadata"]["name"]}' for i in body["items"]]
        if not body["metadata"].get("continue"):
            break
        params["listOptions.continue"] = body["metadata"]["continue"]
    assert seen == ["pg-a/t1", "pg-a/t2", "pg-a/t3", "pg-b/t4"]
    assert _names(srv, "/api/v1/workflow-templates/pg-b") == ["t4"]
    assert srv.http.get(f"{srv.url}/api/v1/cron-workflows/", timeout=30).ok


def test_the_watch_takes_set_based_selectors(srv: ServerProcess) -> None:
    resp = srv.http.get(f"{srv.url}/api/v1/workflow-events/{NS}", timeout=30, stream=True, params={
        "listOptions.labelSelector": "team in (red, blue),tier notin (2)", "listOptions.timeoutSeconds": "1"})
    assert resp.status_code == 200, resp.text
    events = [json.loads(line)["result"] for line in resp.iter_lines() if line.strip()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "red-one")]
    _refused(srv.http.get(f"{srv.url}/api/v1/workflow-events/{NS}", params={"listOptions.labelSelector": "x in ("},
                          timeout=30), "listOptions.labelSelector")
