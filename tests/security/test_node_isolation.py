"""What a node sees and how its processes end (issue 11 §4–5, issue 12 §1), on the real engine.

Every test drives real runs through :class:`EngineService` (run store, driver, node runner, mount
namespaces, real processes) with an ``AIPIPE_HOME`` outside ``/tmp``, so the home is hidden from the
node by the engine itself and not merely by the node's private ``/tmp``; then it checks the stored
logs, the node's outputs and the host's filesystem and process table.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aipipe.config import load_config
from aipipe.engine.runners.local import NODE_ENV, end_leftovers
from aipipe.engine.secrets import MASK, SecretStore, StreamMasker, safe_tail
from aipipe.engine.service import EngineService

REPO = Path(__file__).resolve().parents[2]
FLUSH = 1 << 16


@pytest.fixture
def home() -> Iterator[Path]:
    """A home under /var/tmp: a host folder the node would see (read-only) unless the engine hides it."""
    path = Path(tempfile.mkdtemp(prefix="aipipe-iso-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _secret(home: Path, name: str, key: str, value: str) -> None:
    path = home / "secrets" / name / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value)


def _service(home: Path) -> EngineService:
    return EngineService(load_config(env={"AIPIPE_HOME": str(home)}))


def _workflow(name: str, source: str, *, env: list[dict[str, Any]] | None = None,
              security: dict[str, Any] | None = None, container_security: dict[str, Any] | None = None,
              image: str = "alpine:3") -> dict[str, Any]:
    script: dict[str, Any] = {"image": image, "command": ["sh"], "source": source, "env": env or []}
    if container_security:
        script["securityContext"] = container_security
    template: dict[str, Any] = {"name": "main", "script": script}
    if security:
        template["securityContext"] = security
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", "templates": [template]}}


def _run(home: Path, workflow: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Drive the run to its end; the main node and its whole stored log."""
    service = _service(home)
    done = service.drive(service.submit(workflow))
    node = next(n for n in done["status"]["nodes"].values() if n.get("type") == "Pod")
    log = "".join(chunk.content for chunk in service.store.read_logs(done["metadata"]["uid"]))
    return node, log


def _result(node: dict[str, Any]) -> str:
    return str(node.get("outputs", {}).get("result", ""))


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# ------------------------------------------------------------------------------------------- secret masking

def test_a_secret_split_between_chunks_is_never_emitted_in_part() -> None:
    """Every cut of the stream, at every position around the value: the emitted text holds no part of it."""
    value = "tok-" + secrets.token_hex(12)
    store = SecretStore(root=Path("/nonexistent"))
    store.remember(value)
    store.remember("abc-short")
    stream = (b"x" * 97 + value.encode() + b"\n" + b"y" * 50 + value.encode() + "é".encode() + value.encode())
    for cut in range(1, len(stream)):
        emitted: list[str] = []
        masker = StreamMasker(store, emitted.append, flush_at=64)
        masker.feed(stream[:cut])
        partial = "".join(emitted)
        masker.feed(stream[cut:])
        masker.close()
        text = "".join(emitted)
        assert value not in text and text.count(MASK) == 3, (cut, text)
        assert text.replace(MASK, "") == stream.decode().replace(value, ""), cut
        for size in range(4, len(value)):  # no emit may end with the start of the value
            assert not partial.endswith(value[:size]), (cut, size)


def test_secret_straddling_the_flush_boundary_is_masked_in_the_stored_log(home: Path) -> None:
    value = "S3cr3t-" + secrets.token_hex(16)
    _secret(home, "creds", "token", value)
    half = len(value) // 2
    # one line of 72 KiB with no newline before it: the value starts `half` bytes before the 64 KiB flush
    source = (f'head -c {FLUSH - half} /dev/zero | tr "\\0" a; printf "%s" "$TOKEN"; '
              'head -c 8000 /dev/zero | tr "\\0" b; echo; echo "tail $TOKEN"')
    env = [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}}]
    node, log = _run(home, _workflow("mask-flush", source, env=env))
    assert node["phase"] == "Succeeded", node
    assert len(log) >= 70 * 1024
    assert value not in log and value not in _result(node)
    assert value[:half] not in log and value[half:] not in log  # neither side of the cut leaks
    assert log.count(MASK) == 2
    stored = (home / "engine.db").read_bytes()
    assert value.encode() not in stored and value[:half].encode() + b"b" not in stored


