"""The embedded engine's bounds, names, paths, logs and resume rules (issue 11), on the real engine.

Each test drives real runs (the run store, the driver, the node runner, sqlite) and checks the
filesystem: nothing is created, read or deleted outside the run's ``AIPIPE_HOME``.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from aipipe.config import load_config
from aipipe.engine.archives import ArtifactError, safe_extract, safe_unzip
from aipipe.engine.bounds import MAX_DEPTH_MESSAGE, MAX_STACK_DEPTH
from aipipe.engine.context import default_context
from aipipe.engine.executor import WorkflowExecutor
from aipipe.engine.logs import dropped_line
from aipipe.engine.service import EngineService
from aipipe.errors import UserError
from aipipe.storage import join

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _service(home: Path, **env: str) -> EngineService:
    return EngineService(load_config(env={"AIPIPE_HOME": str(home), **env}))


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _nodes(workflow: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for node in workflow["status"]["nodes"].values():
        out.setdefault(node["displayName"], []).append(node)
    return out


# -- recursion and the node cap ----------------------------------------------------------------------------------------

SELF_CALLING = {
    "steps": "steps: [[{name: again, template: loop}]]",
    "dag": "dag: {tasks: [{name: again, template: loop}]}",
}


@pytest.mark.parametrize("kind", sorted(SELF_CALLING))
def test_self_calling_template_ends_error_at_depth_100(tmp_path: Path, kind: str) -> None:
    wf = yaml.safe_load(f"""
metadata: {{name: recurse-{kind}}}
spec:
  entrypoint: loop
  templates:
  - name: loop
    {SELF_CALLING[kind]}
""")
    service = _service(tmp_path / "home")
    threads, rss = threading.active_count(), _rss_mb()
    started = time.monotonic()
    final = service.drive(service.submit(wf, "argo"))
    elapsed = time.monotonic() - started
    assert final["status"]["phase"] == "Error"
    assert final["status"]["message"] == MAX_DEPTH_MESSAGE
    errored = [n for n in final["status"]["nodes"].values() if n["phase"] == "Error"]
    assert len(errored) == 1 and errored[0]["message"] == MAX_DEPTH_MESSAGE
    # the 101st nested call is refused: 100 template calls (plus a step group per level for steps)
    assert errored[0]["name"].count(".again") == MAX_STACK_DEPTH
    assert elapsed < 10, f"took {elapsed:.1f}s"
    assert threading.active_count() <= threads + 1, "the run's threads are gone"
    assert _rss_mb() - rss < 100
    stored = service.store.get_workflow("argo", f"recurse-{kind}")
    assert stored["status"]["phase"] == "Error"


def test_node_cap_ends_a_fan_out_quickly(tmp_path: Path) -> None:
    wf = yaml.safe_load("""
metadata: {name: fan-out}
spec:
  entrypoint: loop
  templates:
  - name: loop
    steps: [[{name: again, template: loop, withItems: [1, 2]}]]
""")
    service = _service(tmp_path / "home", AIPIPE_MAX_NODES="3000")
    threads, rss = threading.active_count(), _rss_mb()
    started = time.monotonic()
    final = service.drive(service.submit(wf, "argo"))
    elapsed = time.monotonic() - started
    assert final["status"]["phase"] == "Error"
    assert "more than 3000 nodes (engine.max_nodes)" in final["status"]["message"]
    assert len(final["status"]["nodes"]) <= 3000
    assert elapsed < 60, f"took {elapsed:.1f}s"
    assert threading.active_count() <= threads + 1
    assert _rss_mb() - rss < 400


def test_node_cap_refuses_a_huge_loop_before_it_starts(tmp_path: Path) -> None:
    marker = tmp_path / "home" / "ran"
    wf = yaml.safe_load(f"""
metadata: {{name: wide-loop}}
spec:
  entrypoint: main
  templates:
  - name: main
    steps: [[{{name: each, template: work, withSequence: {{count: "100000"}}}}]]
  - name: work
    container: {{image: busybox, command: [sh, -c, "touch {marker}"]}}
