"""The run pages of ``aipipe server`` in headless Chromium: sign-in, runs list, DAG graph, logs, actions.

A real server runs real workflows; Debian's chromium is driven by selenium. A screenshot of the failed
diamond's page goes to ``$AIPIPE_SCREENSHOT_DIR/run-page.png`` (else the test's tmp dir)."""

from __future__ import annotations

import io
import os
import re
import shutil
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.polling import wait_until
from tests.server.conftest import REPO_ROOT, ServerProcess, start_server

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NS = "argo"
RED = "#e96d76"

pytestmark = pytest.mark.skipif(not (shutil.which(CHROMEDRIVER) and shutil.which(CHROMIUM)),
                                reason="needs Debian's chromium and chromium-driver (/usr/bin/chromedriver)")


def _container(name: str, script: str) -> dict[str, Any]:
    return {"name": name, "container": {"image": "alpine", "command": ["sh", "-c", script]}}


DIAMOND: dict[str, Any] = {"metadata": {"generateName": "diamond-", "labels": {"team": "vision"}}, "spec": {
    "entrypoint": "main", "templates": [
        {"name": "main", "dag": {"tasks": [
            {"name": "a", "template": "ok"},
            {"name": "b", "template": "ok", "dependencies": ["a"]},
            {"name": "c", "template": "bad", "dependencies": ["a"]},
            {"name": "d", "template": "ok", "dependencies": ["b", "c"]}]}},
        _container("ok", "echo fine"),
        _container("bad", "echo 'the <b>data</b> is bad' >&2; exit 3")]}}

SLOW: dict[str, Any] = {"metadata": {"generateName": "slow-"}, "spec": {"entrypoint": "main", "templates": [
    {"name": "main", "steps": [[{"name": "talk", "template": "talk"}]]},
    _container("talk", "for i in $(seq 1 30); do echo log line $i; echo $i/30 > $ARGO_PROGRESS_FILE; sleep 1; done")]}}


def _wait(what: str, probe: Callable[[], Any], timeout: float = 30) -> Any:
    """The first truthy value of ``probe``; a stale element or a page mid-refresh counts as not yet."""
    return wait_until(what, probe, timeout, retry_on=(Exception,))


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = start_server(tmp_path_factory.mktemp("page") / "home")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,950"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _submit(srv: ServerProcess, workflow: dict[str, Any]) -> str:
    created = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}", json={"workflow": workflow}, timeout=30)
    assert created.ok, created.text
    return str(created.json()["metadata"]["name"])


def _get(srv: ServerProcess, name: str) -> dict[str, Any]:
    got = srv.http.get(f"{srv.url}/api/v1/workflows/{NS}/{name}", timeout=30)
    assert got.ok, got.text
    return dict(got.json())


def _finished(srv: ServerProcess, name: str) -> dict[str, Any]:
    return _wait(f"{name} to finish", lambda: (w := _get(srv, name))["status"].get("phase")
                 in ("Succeeded", "Failed", "Error") and w, timeout=60)


GRAPH_JS = """
const all = (selector) => Array.from(document.querySelectorAll(selector));
return {nodes: all("svg.graph g.node").map((g) => [g.dataset.nodeId, g.dataset.phase,
          g.querySelector("rect").getAttribute("fill"), g.querySelector("text.name").textContent,
          g.querySelector("text.detail").textContent]),
        edges: all("svg.graph path.edge").map((p) => [p.dataset.from, p.dataset.to, p.getAttribute("marker-end"),
          p.getAttribute("d")])};"""


def _graph(browser: Any) -> dict[str, list[list[str]]]:
    """The drawn graph in one read (the page redraws it on every change)."""
    return dict(browser.execute_script(GRAPH_JS))


def _click(browser: Any, selector: str) -> None:
    def attempt() -> bool:
        browser.find_element("css selector", selector).click()
        return True

    _wait(f"a click on {selector}", attempt)


def _sign_in(browser: Any, srv: ServerProcess) -> None:
    browser.get(f"{srv.url}/login?token={srv.token}")
    _wait("the runs page after sign-in", lambda: browser.find_elements("id", "runs"))


def _streaming(browser: Any) -> None:
    """The page's EventSource on the watch stream is open (Server-Sent Events, not polling)."""
    _wait("the page's event stream to open",
          lambda: browser.execute_script("return document.body.dataset.live") == "live")


