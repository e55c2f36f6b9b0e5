"""Local ConfigMaps (``AIPIPE_HOME/configmaps/<name>/<key>``) in env, envFrom and volumes; emptyDir folders; secret
volume items and optional."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.configmaps import ConfigMapStore
from aipipe.errors import UserError
from tests.engine.conftest import EngineRun, nodes_by_display


def put(home: Path, name: str, **keys: str) -> None:
    folder = home / "configmaps" / name
    folder.mkdir(parents=True, exist_ok=True)
    for key, value in keys.items():
        (folder / key.replace("_", ".")).write_text(value)


def one_pod(script: str, volumes: list[dict[str, Any]] | None = None, **container: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "cm"},
            "spec": {"entrypoint": "main", "templates": [
                {"name": "main", **({"volumes": volumes} if volumes else {}),
                 "container": {"image": "busybox", "command": ["sh", "-c", script], **container}}]}}


def pod(wf: dict[str, Any]) -> dict[str, Any]:
    [node] = nodes_by_display(wf)["cm"]
    return node


def test_env_value_from_config_map_key(engine: EngineRun) -> None:
    put(engine.home, "settings", color="blue\n", size="xl")
    wf = engine.run(one_pod('echo "$COLOR/$SIZE/${GONE-unset}"', env=[
        {"name": "COLOR", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "color"}}},
        {"name": "SIZE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "size"}}},
        {"name": "GONE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "nope", "optional": True}}},
    ]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"] == "blue/xl/unset"


def test_missing_required_config_map_key_errors_the_node_and_says_where(engine: EngineRun) -> None:
    put(engine.home, "settings", color="blue")
    wf = engine.run(one_pod("echo never", env=[
        {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "shape"}}}]))
    node = pod(wf)
    assert wf["status"]["phase"] == "Error" and node["phase"] == "Error"
    assert "configmap 'settings' has no key 'shape'" in node["message"]
    assert str(engine.home / "configmaps" / "settings" / "shape") in node["message"]


def test_env_from_config_map_with_prefix_and_optional(engine: EngineRun) -> None:
    put(engine.home, "app", mode="fast", level="3")
    wf = engine.run(one_pod('echo "$APP_mode $APP_level $level ${x-none}"', envFrom=[
        {"configMapRef": {"name": "app"}, "prefix": "APP_"},
        {"configMapRef": {"name": "app"}},
        {"configMapRef": {"name": "absent", "optional": True}},
    ], env=[{"name": "level", "value": "env wins"}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"] == "fast 3 env wins none"


def test_env_from_missing_config_map_errors(engine: EngineRun) -> None:
    wf = engine.run(one_pod("echo never", envFrom=[{"configMapRef": {"name": "absent"}}]))
    assert pod(wf)["phase"] == "Error"
    assert "envFrom[0].configMapRef: configmap 'absent' not found" in pod(wf)["message"]


def test_config_map_volume_all_keys_read_only(engine: EngineRun) -> None:
    put(engine.home, "files", a_txt="alpha\n", b_txt="beta")
    script = "cat /config/a.txt /config/b.txt; echo; ls /config | tr '\\n' ' '; " \
             "if touch /config/new 2>/dev/null; then echo writable; else echo read-only; fi"
    wf = engine.run(one_pod(script, volumes=[{"name": "cfg", "configMap": {"name": "files"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": "/config"}],
                            securityContext={"runAsUser": 1000, "runAsGroup": 1000}))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"] == "alpha\nbeta\na.txt b.txt read-only"
    # the node's folder can be removed afterwards (the read-only folder is unlocked)
    leftover = [p for p in (engine.home / "runs").rglob("config") if p.is_dir()]
    assert leftover and all(p.stat().st_mode & 0o200 for p in leftover)


def test_read_only_volumes_are_read_only_mounts_even_for_root(engine: EngineRun) -> None:
    """ConfigMap volumes and readOnly mounts are mounted read-only (root cannot write them either); a claim
    mounted without readOnly stays writable."""
    put(engine.home, "files", a_txt="alpha")
    probe = "if touch {0}/x 2>/dev/null; then echo {0}=rw; else echo {0}=ro; fi; "
    wf = engine.run(one_pod("id -u; " + "".join(probe.format(p) for p in ("/config", "/data", "/logs")),
                            volumes=[{"name": "cfg", "configMap": {"name": "files"}},
                                     {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                                     {"name": "logs", "persistentVolumeClaim": {"claimName": "logs"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": "/config"},
                                          {"name": "data", "mountPath": "/data", "readOnly": True},
                                          {"name": "logs", "mountPath": "/logs"}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"].split() == ["0", "/config=ro", "/data=ro", "/logs=rw"]


def test_config_map_volume_items_and_sub_path(engine: EngineRun) -> None:
    put(engine.home, "files", a_txt="alpha", b_txt="beta")
    volume = {"name": "cfg", "configMap": {"name": "files", "items": [{"key": "b.txt", "path": "conf/renamed"}]}}
    wf = engine.run(one_pod("ls -R /config | tr '\\n' ' '; echo; cat /config/conf/renamed; echo; cat /app/one.txt",
                            volumes=[volume, {"name": "whole", "configMap": {"name": "files"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": "/config"},
                                          {"name": "whole", "mountPath": "/app/one.txt", "subPath": "a.txt"}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    listing, renamed, one = pod(wf)["outputs"]["result"].split("\n")
    assert "renamed" in listing and "a.txt" not in listing and "b.txt" not in listing
    assert (renamed, one) == ("beta", "alpha")


def test_optional_config_map_volume_is_an_empty_folder(engine: EngineRun) -> None:
    wf = engine.run(one_pod("ls -a /config | wc -l", volumes=[
        {"name": "cfg", "configMap": {"name": "absent", "optional": True}}],
        volumeMounts=[{"name": "cfg", "mountPath": "/config"}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"].strip() == "2"  # . and ..


def test_missing_config_map_volume_errors(engine: EngineRun) -> None:
    wf = engine.run(one_pod("echo never", volumes=[{"name": "cfg", "configMap": {"name": "absent"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": "/config"}]))
    assert pod(wf)["phase"] == "Error"
    assert "volumes.cfg.configMap: configmap 'absent' not found" in pod(wf)["message"]


def test_volumes_mount_in_system_folders_without_touching_the_host(engine: EngineRun) -> None:
    """A secret, a configMap (whole and one key by subPath) and an emptyDir mounted under /etc and /run, as a pod's
    image has folders of its own there: the node reads and writes them, the host's files show around them, the rest
    of /etc stays read-only, a secret stays read-only, and nothing is made in the host's folders."""
    put(engine.home, "app", settings_ini="[x]\na=1\n")
    (engine.home / "secrets" / "creds").mkdir(parents=True)
    (engine.home / "secrets" / "creds" / "token").write_text("s3cr3t-value")
    tag = uuid.uuid4().hex[:12]
    script = (f"test \"$(cat /etc/creds-{tag}/token)\" = s3cr3t-value && grep -q a=1 /etc/app-{tag}/settings.ini && "
              f"grep -q a=1 /etc/one-{tag}.ini && echo hi > /run/scratch-{tag}/x && cat /run/scratch-{tag}/x && "
              f"test -s /etc/hostname && ! touch /etc/creds-{tag}/new 2>/dev/null && "
              f"! touch /etc/new-{tag} 2>/dev/null && echo all-good")
    wf = engine.run(one_pod(script, volumes=[
        {"name": "creds", "secret": {"secretName": "creds"}}, {"name": "cfg", "configMap": {"name": "app"}},
        {"name": "scratch", "emptyDir": {}}], volumeMounts=[
        {"name": "creds", "mountPath": f"/etc/creds-{tag}"}, {"name": "cfg", "mountPath": f"/etc/app-{tag}"},
        {"name": "cfg", "mountPath": f"/etc/one-{tag}.ini", "subPath": "settings.ini"},
        {"name": "scratch", "mountPath": f"/run/scratch-{tag}"}]))
    assert wf["status"]["phase"] == "Succeeded", (wf["status"].get("message"), engine.log_text())
    assert pod(wf)["outputs"]["result"].split() == ["hi", "all-good"]
    assert not [p for p in (Path("/etc"), Path("/run")) for p in p.glob(f"*{tag}*")]