""")
    service = _service(tmp_path / "home", AIPIPE_MAX_NODES="50")
    started = time.monotonic()
    final = service.drive(service.submit(wf, "argo"))
    assert time.monotonic() - started < 10
    assert final["status"]["phase"] == "Error"
    assert "more than 50 nodes" in final["status"]["message"]
    assert len(final["status"]["nodes"]) <= 50
    assert not marker.exists(), "no node of the refused loop ran"


# -- names -------------------------------------------------------------------------------------------------------------

def _container_workflow(name: str) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", "templates": [
                {"name": "main", "container": {"image": "busybox", "command": ["sh", "-c", "echo hi"]}}]}}


def test_path_like_names_are_refused_and_touch_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep")
    home = tmp_path / "home"
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": str(REPO)}
    for name in (str(victim), "../../../../escape-test", "../../escape-test"):
        manifest = tmp_path / "wf.yaml"
        manifest.write_text(yaml.safe_dump(_container_workflow(name)))
        before = _tree(tmp_path)
        run = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "run", str(manifest)], env=env,
                             capture_output=True, text=True, timeout=120, check=False)
        assert run.returncode != 0
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
        assert f'metadata.name: Invalid value: "{name}"' in lines[0]
        after = _tree(tmp_path)
        assert {p for p in after - before if not p.startswith("home")} == set()
        assert before - after == set()
        assert (victim / "keep.txt").read_text() == "keep"
    service = _service(home)
    for name in (str(victim), "../../../../escape-test", "Upper", "a" * 254):
        with pytest.raises(UserError, match=r"metadata\.name: Invalid value"):
            service.submit(_container_workflow(name), "argo")
        with pytest.raises(UserError, match=r"metadata\.name: Invalid value"):
            WorkflowExecutor(_container_workflow(name), default_context(service.cfg, home / "runs" / "x"))
    for namespace in ("../x", "Bad NS", "a/b"):
        with pytest.raises(UserError, match=r"metadata\.namespace: Invalid value"):
            service.submit(_container_workflow("fine"), namespace)
    template = {"kind": "WorkflowTemplate", "metadata": {"name": "../../t"}, "spec": {"templates": []}}
    with pytest.raises(UserError, match="Invalid value"):
        service.register_templates([template])
    assert service.store.list_workflows() == []
    assert (victim / "keep.txt").read_text() == "keep"


# -- artifact keys and archives ----------------------------------------------------------------------------------------

def test_artifact_keys_with_dot_dot_stay_in_the_artifact_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    wf = yaml.safe_load("""
metadata: {name: keys}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: write-out, template: writer}
      - {name: read-out, template: reader}
      - {name: sub-out, template: sub-reader}
  - name: writer
    container: {image: busybox, command: [sh, -c, "echo data > /tmp/out.txt"]}
    outputs:
      artifacts:
      - {name: out, path: /tmp/out.txt, s3: {key: ../../escaped/out.tgz}}
  - name: reader
    inputs:
      artifacts:
      - {name: secret, path: /tmp/in.txt, archive: {none: {}}, s3: {key: ../../outside.txt}}
    container: {image: busybox, command: [sh, -c, "cat /tmp/in.txt"]}
  - name: sub-reader
    inputs:
      artifacts:
      - {name: secret, path: /tmp/in.txt, s3: {key: fine}, subPath: ../../../outside.txt}
    container: {image: busybox, command: [sh, -c, "cat /tmp/in.txt"]}