def test_pages_refuse_without_the_token(srv: ServerProcess, browser: Any) -> None:
    for path in ("/", f"/runs/{NS}/anything", "/triggers", f"/fragments/runs/{NS}/anything"):
        plain = requests.get(f"{srv.url}{path}", allow_redirects=False, timeout=30)
        assert plain.status_code == 302 and plain.headers["Location"] == "/login", path
    wrong = requests.get(f"{srv.url}/", cookies={"authorization": "Bearer wrong"}, allow_redirects=False, timeout=30)
    assert wrong.status_code == 302
    browser.delete_all_cookies()
    browser.get(f"{srv.url}/")
    assert browser.current_url.endswith("/login")
    assert browser.find_elements("css selector", "form[action='/login']") and not browser.find_elements("id", "runs")


def test_runs_list_filters_and_updates_live(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    _streaming(browser)
    diamond = _submit(srv, DIAMOND)
    row = f"#runs tr[data-name='{diamond}']"
    _wait("the new run to appear without a reload",
          lambda: browser.find_elements("css selector", f"{row}[data-phase='Failed']"), timeout=60)
    cells = [c.text for c in browser.find_elements("css selector", f"{row} td")]
    assert cells[1] == "diamond" and cells[2] == "Failed" and cells[3] == "manual"
    assert cells[6] == _get(srv, diamond)["status"]["progress"]
    quiet = _finished(srv, _submit(srv, {"metadata": {"generateName": "quiet-"}, "spec": {
        "entrypoint": "main", "templates": [_container("main", "true")]}}))["metadata"]["name"]
    browser.get(f"{srv.url}/?phase=Failed")
    names = {r.get_attribute("data-name") for r in browser.find_elements("css selector", "#runs tr[data-name]")}
    assert diamond in names and quiet not in names
    browser.get(f"{srv.url}/?label=team%3Dvision")
    names = {r.get_attribute("data-name") for r in browser.find_elements("css selector", "#runs tr[data-name]")}
    assert names == {diamond}
    bad = requests.get(f"{srv.url}/?label=a%20in%20(", cookies=browser_cookies(browser), timeout=30)
    assert bad.status_code == 400 and "label" in bad.text and "Traceback" not in bad.text
    odd = requests.get(f"{srv.url}/", params={"namespace": "../Evil<x>"}, cookies=browser_cookies(browser),
                       timeout=30)
    assert odd.status_code == 400 and "namespace" in odd.text
    assert odd.headers["Content-Type"].startswith("application/json")  # the name is data, never markup


def test_runs_list_names_the_trigger_and_pipeline(srv: ServerProcess, browser: Any) -> None:
    template: dict[str, Any] = {"metadata": {"name": "hello"},
                                "spec": {"entrypoint": "main", "templates": [_container("main", "true")]}}
    made = srv.http.post(f"{srv.url}/api/v1/workflow-templates/{NS}", json={"template": template}, timeout=30)
    assert made.ok, made.text
    for binding, selector in (("on-upload", "payload.Records != nil"),
                              ("on-annotation", 'discriminator == "labelstudio"')):
        made = srv.http.post(f"{srv.url}/api/v1/workflow-event-bindings/{NS}", json={"metadata": {"name": binding},
                             "spec": {"event": {"selector": selector},
                                      "submit": {"workflowTemplateRef": {"name": "hello"}}}}, timeout=30)
        assert made.ok, made.text
    cron: dict[str, Any] = {"metadata": {"name": "hourly"}, "spec": {"schedules": ["0 * * * *"], "suspend": True,
                                                      "workflowSpec": {"workflowTemplateRef": {"name": "hello"}}}}
    made = srv.http.post(f"{srv.url}/api/v1/cron-workflows/{NS}", json={"cronWorkflow": cron}, timeout=30)
    assert made.ok, made.text
    _sign_in(browser, srv)
    upload: dict[str, Any] = {"Records": [{"s3": {"bucket": {"name": "data"},
                                                  "object": {"key": "cats/1.jpg", "eTag": "e1"}}}]}
    annotation: dict[str, Any] = {"action": "ANNOTATION_CREATED", "project": {"id": 1}, "annotation": {"id": 7}}
    for discriminator, payload in (("minio", upload), ("labelstudio", annotation)):
        sent = srv.http.post(f"{srv.url}/api/v1/events/{NS}/{discriminator}", json=payload, timeout=30)
        assert sent.ok, sent.text
    made = srv.http.post(f"{srv.url}/api/v1/workflows/{NS}/submit", json={
        "resourceKind": "CronWorkflow", "resourceName": "hourly"}, timeout=30)
    assert made.ok, made.text

    def triggers() -> dict[str, str] | None:
        rows = browser.execute_script("""return Array.from(document.querySelectorAll("#runs tr[data-name]"))
            .map((r) => [r.cells[1].textContent, r.querySelector(".trigger").textContent]);""")
        found = {trigger: pipeline for pipeline, trigger in rows if trigger in ("s3", "webhook", "cron")}
        return found if len(found) == 3 else None

    assert _wait("runs started by each trigger", triggers, timeout=60) == {
        "s3": "hello", "webhook": "hello", "cron": "hello"}


def browser_cookies(browser: Any) -> dict[str, str]:
    return {c["name"]: c["value"] for c in browser.get_cookies()}


def test_run_graph_phases_arrows_and_failure(srv: ServerProcess, browser: Any, tmp_path: Path) -> None:
    _sign_in(browser, srv)
    name = _submit(srv, DIAMOND)
    workflow = _finished(srv, name)
    nodes = workflow["status"]["nodes"]
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    phases = {i: n["phase"] for i, n in nodes.items()}
    graph = _wait("every node with its final phase",
                  lambda: (g := _graph(browser)) and {n[0]: n[1] for n in g["nodes"]} == phases and g)
    assert len(graph["nodes"]) == len(nodes) == 5
    edges = {(i, c) for i, n in nodes.items() for c in n.get("children") or []}
    assert {(e[0], e[1]) for e in graph["edges"]} == edges and len(graph["edges"]) == len(edges) >= 4
    assert all(e[2] == "url(#arrow)" and e[3].startswith("M") for e in graph["edges"])
    failed_id = next(i for i, n in nodes.items() if n.get("displayName") == "c")
    assert {n[0]: n[2] for n in graph["nodes"]}[failed_id] == RED
    summary = _wait("the run's message", lambda: browser.find_element(  # read in the probe: the page redraws
        "css selector", "#live .summary .message.failed").text)
    assert summary == workflow["status"]["message"]
    _click(browser, f"svg.graph g.node[data-node-id='{failed_id}']")
    selector = f"#node-panel .node-info[data-node-id='{failed_id}'] .message.failed"
    text, color = _wait("the failed node's message", lambda: next(
        (e.text, e.value_of_css_property("color")) for e in browser.find_elements("css selector", selector)))
    assert text == nodes[failed_id]["message"] and text
    assert color in ("rgba(198, 40, 40, 1)", "rgb(198, 40, 40)")
    logs = _wait("the failed node's log", lambda: browser.find_element("id", "logs").text)
    assert "the <b>data</b> is bad" in logs  # shown as text, not markup
    folder = Path(os.environ.get("AIPIPE_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(folder / "run-page.png"))
    assert (folder / "run-page.png").stat().st_size > 10_000


def _retrain_with_stand_ins(home: Path) -> dict[str, Any]:
    """The compiled retrain DAG (its tasks, ``depends`` and ``when``) with every step a stand-in reporting
    changed=true and promote=false: train runs, convert-trt is Skipped (the gate refused), deploy Omitted."""
    from aipipe.compile import compile_pipeline
    from aipipe.config import load_config

    compiled = compile_pipeline(REPO_ROOT / "pipelines" / "retrain.py",
                                load_config(env={"AIPIPE_HOME": str(home)}, path=None), {})
    [manifest] = [d for d in compiled.documents() if d["kind"] == "Workflow"]
    [dag] = [t for t in manifest["spec"]["templates"] if t["name"] == manifest["spec"]["entrypoint"]]
    tasks = [{k: v for k, v in t.items() if k in ("name", "depends", "when")} | {"template": "stand-in"}
             for t in dag["dag"]["tasks"]]
    stand_in = _container("stand-in", "printf true > /tmp/changed; printf false > /tmp/promote") | {
        "outputs": {"parameters": [{"name": "changed", "valueFrom": {"path": "/tmp/changed"}},
                                   {"name": "promote", "valueFrom": {"path": "/tmp/promote"}}]}}
    return {"metadata": {"generateName": "retrain-"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "dag": {"tasks": tasks}}, stand_in]}}


def test_retrain_run_shows_every_step_with_its_phase_and_arrows(srv: ServerProcess, browser: Any,
                                                                 tmp_path: Path) -> None:
    _sign_in(browser, srv)
    name = _submit(srv, _retrain_with_stand_ins(tmp_path))
    nodes = _finished(srv, name)["status"]["nodes"]
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    phases = {i: n["phase"] for i, n in nodes.items()}
    graph = _wait("every step with its final phase",
                  lambda: (g := _graph(browser)) and {n[0]: n[1] for n in g["nodes"]} == phases and g)
    by_name = {n[3]: n[1] for n in graph["nodes"]}
    assert by_name == {name: "Succeeded", "export-annotations": "Succeeded", "train": "Succeeded",
                       "evaluate": "Succeeded", "convert-trt": "Skipped", "deploy": "Omitted"}
    step_of = {n[0]: n[3] for n in graph["nodes"]}
    assert sorted((step_of[e[0]], step_of[e[1]]) for e in graph["edges"]) == sorted([
        (name, "export-annotations"), ("export-annotations", "train"), ("train", "evaluate"),
        ("evaluate", "convert-trt"), ("convert-trt", "deploy")])


def test_logs_follow_a_running_node_and_terminate_works(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    name = _submit(srv, SLOW)
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    talk = _wait("the talking node to run", lambda: [
        n[0] for n in _graph(browser)["nodes"] if n[1] == "Running" and n[3] == "talk"], timeout=60)[0]
    _streaming(browser)
    _click(browser, f"svg.graph g.node[data-node-id='{talk}']")
    _wait("a log line while the node runs", lambda: "log line 1" in browser.find_element("id", "logs").text)
    assert browser.find_element("id", "logs").get_attribute("data-stream") == "open"
    assert _get(srv, name)["status"]["phase"] == "Running"
    seen = browser.find_element("id", "logs").text
    _wait("more lines to follow", lambda: len(browser.find_element("id", "logs").text.splitlines())
          > len(seen.splitlines()) and _get(srv, name)["status"]["phase"] == "Running")
    _wait("the node's progress to move on the graph while it runs", lambda: any(
        n[0] == talk and n[1] == "Running" and re.search(r"\b([2-9]|1[0-9])/30$", n[4])
        for n in _graph(browser)["nodes"]), timeout=20)
    _click(browser, "button.action[data-action='terminate']")
    _wait("the run to end after Terminate",
          lambda: browser.find_elements("css selector", "#live .summary[data-phase='Failed']"), timeout=30)
    finished = _finished(srv, name)
    assert finished["status"]["phase"] == "Failed"
    assert "log line 30" not in browser.find_element("id", "logs").text


LINKS: dict[str, Any] = {"metadata": {
    "generateName": "links-", "labels": {"aipipe.io/trigger": "webhook"},
    "annotations": {"workflows.argoproj.io/title": "Retrain <cats>", "workflows.argoproj.io/description":
                    "Project **pets**.\n\n[Model in MLflow](http://127.0.0.1:5000/#/models/cats) "
                    "[evil](javascript:alert(1))"}}, "spec": {"entrypoint": "deploy", "templates": [{
    **_container("deploy", "printf http://127.0.0.1:5000/#/runs/abc > /tmp/run; printf 3 > /tmp/v; printf "
                           "http://127.0.0.1:5000/#/models/cats/versions/3 > /tmp/mv; printf javascript:alert > "
                           "/tmp/evil; printf http://127.0.0.1:8123 > /tmp/endpoint; echo '{}' > /tmp/r.json"),
    "inputs": {"parameters": [{"name": "model-name", "value": "cats"}]},
    "outputs": {"parameters": [{"name": "mlflow_run_url", "valueFrom": {"path": "/tmp/run"}},
                               {"name": "model_version", "valueFrom": {"path": "/tmp/v"}},
                               {"name": "model_version_url", "valueFrom": {"path": "/tmp/mv"}},
                               {"name": "evil_url", "valueFrom": {"path": "/tmp/evil"}},
                               {"name": "endpoint", "valueFrom": {"path": "/tmp/endpoint"}}],
                "artifacts": [{"name": "report", "path": "/tmp/r.json"}]}}]}}


def test_links_out_and_artifact_downloads(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    name = _submit(srv, LINKS)
    node_id = next(iter(_finished(srv, name)["status"]["nodes"]))
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    links = _wait("the links", lambda: {a.text: a.get_attribute("href")
                                        for a in browser.find_elements("css selector", "#live .links a")})
    assert links == {"MLflow run": "http://127.0.0.1:5000/#/runs/abc",
                     "MLflow cats version 3": "http://127.0.0.1:5000/#/models/cats/versions/3",
                     "Deployed endpoint": "http://127.0.0.1:8123/"}
    assert browser.find_element("css selector", "#live .summary h2.title").text == "Retrain <cats>"
    described = _wait("the description's links", lambda: [
        (a.text, a.get_attribute("href")) for a in browser.find_elements("css selector", "#live .description a")])
    assert described == [("Model in MLflow", "http://127.0.0.1:5000/#/models/cats")]
    assert browser.find_element("css selector", "#live .description strong").text == "pets"
    assert "[evil](javascript:alert(1))" in browser.find_element("css selector", "#live .description").text
    assert "webhook" in browser.find_element("css selector", "#live .summary dl").text
    _click(browser, f"svg.graph g.node[data-node-id='{node_id}']")
    href = _wait("the artifact link",  # read inside the wait: the live page may redraw the panel meanwhile
                 lambda: browser.find_elements("css selector", "#node-panel a.artifact")[0].get_attribute("href"))
    assert href == f"{srv.url}/artifact-files/{NS}/workflows/{name}/{node_id}/outputs/report"
    download = requests.get(href, cookies=browser_cookies(browser), timeout=30)
    assert download.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(download.content)) as tar:  # stored as Argo stores it: a .tgz
        member = next(m for m in tar.getmembers() if m.isfile())
        assert (tar.extractfile(member) or io.BytesIO()).read().strip() == b"{}"
    page = requests.get(f"{srv.url}/runs/{NS}/{name}", cookies=browser_cookies(browser), timeout=30)
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]


def test_resubmit_button_opens_the_new_run(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    name = _finished(srv, _submit(srv, {"metadata": {"generateName": "again-"}, "spec": {
        "entrypoint": "main", "templates": [_container("main", "true")]}}))["metadata"]["name"]
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    _click(browser, "button.action[data-action='resubmit']:not([disabled])")
    _wait("the resubmitted run's page", lambda: browser.find_elements(
        "css selector", f"#run[data-name^='again-']:not([data-name='{name}'])"))
    fresh = browser.find_element("id", "run").get_attribute("data-name")
    assert _finished(srv, fresh)["status"]["phase"] == "Succeeded"


GATE: dict[str, Any] = {"metadata": {"generateName": "gate-"}, "spec": {"entrypoint": "main", "templates": [
    {"name": "main", "steps": [[{"name": "approve", "template": "wait"}], [{"name": "after", "template": "ok"}]]},
    {"name": "wait", "suspend": {}}, _container("ok", "true")]}}


def test_resume_button_releases_a_suspended_run(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    name = _submit(srv, GATE)
    browser.get(f"{srv.url}/runs/{NS}/{name}")
    _wait("the run to wait at its suspend node", lambda: browser.find_elements(
        "css selector", "button.action[data-action='resume']:not([disabled])"), timeout=30)
    assert _get(srv, name)["status"]["phase"] == "Running"
    _click(browser, "button.action[data-action='resume']")
    _wait("the run to go on and succeed", lambda: browser.find_elements(
        "css selector", "#live .summary[data-phase='Succeeded']"), timeout=30)
    phases = {n[3]: n[1] for n in _graph(browser)["nodes"]}
    assert phases["approve"] == phases["after"] == "Succeeded"
    assert browser.find_element("id", "action-status").text == "resume: done"


def test_triggers_page_lists_schedules_and_bindings(srv: ServerProcess, browser: Any) -> None:
    _sign_in(browser, srv)
    cron: dict[str, Any] = {"metadata": {"name": "nightly"}, "spec": {
        "schedules": ["0 3 * * *"], "timezone": "UTC", "suspend": True,
        "workflowSpec": {"entrypoint": "main", "templates": [_container("main", "true")]}}}
    made = srv.http.post(f"{srv.url}/api/v1/cron-workflows/{NS}", json={"cronWorkflow": cron}, timeout=30)
    assert made.ok, made.text
    binding: dict[str, Any] = {"metadata": {"name": "new-data"}, "spec": {
        "event": {"selector": "payload.Records != nil"}, "submit": {"workflowTemplateRef": {"name": "retrain"}}}}
    made = srv.http.post(f"{srv.url}/api/v1/workflow-event-bindings/{NS}", json=binding, timeout=30)
    assert made.ok, made.text
    browser.get(f"{srv.url}/triggers")
    row = browser.find_element("css selector", "table.crons tr[data-name='nightly']")
    assert "0 3 * * *" in row.text and "suspended" in row.text
    row = browser.find_element("css selector", f"table.bindings tr[data-name='{binding['metadata']['name']}']")
    assert "payload.Records != nil" in row.text and "retrain" in row.text