# ------------------------------------------------------------------------------------------- what a node sees

def test_a_node_sees_only_its_own_secret_and_nothing_of_the_home(home: Path) -> None:
    value_a, value_b = "alpha-" + secrets.token_hex(8), "bravo-" + secrets.token_hex(8)
    _secret(home, "secret-a", "key", value_a)
    _secret(home, "secret-b", "key", value_b)
    (home / "server.token").write_text("server-token-" + secrets.token_hex(8))
    dotfile = Path.home() / f".aipipe-iso-credentials-{secrets.token_hex(4)}"  # like ~/.aws/credentials
    dotfile.write_text("charlie-" + secrets.token_hex(8))
    source = f"""
exec 2>&1
[ "$A" = "{value_a}" ] && echo "a: materialised"
cat "$AIPIPE_HOME/secrets/secret-b/key" || echo "b: unreadable"
ls "$AIPIPE_HOME/secrets" || echo "secrets: hidden"
test -e "$AIPIPE_HOME/engine.db" || echo "engine.db: hidden"
test -e "$AIPIPE_HOME/server.token" || echo "token: hidden"
grep -rl bravo- /proc/1/environ "$AIPIPE_HOME" 2>/dev/null || echo "grep: nothing"
cat ~/{dotfile.name} || echo "dotfile: hidden"
ls "$AIPIPE_HOME"
"""
    env = [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "secret-a", "key": "key"}}}]
    try:
        node, log = _run(home, _workflow("only-mine", source, env=env))
    finally:
        dotfile.unlink()
    result = _result(node)
    assert node["phase"] == "Succeeded", (node, log)
    for line in ("a: materialised", "b: unreadable", "secrets: hidden", "engine.db: hidden", "token: hidden",
                 "grep: nothing", "dotfile: hidden"):
        assert line in result, result
    assert value_b not in result and value_b not in log
    # what stays visible from the home is what the steps write: the storage root, cache, deployments, MLflow db
    assert set(result.split()[-4:]) == {"cache", "deployments", "mlflow.db", "store"}, result


def test_the_host_root_is_read_only_and_the_node_s_own_folders_are_writable(home: Path) -> None:
    marker = f"aipipe-iso-{secrets.token_hex(6)}"
    store_file = home / "store" / marker
    source = f"""
exec 2>&1
touch /usr/local/{marker}; echo "usr: $?"
echo x > "$AIPIPE_HOME/engine.db"; echo "engine.db: $?"
echo hi > /tmp/{marker} && cat /tmp/{marker}
echo out > "$AIPIPE_HOME/store/{marker}" && echo "store: ok"
mount -o remount,rw /usr 2>/dev/null; echo "remount: $?"
"""
    node, log = _run(home, _workflow("read-only", source))
    result = _result(node)
    assert node["phase"] == "Succeeded", (node, log)
    assert f"touch: cannot touch '/usr/local/{marker}': Read-only file system" in result
    assert "usr: 1" in result and "remount: 0" not in result
    assert not Path("/usr/local", marker).exists()
    assert "hi" in result and not Path("/tmp", marker).exists()  # the node's /tmp is its own
    assert "store: ok" in result and store_file.read_text() == "out\n"
    with (home / "engine.db").open("rb") as fh:  # the write went to the node's empty cover, not the run store
        assert fh.read(16) == b"SQLite format 3\x00"


def test_a_host_folder_outside_the_system_is_the_node_s_own_copy(home: Path) -> None:
    """As an image's filesystem is the container's: ``/opt`` (no system folder) is an overlay, so the node reads the
    host's files and writes its own changes, which never reach the host and go when the node ends. (``/var``, which
    holds this test's home and so the node's own folders, stays a read-only bind.)"""
    if not Path("/opt").is_dir():
        pytest.skip("this host has no /opt")
    marker = f"aipipe-layer-{secrets.token_hex(6)}"
    host_file = Path("/opt", marker)
    host_file.write_text("host\n")
    try:
        source = f"""
exec 2>&1
cat /opt/{marker}
echo node > /opt/{marker} && cat /opt/{marker}
mkdir /opt/{marker}-new && echo made > /opt/{marker}-new/f && cat /opt/{marker}-new/f
touch /var/tmp/{marker}-var || echo var read-only
"""
        node, log = _run(home, _workflow("layered", source))
        assert node["phase"] == "Succeeded", (node, log)
        assert _result(node).splitlines()[:3] == ["host", "node", "made"]
        assert _result(node).endswith("var read-only")
        assert host_file.read_text() == "host\n" and not Path("/opt", f"{marker}-new").exists()
        assert not Path("/var/tmp", f"{marker}-var").exists()
        assert not [p for p in home.rglob("layers/*") if p.is_dir()]  # the node's layer went with it
    finally:
        host_file.unlink()


