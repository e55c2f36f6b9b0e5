"""Daemon steps and tasks, sidecars and init containers run as real processes of the node (no mocks).

A daemon serves HTTP on a loopback port that a later step reads; the engine ends it when its steps/DAG node
completes (Argo: the node then Succeeded, ``daemoned`` cleared). Sidecars share the node's loopback and files and
end with main; init containers run in order before main.
"""

from __future__ import annotations

import errno
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.context import no_templates
from aipipe.engine.runners.base import ProcessSpec
from aipipe.engine.runners.local import MOUNT_POINTS_LOCK, LocalRunner, _mount_point, _remove_mount_points
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError
from tests.engine.conftest import EngineRun, nodes_by_display

SERVE = ("import http.server, os, sys\n"
         "os.makedirs('/tmp/site', exist_ok=True)\n"
         "open('/tmp/site/hello.txt', 'w').write('hello from the daemon')\n"
         "os.chdir('/tmp/site')\n"
         "http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)"
         ".serve_forever()\n")
FETCH = ("import sys, urllib.request\n"
         "print(urllib.request.urlopen(f'http://{sys.argv[1]}:{sys.argv[2]}/hello.txt', timeout=5).read().decode())\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def server(port: int, probe: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"image": "python:3.11", "command": ["python", "-c", SERVE, str(port)]}
    if probe is not None:
        body["readinessProbe"] = {**probe, "periodSeconds": 1}
    return {"name": "server", "daemon": True, "container": body, **extra}


def client(name: str = "client") -> dict[str, Any]:
    return {"name": name, "inputs": {"parameters": [{"name": "ip"}, {"name": "port"}]},
            "container": {"image": "python:3.11", "command": [
                "python", "-c", FETCH, "{{inputs.parameters.ip}}", "{{inputs.parameters.port}}"]}}


def wf(*templates: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "d"},
            "spec": {"entrypoint": "main", "templates": list(templates)}}


def only(out: dict[str, Any], display: str) -> dict[str, Any]:
    [node] = nodes_by_display(out)[display]
    return node


def test_a_dag_daemon_serves_its_dependant_and_ends_succeeded_with_the_dag(engine: EngineRun) -> None:
    port = free_port()
    main = {"name": "main", "dag": {"tasks": [
        {"name": "server", "template": "server"},
        {"name": "client", "template": "client", "depends": "server", "arguments": {"parameters": [
            {"name": "ip", "value": "{{tasks.server.ip}}"}, {"name": "port", "value": str(port)}]}}]}}
    out = engine.run(wf(main, server(port, {"httpGet": {"path": "/hello.txt", "port": port}}), client()))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "client")["outputs"]["result"] == "hello from the daemon"
    daemon = only(out, "server")
    assert daemon["phase"] == "Succeeded" and "daemoned" not in daemon and daemon["podIP"] == "127.0.0.1"
    assert daemon["finishedAt"] >= only(out, "client")["finishedAt"]
    assert not port_open(port)  # its process tree is gone


def test_a_steps_daemon_ends_when_its_own_steps_template_completes(engine: EngineRun) -> None:
    """The daemon lives in `inner`; once `inner` completes, the outer step after it finds the port closed."""
    port = free_port()
    check = {"name": "closed", "script": {"image": "python:3.11", "command": ["python"], "source":
             f"import socket\nassert socket.socket().connect_ex(('127.0.0.1', {port})) != 0\nprint('closed')\n"}}
    inner = {"name": "inner", "steps": [
        [{"name": "server", "template": "server"}],
        [{"name": "client", "template": "client", "arguments": {"parameters": [
            {"name": "ip", "value": "{{steps.server.ip}}"}, {"name": "port", "value": str(port)}]}}]]}
    main = {"name": "main", "steps": [[{"name": "inner", "template": "inner"}], [{"name": "closed",
                                                                                  "template": "closed"}]]}
    out = engine.run(wf(main, inner, server(port, {"tcpSocket": {"port": port}}), client(), check))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "client")["outputs"]["result"] == "hello from the daemon"
    assert only(out, "closed")["outputs"]["result"] == "closed"
    assert only(out, "server")["phase"] == "Succeeded"
    assert only(out, "server")["finishedAt"] <= only(out, "closed")["startedAt"]