""")
    service = _service(home)
    before = _tree(tmp_path)
    final = service.drive(service.submit(wf, "argo"))
    nodes = _nodes(final)
    for step in ("write-out", "read-out", "sub-out"):
        node = nodes[step][0]
        assert node["phase"] == "Error", node
        assert "must not contain '..'" in node["message"], node["message"]
    assert "not yours" not in json.dumps(final)
    assert not (tmp_path / "escaped").exists() and not (home / "escaped").exists()
    assert {p for p in _tree(tmp_path) - before if not p.startswith("home")} == set()
    with pytest.raises(UserError, match=r"must not contain '\.\.'"):
        join((home / "store").as_uri(), "datasets/../../etc")


def _archive(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buf.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


BAD_ARCHIVES = {
    "dot-dot": [(_info("../evil.txt"), b"x")],
    "absolute": [(_info("/tmp/aipipe-abs-evil.txt"), b"x")],
    "symlink-out": [(_info("link", tarfile.SYMTYPE, "../../outside"), b"")],
    "symlink-absolute": [(_info("link", tarfile.SYMTYPE, "/etc"), b"")],
    "hardlink-out": [(_info("hl", tarfile.LNKTYPE, "../outside.txt"), b"")],
    "device": [(_info("dev", tarfile.CHRTYPE), b"")],
}


@pytest.mark.parametrize("case", sorted(BAD_ARCHIVES))
def test_archive_traversal_is_refused(tmp_path: Path, case: str) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    archive = tmp_path / "a.tgz"
    archive.write_bytes(_archive(*BAD_ARCHIVES[case]))
    with tarfile.open(archive, "r:gz") as tar, pytest.raises(ArtifactError):
        safe_extract(tar, dest)
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/aipipe-abs-evil.txt").exists()


@pytest.mark.parametrize("member", ["../evil.txt", "/tmp/aipipe-abs-evil.txt", "ok/../../evil.txt"])
def test_zip_traversal_is_refused(tmp_path: Path, member: str) -> None:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr(member, b"x")
    (tmp_path / "work").mkdir()
    with pytest.raises(ArtifactError, match="outside the artifact"):
        safe_unzip(archive, tmp_path / "work" / "dest")
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/aipipe-abs-evil.txt").exists()


CHECK_ON_SYSTEM_PYTHON = """
import sys, tarfile
from pathlib import Path
from aipipe.engine.archives import ArtifactError, safe_extract, safe_unzip
print("data_filter" if hasattr(tarfile, "data_filter") else "explicit-check")
for archive in sys.argv[2:]:
    dest = Path(sys.argv[1]) / (Path(archive).stem + "-dest")
    dest.mkdir()
    try:
        with tarfile.open(archive, "r:gz") as tar:
            safe_extract(tar, dest)
        print(Path(archive).stem, "extracted")
    except ArtifactError:
        print(Path(archive).stem, "refused")
"""


@pytest.mark.skipif(not SYSTEM_PYTHON.exists(), reason="no /usr/bin/python3 on this machine")
def test_archive_traversal_is_refused_by_the_system_python(tmp_path: Path) -> None:
    """Debian 12's python3 (3.11.2) has no tarfile filters: the explicit member check does the refusing."""
    archives = []
    for case, members in sorted(BAD_ARCHIVES.items()):
        archives.append(tmp_path / f"{case}.tgz")
        archives[-1].write_bytes(_archive(*members))
    good = tmp_path / "good.tgz"
    good.write_bytes(_archive((_info("dir/ok.txt"), b"ok"), (_info("dir/self", tarfile.SYMTYPE, "ok.txt"), b"")))
    run = subprocess.run([str(SYSTEM_PYTHON), "-c", CHECK_ON_SYSTEM_PYTHON, str(tmp_path), *map(str, archives),
                          str(good)], env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] in ("data_filter", "explicit-check")
    assert lines[1:] == [f"{case} refused" for case in sorted(BAD_ARCHIVES)] + ["good extracted"]
    assert (tmp_path / "good-dest" / "dir" / "ok.txt").read_text() == "ok"
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/aipipe-abs-evil.txt").exists()


def test_stored_archive_with_traversal_fails_the_node(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "artifacts").mkdir(parents=True)
    (home / "artifacts" / "evil.tgz").write_bytes(_archive((_info("../../../../evil.txt"), b"x")))
    wf = yaml.safe_load("""
metadata: {name: evil-archive}
spec:
  entrypoint: main
  templates:
  - name: main
    inputs:
      artifacts:
      - {name: data, path: /tmp/data, s3: {key: evil.tgz}}
    container: {image: busybox, command: [sh, -c, "ls /tmp/data"]}
""")
    service = _service(home)
    final = service.drive(service.submit(wf, "argo"))
    node = _nodes(final)["evil-archive"][0]
    assert node["phase"] == "Error" and "evil.txt" in node["message"], node
    assert list(tmp_path.rglob("evil.txt")) == []


# -- logs --------------------------------------------------------------------------------------------------------------