def test_proc_is_writable_for_the_process_and_read_only_for_the_kernel_s_settings(home: Path) -> None:
    """As a container runtime leaves /proc (a read-only /proc makes CUDA's cuInit fail with 304)."""
    source = """
exec 2>&1
echo 500 > /proc/self/oom_score_adj; echo "oom_score_adj: $?"
echo 1 > /proc/sys/vm/drop_caches; echo "sys: $?"
echo h > /proc/sysrq-trigger; echo "sysrq: $?"
[ -e /proc/keys ] && echo "keys: $(wc -c < /proc/keys)"
"""
    node, log = _run(home, _workflow("proc-view", source))
    result = _result(node)
    assert node["phase"] == "Succeeded", (node, log)
    assert "oom_score_adj: 0" in result
    assert "sys: 0" not in result and "sysrq: 0" not in result
    assert "drop_caches: Read-only file system" in result
    if Path("/proc/keys").exists():
        assert "keys: 0" in result  # masked by /dev/null


def test_an_interpreter_under_tmp_stays_visible_to_nodes(home: Path, tmp_path: Path) -> None:
    """Issue 12: a venv under /tmp (hidden by the node's private /tmp) is bound back in, read-only."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(p for p in sys.path if p.endswith("site-packages"))
    driver = f"""
import sys
from aipipe.config import load_config
from aipipe.engine.service import EngineService
svc = EngineService(load_config(env={{"AIPIPE_HOME": {str(home)!r}}}))
wf = {{"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {{"name": "venv-tmp"}},
      "spec": {{"entrypoint": "main", "templates": [{{"name": "main", "script": {{"image": "python:3.11",
      "command": ["python3"], "source": "import sys; print(sys.prefix)"}}}}]}}}}
done = svc.drive(svc.submit(wf))
node = [n for n in done["status"]["nodes"].values() if n["type"] == "Pod"][0]
print(node["phase"], node.get("outputs", {{}}).get("result"))
"""
    out = subprocess.run([str(venv / "bin" / "python"), "-c", driver], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": f"{REPO}:{site}"}, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Succeeded", str(venv)], out.stdout


# ------------------------------------------------------------------------------------------- process trees

DRIVER = """
import sys
from aipipe.config import load_config
from aipipe.engine.service import EngineService
svc = EngineService(load_config(env={"AIPIPE_HOME": sys.argv[1]}))
wf = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "tree"},
      "spec": {"entrypoint": "main", "templates": [{"name": "main", "script": {"image": "alpine:3",
      "command": ["sh"], "source": sys.argv[2]}}]}}