def test_a_claim_under_etc_is_shared_between_steps(engine: EngineRun) -> None:
    mount = f"/etc/shared-{uuid.uuid4().hex[:12]}"
    wf = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "cm"}, "spec": {
        "entrypoint": "main", "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}],
        "templates": [
            {"name": "main", "steps": [[{"name": "put", "template": "put"}], [{"name": "get", "template": "get"}]]},
            {"name": "put", "container": {"image": "busybox", "command": ["sh", "-c", f"echo kept > {mount}/x"],
                                          "volumeMounts": [{"name": "data", "mountPath": mount}]}},
            {"name": "get", "container": {"image": "busybox", "command": ["cat", f"{mount}/x"],
                                          "volumeMounts": [{"name": "data", "mountPath": mount}]}}]}}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert nodes_by_display(out)["get"][0]["outputs"]["result"] == "kept"
    assert not Path(mount).exists()


@pytest.mark.parametrize("mount_path", ["/proc/cfg", "/sys/cfg", *(["/bin/cfg"] if Path("/bin").is_symlink() else [])])
def test_a_volume_under_proc_sys_or_a_linked_folder_is_refused(engine: EngineRun, mount_path: str) -> None:
    put(engine.home, "files", a_txt="alpha")
    wf = engine.run(one_pod("echo never", volumes=[{"name": "cfg", "configMap": {"name": "files"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": mount_path}]))
    assert pod(wf)["phase"] == "Error"
    assert f"volumeMounts.cfg.mountPath: {mount_path} is in a host folder the node cannot mount a volume in" in pod(
        wf)["message"]


@pytest.mark.parametrize("mount_path", ["/etc/../tmp/x", "relative/cfg"])
def test_a_mount_path_must_be_absolute_without_dot_dot(engine: EngineRun, mount_path: str) -> None:
    put(engine.home, "files", a_txt="alpha")
    wf = engine.run(one_pod("echo never", volumes=[{"name": "cfg", "configMap": {"name": "files"}}],
                            volumeMounts=[{"name": "cfg", "mountPath": mount_path}]))
    assert pod(wf)["phase"] == "Error"
    assert f"volumeMounts.cfg.mountPath: {mount_path!r} must be an absolute path without '..'" in pod(wf)["message"]


def test_empty_dir_is_an_empty_writable_folder_of_each_node(engine: EngineRun) -> None:
    """Argo mounts an emptyDir at its mountPath even when nothing made the folder; each pod has its own."""
    wf = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "cm"},
          "spec": {"entrypoint": "main", "volumes": [{"name": "scratch", "emptyDir": {}}], "templates": [
              {"name": "main", "steps": [[{"name": "one", "template": "use"}], [{"name": "two", "template": "use"}]]},
              {"name": "use", "container": {
                  "image": "busybox", "command": ["sh", "-c", "ls -a /work/deep/scratch | wc -l; "
                                                  "echo x > /work/deep/scratch/file"],
                  "volumeMounts": [{"name": "scratch", "mountPath": "/work/deep/scratch"}]}}]}}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    nodes = nodes_by_display(out)
    assert [n["outputs"]["result"].strip() for name in ("one", "two") for n in nodes[name]] == ["2", "2"]


@pytest.mark.parametrize(("name", "key"), [("../up", "k"), ("Upper", "k"), ("ok", "../k"), ("ok", "a/b")])
def test_store_refuses_bad_names_and_keys(tmp_path: Path, name: str, key: str) -> None:
    with pytest.raises(UserError, match="invalid ConfigMap"):
        ConfigMapStore(tmp_path).get(name, key)


def test_secret_volume_items_and_optional(engine: EngineRun) -> None:
    folder = engine.home / "secrets" / "creds"
    folder.mkdir(parents=True)
    (folder / "user").write_text("alice")
    (folder / "token").write_text("s3cr3t-value")
    script = ("ls -R /creds | tr '\\n' ' '; echo; test \"$(cat /creds/sub/name)\" = alice && echo match; "
              "ls -a /none | wc -l")
    wf = engine.run(one_pod(script,
                            volumes=[{"name": "c", "secret": {"secretName": "creds",
                                                               "items": [{"key": "user", "path": "sub/name"}]}},
                                     {"name": "n", "secret": {"secretName": "absent", "optional": True}}],
                            volumeMounts=[{"name": "c", "mountPath": "/creds"}, {"name": "n", "mountPath": "/none"}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    listing, name, count = pod(wf)["outputs"]["result"].split("\n")
    assert "token" not in listing and "user" not in listing and "name" in listing
    assert (name, count.strip()) == ("match", "2")


def test_secret_volume_missing_item_key_errors(engine: EngineRun) -> None:
    (engine.home / "secrets" / "creds").mkdir(parents=True)
    wf = engine.run(one_pod("echo never", volumes=[{"name": "c", "secret": {
        "secretName": "creds", "items": [{"key": "gone"}]}}], volumeMounts=[{"name": "c", "mountPath": "/creds"}]))
    assert pod(wf)["phase"] == "Error"
    assert "volumes.c.secret.items[0].key: secret 'creds' has no key 'gone'" in pod(wf)["message"]


def test_secret_files_go_when_another_volume_fails(engine: EngineRun) -> None:
    folder = engine.home / "secrets" / "creds"
    folder.mkdir(parents=True)
    (folder / "token").write_text("s3cr3t-value")
    wf = engine.run(one_pod("echo never", volumes=[{"name": "c", "secret": {"secretName": "creds"}},
                                                    {"name": "m", "configMap": {"name": "absent"}}],
                            volumeMounts=[{"name": "c", "mountPath": "/creds"}, {"name": "m", "mountPath": "/cfg"}]))
    assert pod(wf)["phase"] == "Error" and "configmap 'absent' not found" in pod(wf)["message"]
    assert list((engine.home / "runs").rglob("creds")) and not list((engine.home / "runs").rglob("token"))


def test_secret_keys_follow_kubernetes_rules(engine: EngineRun, tmp_path: Path) -> None:
    """A key may start with a dot (`.dockerconfigjson`, the key of a registry Secret); '..x' and '/' may not."""
    folder = engine.home / "secrets" / "registry"
    folder.mkdir(parents=True)
    (folder / ".dockerconfigjson").write_text('{"auths": {}}')
    script = "cat /auth/config.json; echo; echo \"$CONF\""
    wf = engine.run(one_pod(script, volumes=[{"name": "r", "secret": {
        "secretName": "registry", "items": [{"key": ".dockerconfigjson", "path": "config.json"}]}}],
        volumeMounts=[{"name": "r", "mountPath": "/auth"}],
        env=[{"name": "CONF", "valueFrom": {"secretKeyRef": {"name": "registry", "key": ".dockerconfigjson"}}}]))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert pod(wf)["outputs"]["result"] == "[redacted]\n[redacted]", "both read, and masked as secrets are"
    from aipipe.engine.secrets import SecretStore

    for key in ("..hidden", "a/b", ".", ""):
        with pytest.raises(UserError, match="invalid secret reference"):
            SecretStore(tmp_path).get("registry", key)


def test_artifact_repository_ref_to_a_missing_config_map_errs_the_run_before_any_node(engine: EngineRun) -> None:
    wf = one_pod("echo never")
    wf["spec"]["artifactRepositoryRef"] = {"configMap": "team-repo", "key": "s3-v1"}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Error"
    assert out["status"]["message"] == "failed to resolve artifact repository: configmap 'team-repo' not found"
    assert not out["status"].get("nodes")
    put(engine.home, "team-repo", other="x")
    out = engine.run(wf)
    assert out["status"]["message"] == "failed to resolve artifact repository: configmap 'team-repo' has no key 's3-v1'"
    put(engine.home, "team-repo", **{"s3-v1": "s3: {bucket: team}"})
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