def test_node_log_is_capped_keeping_the_tail(tmp_path: Path) -> None:
    home = tmp_path / "home"
    wf = yaml.safe_load("""
metadata: {name: chatty}
spec:
  entrypoint: main
  templates:
  - name: main
    container:
      image: busybox
      command: [sh, -c, "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 31457280; echo; echo TAIL-END"]
""")
    service = _service(home)
    cap = int(service.cfg.get("engine.max_log_bytes"))
    assert cap == 10 * 1024 * 1024
    final = service.drive(service.submit(wf, "argo"))
    assert final["status"]["phase"] == "Succeeded"
    uid = final["metadata"]["uid"]
    chunks = service.store.read_logs(uid)
    text = "".join(c.content for c in chunks)
    assert len(text.encode()) <= cap
    assert text.endswith("TAIL-END\n")
    first = text.splitlines(keepends=True)[0]
    dropped = int(first.split()[1])
    assert first == dropped_line(dropped)
    assert 30 * 1024 * 1024 - cap <= dropped < 30 * 1024 * 1024 + len("\nTAIL-END\n")
    db_bytes = sum(p.stat().st_size for p in home.glob("engine.db*"))
    assert db_bytes < 3 * cap, f"the store holds {db_bytes} bytes"


def test_old_logs_of_finished_runs_are_pruned_at_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    wf = yaml.safe_load("""
metadata: {name: old-run}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: busybox, command: [sh, -c, "echo from the old run"]}
""")
    service = _service(home)
    done = service.drive(service.submit(wf, "argo"))
    unfinished = service.submit({**wf, "metadata": {"name": "still-pending"}}, "argo")
    service.store.append_log(unfinished["metadata"]["uid"], "n", "pending run's log\n")
    with sqlite3.connect(home / "engine.db") as db:  # forty days pass
        db.execute("UPDATE node_logs SET ts = ts - 40 * 86400")
    assert service.store.read_logs(done["metadata"]["uid"])
    _service(home, AIPIPE_LOG_RETENTION_DAYS="0")  # 0 keeps everything
    assert service.store.read_logs(done["metadata"]["uid"])
    _service(home)  # the default (30 days) prunes when a service starts
    assert service.store.read_logs(done["metadata"]["uid"]) == []
    assert [c.content for c in service.store.read_logs(unfinished["metadata"]["uid"])] == ["pending run's log\n"]


# -- resume ------------------------------------------------------------------------------------------------------------

RESUMABLE = """
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {{name: {name}}}
spec:
  entrypoint: main
  volumeClaimTemplates:
  - metadata: {{name: work}}
    spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Mi}}}}}}
  templates:
  - name: main
    steps:
    - - {{name: slow, template: slow}}
    - - {{name: after, template: after}}
  - name: slow
    {retry}
    container:
      image: busybox
      volumeMounts: [{{name: work, mountPath: /wv}}]
      command: [sh, -c, "echo run >> /wv/runs; [ -e /wv/slept ] || {{ touch /wv/slept; sleep 60.3; }}"]
  - name: after
    container:
      image: busybox
      volumeMounts: [{{name: work, mountPath: /wv}}]
      command: [sh, -c, "echo after >> /wv/after"]
"""