svc.drive(svc.submit(wf))
"""
# the grandchild leaves the node's process group and session, as a daemon would
GRANDCHILD = 'setsid sh -c "sleep 600" & echo $! > "$AIPIPE_HOME/store/grandchild.pid"; sleep 600'


def _start_driver(home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", DRIVER, str(home), GRANDCHILD], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)


def _grandchild(home: Path) -> int:
    pid_file = home / "store" / "grandchild.pid"
    _wait_for(lambda: pid_file.is_file() and pid_file.read_text().strip(), 60, "the grandchild's pid file")
    pid = int(pid_file.read_text())
    assert not _gone(pid)
    return pid


def test_driver_kill_9_ends_the_grandchild(home: Path) -> None:
    driver = _start_driver(home)
    try:
        grandchild = _grandchild(home)
        # its own session (once setsid has run): a process-group kill would miss it
        _wait_for(lambda: os.getsid(grandchild) == grandchild, 10, "the grandchild's own session")
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(10)
        _wait_for(lambda: _gone(grandchild), 5, f"grandchild {grandchild} to end after the driver's kill -9")
        # the supervisor kills level by level (a killed shell's child is reparented to it, then killed)
        _wait_for(lambda: not _tagged_alive(b"/tree"), 5, "every process of the node to end")
    finally:
        _end(driver)


def test_end_leftovers_ends_a_tree_whose_supervisor_died_too(home: Path) -> None:
    """The driver and the node's supervisor both killed: resume's ``end_leftovers`` finds the tree by its tag,
    and spares a process an earlier run of the same name left on purpose (a serving instance)."""
    earlier = subprocess.Popen(["sleep", "600"], env={**os.environ, NODE_ENV: "an-earlier-run/tree"})
    time.sleep(3.5)  # node start times have a one-second resolution
    driver = _start_driver(home)
    try:
        grandchild = _grandchild(home)
        main = next(int(p) for p in os.listdir("/proc") if p.isdigit() and _tag(int(p)).endswith(b"/tree")
                    and _parent(_parent(int(p))) == driver.pid)
        supervisor = _parent(main)

        def recorded() -> bool:  # the driver stores the node's pid just after the start: wait for it under load
            nodes = (_service(home).store.find_workflow("tree").get("status") or {}).get("nodes") or {}
            return any(n.get("type") == "Pod" and n.get("pid") for n in nodes.values())

        _wait_for(recorded, 10, "the running node's record with its pid")
        # frozen first: a supervisor that sees its driver die ends the tree itself, which is not this case
        os.kill(supervisor, signal.SIGSTOP)
        os.kill(driver.pid, signal.SIGKILL)
        os.kill(supervisor, signal.SIGKILL)
        driver.wait(10)
        time.sleep(0.5)
        assert not _gone(grandchild)  # nobody was left to end it
        record = _service(home).store.find_workflow("tree")["status"]["nodes"]
        node = next(n for n in record.values() if n.get("type") == "Pod")
        assert node["phase"] == "Running" and node["pid"] == supervisor
        assert end_leftovers(node) >= 2  # the node's main process and the grandchild
        _wait_for(lambda: _gone(grandchild), 5, "end_leftovers to end the grandchild")
        assert earlier.poll() is None
    finally:
        _end(driver)
        earlier.kill()
        earlier.wait()


def _end(driver: subprocess.Popen[bytes]) -> None:
    if driver.poll() is None:
        driver.kill()
        driver.wait(10)


def _tag(pid: int) -> bytes:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return b""
    return next((item for item in environ if item.startswith(NODE_ENV.encode() + b"=")), b"")


def _tagged_alive(suffix: bytes) -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _tag(int(p)).endswith(suffix)
            and not _gone(int(p))]


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError):
        return -1


# ------------------------------------------------------------------------------------------- securityContext

def test_run_as_user_runs_as_nobody(home: Path) -> None:
    node, log = _run(home, _workflow("as-nobody", "id -u; id -g; touch /tmp/x /argo/y && echo writable",
                                     security={"runAsUser": 65534, "runAsGroup": 65534}))
    assert node["phase"] == "Succeeded", (node, log)
    assert _result(node).split() == ["65534", "65534", "writable"]


def test_container_level_run_as_user_wins_over_the_pod_level(home: Path) -> None:
    node, log = _run(home, _workflow("container-wins", "id -u", security={"runAsUser": 1000},
                                     container_security={"runAsUser": 65534, "allowPrivilegeEscalation": False}))
    assert node["phase"] == "Succeeded", (node, log)
    assert _result(node) == "65534"


def test_run_as_non_root_without_a_user_is_refused(home: Path) -> None:
    node, _ = _run(home, _workflow("non-root", "id -u", security={"runAsNonRoot": True}))
    assert node["phase"] == "Error"
    assert node["message"] == 'container has runAsNonRoot and image will run as root (pod: "non-root", ' \
                              'container: main)'
    node, _ = _run(home, _workflow("non-root-zero", "id -u", security={"runAsNonRoot": True, "runAsUser": 0}))
    assert node["phase"] == "Error" and "runAsUser breaks non-root policy" in node["message"]


def test_fs_group_joins_the_node_and_owns_its_volumes(home: Path) -> None:
    """As the kubelet: fsGroup is a supplementary group, and an emptyDir is group-owned, group-writable and setgid, so
    files made in it keep the group."""
    workflow = _workflow("fs-group", "id -G; stat -c '%g %A' /data; touch /data/f; stat -c %g /data/f",
                         security={"runAsUser": 65534, "runAsGroup": 65534, "fsGroup": 2345,
                                   "fsGroupChangePolicy": "OnRootMismatch"})
    template = workflow["spec"]["templates"][0]
    template["volumes"] = [{"name": "scratch", "emptyDir": {}}]
    template["script"]["volumeMounts"] = [{"name": "scratch", "mountPath": "/data"}]
    node, log = _run(home, workflow)
    assert node["phase"] == "Succeeded", (node, log)
    groups, folder, made = _result(node).splitlines()
    assert groups.split() == ["65534", "2345"]
    assert folder.startswith("2345 d") and folder.split()[1][4:7] == "rws" and made == "2345"
    node, _ = _run(home, _workflow("fs-policy", "id -u", security={"fsGroup": 1, "fsGroupChangePolicy": "Never"}))
    assert node["phase"] == "Error" and "fsGroupChangePolicy" in node["message"]


def test_fs_group_owns_a_claim_so_its_non_root_user_writes_there(home: Path) -> None:
    """As the kubelet's SetVolumeOwnership: a claim mounted under an fsGroup becomes that group's, files included,
    group-writable and setgid, so a user other than the one who wrote a file there may write it; with
    fsGroupChangePolicy OnRootMismatch a claim whose top folder already is so is left as it is."""
    def step(name: str, source: str, security: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"name": name, **({"securityContext": security} if security else {}), "script": {
            "image": "alpine:3", "command": ["sh"], "source": source,
            "volumeMounts": [{"name": "work", "mountPath": "/data"}]}}
    templates = [
        {"name": "main", "steps": [[{"name": n, "template": n}] for n in ("root", "member", "late", "skipped")]},
        step("root", "echo a > /data/f"),
        step("member", "echo b >> /data/f && stat -c '%g %a' /data/f", {"runAsUser": 8737, "fsGroup": 8737}),
        step("late", "echo c > /data/late"),
        step("skipped", "if echo d >> /data/late 2>/dev/null; then echo appended; else echo refused; fi",
             {"runAsUser": 8737, "fsGroup": 8737, "fsGroupChangePolicy": "OnRootMismatch"})]
    workflow = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "fs-claim"},
                "spec": {"entrypoint": "main", "templates": templates, "volumeClaimTemplates": [
                    {"metadata": {"name": "work"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                            "resources": {"requests": {"storage": "1Mi"}}}}]}}
    service = _service(home)
    done = service.drive(service.submit(workflow))
    assert done["status"]["phase"] == "Succeeded", done["status"].get("message")
    results = {n["displayName"]: _result(n) for n in done["status"]["nodes"].values() if n.get("type") == "Pod"}
    assert results["member"] == "8737 664" and results["skipped"] == "refused"


def test_a_security_setting_the_engine_cannot_honour_is_refused(home: Path) -> None:
    seccomp = {"seccompProfile": {"type": "RuntimeDefault"}}
    node, _ = _run(home, _workflow("seccomp", "id -u", container_security=seccomp))
    assert node["phase"] == "Error" and node["message"].startswith("container.securityContext.seccompProfile: ")
    assert "no seccomp profiles" in node["message"]
    node, _ = _run(home, _workflow("privileged", "id -u", container_security={"privileged": True}))
    assert node["phase"] == "Error" and "privileged" in node["message"]


@pytest.mark.parametrize("offset", range(0, 9))
def test_a_result_tail_never_starts_inside_a_secret(offset: int) -> None:
    """outputs.result keeps the last bytes of stdout: its start moves past a secret value it would cut, so the
    masking that follows cannot miss a secret's end."""
    secret = b"s3cr3t-value"
    buf = b"a" * offset + secret + b"tail-\xc3\xa9-end"
    keep = len(buf) - offset - 5  # a start inside the secret
    start = safe_tail(buf, [secret], keep)
    assert start == offset + len(secret)
    assert safe_tail(b"ab\xc3\xa9cd", [], 3) == 4  # no start inside a UTF-8 character (\xc3\xa9 is one)