def test_a_retried_daemon_with_an_exec_probe_ends_with_its_retry_node(engine: EngineRun) -> None:
    port = free_port()
    probe = {"exec": {"command": ["python", "-c", f"import socket; socket.create_connection(('127.0.0.1', {port}))"]}}
    main = {"name": "main", "steps": [
        [{"name": "server", "template": "server"}],
        [{"name": "client", "template": "client", "arguments": {"parameters": [
            {"name": "ip", "value": "{{steps.server.ip}}"}, {"name": "port", "value": str(port)}]}}]]}
    out = engine.run(wf(main, server(port, probe, retryStrategy={"limit": 2}), client()))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "client")["outputs"]["result"] == "hello from the daemon"
    retry, attempt = only(out, "server"), only(out, "server(0)")
    assert retry["type"] == "Retry" and retry["phase"] == attempt["phase"] == "Succeeded"
    assert "daemoned" not in retry and "daemoned" not in attempt


def test_a_daemon_that_exits_before_it_is_ready_fails_like_any_container(engine: EngineRun) -> None:
    main = {"name": "main", "steps": [[{"name": "server", "template": "server"}]]}
    broken = {"name": "server", "daemon": True, "container": {"image": "busybox", "command": ["sh", "-c", "exit 4"],
                                                               "readinessProbe": {"tcpSocket": {"port": free_port()},
                                                                                  "periodSeconds": 1}}}
    out = engine.run(wf(main, broken))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "server")["message"] == "main: Error (exit code 4)"


def test_a_sidecar_shares_loopback_and_files_and_ends_with_main(engine: EngineRun) -> None:
    port = free_port()
    main = {"name": "main", "container": {
        "image": "python:3.11", "command": ["python", "-c",
                                            "import time, os\n"
                                            "while not os.path.exists('/tmp/site/hello.txt'): time.sleep(0.1)\n"
                                            "time.sleep(0.5)\n" + FETCH, "127.0.0.1", str(port)]},
        "sidecars": [{"name": "web", "image": "python:3.11", "command": ["python", "-c", SERVE, str(port)]}]}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "d")["outputs"]["result"] == "hello from the daemon"
    assert not port_open(port)


def test_a_sidecar_that_fails_by_itself_fails_the_node(engine: EngineRun) -> None:
    main = {"name": "main", "container": {"image": "busybox", "command": ["sh", "-c", "sleep 1; echo main"]},
            "sidecars": [{"name": "helper", "image": "busybox", "command": ["sh", "-c", "exit 3"]}]}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "d")["message"] == "helper: Error (exit code 3)"