@pytest.mark.parametrize("retry", ["", "retryStrategy: {limit: 2}"], ids=["no-retry-strategy", "retry-strategy"])
def test_resume_reruns_the_interrupted_node_as_the_same_attempt(tmp_path: Path, retry: str) -> None:
    home = tmp_path / "home"
    name = "resume-no-retry" if not retry else "resume-retry"
    manifest = tmp_path / "wf.yaml"
    manifest.write_text(RESUMABLE.format(name=name, retry=retry))
    env = {**os.environ, "AIPIPE_HOME": str(home), "PYTHONPATH": str(REPO)}
    cli = [sys.executable, "-m", "aipipe.cli.main"]
    driver = subprocess.Popen([*cli, "run", str(manifest)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(home.glob("runs/*/volumes/work/slept")):
        assert time.monotonic() < deadline, "the slow node never started"
        assert driver.poll() is None, "the driver ended early"
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    volume = next(home.glob("runs/*/volumes/work"))
    resumed = subprocess.run([*cli, "run", "--resume", name], env=env, capture_output=True, text=True, timeout=120,
                             check=False)
    assert resumed.returncode == 0, resumed.stderr
    final = _service(home).store.get_workflow("argo", name)
    assert final["status"]["phase"] == "Succeeded"
    nodes = _nodes(final)
    attempt = "slow(0)" if retry else "slow"
    assert [n["phase"] for n in nodes[attempt]] == ["Succeeded"]
    assert "slow(1)" not in nodes, "the interrupted attempt was not counted as a retry"
    assert all(n["phase"] != "Error" for n in final["status"]["nodes"].values())
    assert (volume / "runs").read_text().splitlines() == ["run", "run"]
    assert (volume / "after").read_text().splitlines() == ["after"]


def test_container_paths_and_volume_sub_paths_stay_in_the_node(tmp_path: Path) -> None:
    home = tmp_path / "home"
    secret = tmp_path / "host-secret.txt"  # a host file: the node's /tmp is its own, the engine's is the host's
    secret.write_text("HOST-SECRET")
    wf = yaml.safe_load("""
metadata: {name: node-paths}
spec:
  entrypoint: main
  volumeClaimTemplates:
  - metadata: {name: work}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Mi}}}
  templates:
  - name: main
    steps:
    - - {name: dot-dot-input, template: dot-dot-input}
      - {name: host-input, template: host-input}
      - {name: sub-path, template: sub-path}
      - {name: host-output, template: host-output}
      - {name: link-output, template: link-output}
      - {name: link-folder-output, template: link-folder-output}
  - name: dot-dot-input
    inputs:  # a path only a parameter makes climbing: Argo's submit-time CleanPath sees no '..' in it
      parameters: [{name: up, value: "../../../../.."}]
      artifacts: [{name: a, path: "/tmp/{{inputs.parameters.up}}/escaped.txt", raw: {data: x}}]
    container: {image: busybox, command: [sh, -c, "true"]}
  - name: host-input
    inputs:
      artifacts: [{name: a, path: /etc/aipipe-escaped.txt, raw: {data: x}}]
    container: {image: busybox, command: [sh, -c, "true"]}
  - name: sub-path
    container:
      image: busybox
      command: [sh, -c, "true"]
      volumeMounts: [{name: work, mountPath: /wv, subPath: ../../../../escaped-volume}]
  - name: host-output
    container: {image: busybox, command: [sh, -c, "true"]}
    outputs:
      parameters: [{name: p, valueFrom: {path: /etc/shadow}}]  # not world-readable
  - name: link-output
    container: {image: busybox, command: [sh, -c, "ln -s SECRET /tmp/out"]}
    outputs:
      parameters: [{name: p, valueFrom: {path: /tmp/out}}]
  - name: link-folder-output
    container: {image: busybox, command: [sh, -c, "mkdir /tmp/d && ln -s SECRET /tmp/d/f"]}
    outputs:
      artifacts: [{name: d, path: /tmp/d, archive: {none: {}}}]
""".replace("SECRET", str(secret)))
    service = _service(home)
    before = _tree(tmp_path)
    final = service.drive(service.submit(wf, "argo"))
    nodes = _nodes(final)
    assert final["status"]["phase"] != "Succeeded"
    assert "must not contain '..'" in nodes["dot-dot-input"][0]["message"]
    assert "host folder" in nodes["host-input"][0]["message"]
    assert "must not contain '..'" in nodes["sub-path"][0]["message"]
    assert "host folder" in nodes["host-output"][0]["message"]
    assert "resolves outside" in nodes["link-output"][0]["message"]
    assert "links outside the artifact" in nodes["link-folder-output"][0]["message"]
    assert all(nodes[n][0]["phase"] == "Error" for n in ("dot-dot-input", "host-input", "sub-path", "host-output",
                                                         "link-output", "link-folder-output"))
    assert "HOST-SECRET" not in json.dumps(final)
    assert not (nodes["host-output"][0].get("outputs") or {}).get("parameters")
    assert not Path("/etc/aipipe-escaped.txt").exists()
    assert {p for p in _tree(tmp_path) - before if not p.startswith("home")} == set()
    assert list(tmp_path.rglob("escaped*")) == []
