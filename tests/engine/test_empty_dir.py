"""One emptyDir mounted more than once (and with ``subPath``) shows the same files at every mount, as in a pod;
two emptyDirs stay apart."""

from __future__ import annotations

from typing import Any

from tests.engine.conftest import EngineRun


def run(engine: EngineRun, mounts: list[dict[str, Any]], script: str,
        volumes: tuple[str, ...] = ("scratch",)) -> dict[str, Any]:
    tmpl = {"name": "main", "volumes": [{"name": v, "emptyDir": {}} for v in volumes],
            "container": {"image": "alpine", "command": ["sh", "-c", script], "volumeMounts": mounts}}
    return engine.run({"metadata": {"name": "ed"}, "spec": {"entrypoint": "main", "templates": [tmpl]}})


def test_a_sub_path_mount_sees_the_folder_of_the_whole_mount(engine: EngineRun) -> None:
    out = run(engine, [{"name": "scratch", "mountPath": "/whole"},
                       {"name": "scratch", "mountPath": "/part", "subPath": "a/b"}],
              "echo one > /part/f && [ \"$(cat /whole/a/b/f)\" = one ] && echo two > /whole/a/b/g && cat /part/g")
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert engine.log_text().strip() == "two"


def test_sub_path_mounts_alone_share_one_volume(engine: EngineRun) -> None:
    out = run(engine, [{"name": "scratch", "mountPath": "/x", "subPath": "s"},
                       {"name": "scratch", "mountPath": "/y", "subPath": "s"}],
              "echo shared > /x/f && cat /y/f")
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert engine.log_text().strip() == "shared"


def test_two_empty_dirs_stay_apart(engine: EngineRun) -> None:
    out = run(engine, [{"name": "one", "mountPath": "/one"}, {"name": "two", "mountPath": "/two"}],
              "echo a > /one/f && [ ! -e /two/f ]", volumes=("one", "two"))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")


def test_a_sub_path_mount_inside_the_whole_mount_is_that_folder(engine: EngineRun) -> None:
    out = run(engine, [{"name": "scratch", "mountPath": "/data"},
                       {"name": "scratch", "mountPath": "/data/inner", "subPath": "inner"}],
              "echo in > /data/inner/f && [ -d /data/inner ] && [ ! -L /data/inner ] && cat /data/inner/f")
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert engine.log_text().strip() == "in"