def test_init_containers_run_in_order_before_main_with_mirrored_mounts(engine: EngineRun) -> None:
    main = {"name": "main", "volumes": [{"name": "work", "emptyDir": {}}],
            "initContainers": [
                {"name": "one", "image": "busybox", "mirrorVolumeMounts": True,
                 "command": ["sh", "-c", "echo one > /work/log"]},
                {"name": "two", "image": "busybox", "command": ["sh", "-c", "echo two >> /data/log"],
                 "volumeMounts": [{"name": "work", "mountPath": "/data"}]}],
            "container": {"image": "busybox", "command": ["sh", "-c", "cat /work/log"],
                          "volumeMounts": [{"name": "work", "mountPath": "/work"}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "d")["outputs"]["result"] == "one\ntwo"


def test_a_failing_init_container_fails_the_node_and_main_never_runs(engine: EngineRun) -> None:
    main = {"name": "main", "initContainers": [{"name": "prep", "image": "busybox", "command": ["sh", "-c", "exit 2"]}],
            "container": {"image": "busybox", "command": ["sh", "-c", "echo main ran"]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "d")["message"] == "prep: Error (exit code 2)"
    assert "main ran" not in engine.log_text()


def test_a_container_set_runs_its_graph_in_one_node_with_container_children(engine: EngineRun) -> None:
    """a, then b and c (in parallel), then main: all in one node's files; main's stdout is the result."""
    def step(name: str, deps: list[str]) -> dict[str, Any]:
        return {"name": name, "image": "busybox", "dependencies": deps,
                "command": ["sh", "-c", f"echo {name} >> /work/log" + ("; sort /work/log" if name == "main" else "")]}
    main = {"name": "main", "volumes": [{"name": "work", "emptyDir": {}}],
            "containerSet": {"volumeMounts": [{"name": "work", "mountPath": "/work"}], "containers": [
                step("a", []), step("b", ["a"]), step("c", ["a"]), step("main", ["b", "c"])]},
            "outputs": {"parameters": [{"name": "log", "valueFrom": {"path": "/work/log"}}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    pod = only(out, "d")
    assert pod["type"] == "Pod" and pod["outputs"]["result"] == "a\nb\nc\nmain"
    assert pod["outputs"]["parameters"][0]["value"].splitlines()[0] == "a"
    children = [out["status"]["nodes"][c] for c in pod["children"]]
    assert sorted((c["displayName"], c["type"], c["phase"]) for c in children) == [
        (n, "Container", "Succeeded") for n in ("a", "b", "c", "main")]
    assert only(out, "a")["finishedAt"] <= only(out, "b")["startedAt"]


def test_a_failing_container_of_a_set_fails_the_node_and_its_dependants_never_run(engine: EngineRun) -> None:
    main = {"name": "main", "containerSet": {"containers": [
        {"name": "a", "image": "busybox", "command": ["sh", "-c", "exit 5"]},
        {"name": "main", "image": "busybox", "command": ["sh", "-c", "echo main ran"], "dependencies": ["a"]}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "d")["message"] == "a: Error (exit code 5)"
    assert only(out, "a")["phase"] == only(out, "main")["phase"] == "Failed"
    assert "main ran" not in engine.log_text()


def test_a_container_set_retries_each_failing_container_in_the_same_pod(engine: EngineRun) -> None:
    """Argo's TestContainerSetRetryFail: a container that fails until its own earlier run left a file passes on
    its second run (the pod's files are kept); main, retried too, ends the node Succeeded."""
    def flaky(name: str, deps: list[str]) -> dict[str, Any]:
        marker = f"/work/{name}.tried"
        return {"name": name, "image": "busybox", "dependencies": deps, "command": [
            "sh", "-c", f"echo run >> /work/{name}.runs; test -f {marker} || {{ touch {marker}; exit 3; }}"]}
    main = {"name": "main", "volumes": [{"name": "work", "emptyDir": {}}],
            "containerSet": {"volumeMounts": [{"name": "work", "mountPath": "/work"}],
                             "retryStrategy": {"retries": 2, "duration": "100ms"},
                             "containers": [flaky("a", []), flaky("main", ["a"])]},
            "outputs": {"parameters": [{"name": "runs", "valueFrom": {"path": "/work/a.runs"}}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Succeeded", out["status"]
    assert only(out, "a")["phase"] == only(out, "main")["phase"] == "Succeeded"
    assert only(out, "d")["outputs"]["parameters"][0]["value"] == "run\nrun"


def test_a_container_set_gives_up_after_its_retries(engine: EngineRun) -> None:
    """``retries: 2`` is two runs in all, as Argo's executor counts (TestWorkflowTemplateWithRetryStrategyInContainerSet
    asserts two failures for a container that always fails)."""
    main = {"name": "main", "containerSet": {"retryStrategy": {"retries": "2"}, "containers": [
        {"name": "main", "image": "busybox", "command": ["sh", "-c", "echo attempt; exit 4"]}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "d")["message"] == "main: Error (exit code 4)"
    assert engine.log_text().count("attempt") == 2


@pytest.mark.parametrize(("cset", "reason"), [
    ({"containers": []}, "at least one container"),
    ({"containers": [{"name": "main", "image": "busybox", "dependencies": ["ghost"]}]},
     "containers.main dependency 'ghost' not defined"),
    ({"containers": [{"name": "a", "image": "busybox", "dependencies": ["main"]},
                     {"name": "main", "image": "busybox", "dependencies": ["a"]}]}, "dependency cycle"),
    ({"containers": [{"name": "a", "image": "busybox"}, {"name": "a", "image": "busybox"}]}, "unique name"),
    ({"retryStrategy": {"retries": "two"}, "containers": [{"name": "main", "image": "busybox"}]},
     "must be an integer"),
])
def test_a_container_set_argo_would_refuse_is_refused_before_it_runs(cset: dict[str, Any], reason: str) -> None:
    with pytest.raises(UserError) as caught:
        validate_workflow(wf({"name": "main", "containerSet": cset}), no_templates)
    assert reason in str(caught.value) and str(caught.value.field).startswith("templates.main.containerSet")


def test_containers_of_a_set_starting_together_share_their_mount_points(tmp_path: Path) -> None:
    """Eight containers of one node plan the same mount point at once: it is made once, every one of them counts
    as its user, and it goes (with the folders made for it) only when the last of them ends."""
    target = tmp_path / "root" / "tmp" / "a" / "b" / "mount"
    (tmp_path / "root").mkdir()
    made: list[list[Path]] = [[] for _ in range(8)]
    barrier = threading.Barrier(len(made))

    def plan(mine: list[Path]) -> None:
        barrier.wait()
        with MOUNT_POINTS_LOCK:
            _mount_point(target, True, mine)

    threads = [threading.Thread(target=plan, args=(mine,)) for mine in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tmp = tmp_path / "root" / "tmp"
    assert all(mine == [tmp, tmp / "a", tmp / "a" / "b", target] for mine in made), made
    for mine in made[:-1]:
        _remove_mount_points(mine)
        assert target.is_dir()
    _remove_mount_points(made[-1])
    assert not tmp.exists() and (tmp_path / "root").is_dir()


def test_a_container_that_ends_leaves_the_mount_points_a_running_one_uses(engine: EngineRun) -> None:
    """``a`` ends at once while ``main`` runs on with the same volume mounted in the node's one root: removing
    the shared mount point would detach main's mount, so it stays until main ends too."""
    main = {"name": "main", "containerSet": {
        "volumeMounts": [{"name": "data", "mountPath": "/srv/data/vol"}], "containers": [
            {"name": "a", "image": "busybox", "command": ["true"]},
            {"name": "main", "image": "busybox",
             "command": ["sh", "-c", "sleep 0.5; echo kept > /srv/data/vol/x && cat /srv/data/vol/x"]}]}}
    workflow = wf(main)
    workflow["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}]
    out = engine.run(workflow)
    assert out["status"]["phase"] == "Succeeded", engine.log_text()
    assert only(out, "main")["phase"] == "Succeeded" and "kept" in engine.log_text()


def test_a_container_of_a_set_that_cannot_start_fails_its_node_and_the_pod(
        engine: EngineRun, monkeypatch: pytest.MonkeyPatch) -> None:
    real_start = LocalRunner.start

    def start(self: LocalRunner, spec: ProcessSpec) -> object:
        if "from-b" in " ".join(spec.argv):
            raise OSError(errno.EEXIST, "File exists", "/tmp/x")
        return real_start(self, spec)

    monkeypatch.setattr(LocalRunner, "start", start)
    main = {"name": "main", "containerSet": {"containers": [
        {"name": "b", "image": "busybox", "command": ["echo", "from-b"]},
        {"name": "main", "image": "busybox", "command": ["echo", "main"], "dependencies": ["b"]}]}}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Failed"
    assert only(out, "b")["phase"] == "Failed" and "failed to start" in only(out, "b")["message"]
    assert only(out, "d")["message"].startswith("b: failed to start")


def test_stopping_the_run_ends_a_running_daemon(engine: EngineRun) -> None:
    port = free_port()
    stop = threading.Event()

    def stop_once_served() -> None:
        deadline = time.monotonic() + 30
        while not port_open(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        stop.set()

    main = {"name": "main", "steps": [[{"name": "server", "template": "server"}],
                                      [{"name": "wait", "template": "wait"}]]}
    wait = {"name": "wait", "container": {"image": "busybox", "command": ["sleep", "60"]}}
    threading.Thread(target=stop_once_served, daemon=True).start()
    started = time.monotonic()
    out = engine.run(wf(main, server(port), wait), stop=stop)
    assert time.monotonic() - started < 30
    assert out["status"]["phase"] == "Failed"
    assert only(out, "server")["phase"] == "Failed" and "daemoned" not in only(out, "server")
    assert not port_open(port)


def test_what_the_other_containers_cannot_have_is_refused_naming_the_field() -> None:
    in_set = wf({"name": "main", "containerSet": {"containers": [
        {"name": "main", "image": "busybox", "command": ["true"],
         "env": [{"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}]}]}})
    with pytest.raises(UserError) as caught:
        validate_workflow(in_set, no_templates)
    assert caught.value.field == \
        "spec.templates[0].containerSet.containers[0].env[0].valueFrom.resourceFieldRef.resource"
    sidecar = wf({"name": "main", "container": {"image": "busybox", "command": ["true"]}, "sidecars": [
        {"name": "s", "image": "busybox",
         "env": [{"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}}]}]})
    with pytest.raises(UserError) as caught:
        validate_workflow(sidecar, no_templates)
    assert caught.value.field == "spec.templates[0].sidecars[0].env[0].valueFrom.fieldRef.fieldPath"


def test_a_sidecar_sees_an_empty_dir_main_mounts_under_etc(engine: EngineRun) -> None:
    """The volumes filled for mount paths in a system folder reach every container of the pod that mounts them."""
    mount = f"/etc/handoff-{uuid.uuid4().hex[:12]}"
    main = {"name": "main", "volumes": [{"name": "handoff", "emptyDir": {}}],
            "container": {"image": "busybox", "command": ["sh", "-c", f"echo from-main > {mount}/x; sleep 2"],
                          "volumeMounts": [{"name": "handoff", "mountPath": mount}]},
            "sidecars": [{"name": "reader", "image": "busybox", "mirrorVolumeMounts": True,
                          "command": ["sh", "-c", f"sleep 1; cat {mount}/x"]}]}
    out = engine.run(wf(main))
    assert out["status"]["phase"] == "Succeeded", engine.log_text()
    assert "from-main" in engine.log_text() and not Path(mount).exists()
