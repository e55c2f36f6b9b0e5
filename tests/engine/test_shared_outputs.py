"""Output parameters read from a host folder nodes share (a pod's ``/etc/hosts``, as upstream's
dag-argument-passing reads), and what stays refused: unreadable, device and ``/proc`` files, and artifacts."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.pod import SHARED_OUTPUT_LIMIT, shared_readable
from tests.engine.conftest import EngineRun, nodes_by_display

HOSTS = Path("/etc/hosts")


def world_readable(path: Path) -> bool:
    return path.is_file() and bool(path.stat().st_mode & stat.S_IROTH) and path.stat().st_size <= SHARED_OUTPUT_LIMIT


def reads(outputs: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "shared"},
            "spec": {"entrypoint": "main", "templates": [
                {"name": "main", "container": {"image": "busybox", "command": ["sh", "-c", "true"]},
                 "outputs": outputs}]}}


def node(wf: dict[str, Any]) -> dict[str, Any]:
    [found] = nodes_by_display(wf)["shared"]
    return found


@pytest.mark.skipif(not world_readable(HOSTS), reason="this host has no world-readable /etc/hosts")
def test_output_parameter_from_a_shared_host_file(engine: EngineRun) -> None:
    wf = engine.run(reads({"parameters": [{"name": "hosts", "valueFrom": {"path": "/etc/hosts"}}]}))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    [param] = node(wf)["outputs"]["parameters"]
    assert param["value"] == HOSTS.read_text(errors="replace").removesuffix("\n")


@pytest.mark.skipif(not world_readable(HOSTS), reason="this host has no world-readable /etc/hosts")
def test_output_artifact_from_a_shared_host_folder_stays_refused(engine: EngineRun) -> None:
    wf = engine.run(reads({"artifacts": [{"name": "hosts", "path": "/etc/hosts"}]}))
    assert node(wf)["phase"] == "Error"
    assert "/etc/hosts is in a host folder the node shares read-only" in node(wf)["message"]


def test_only_world_readable_regular_files_of_shared_folders(tmp_path: Path) -> None:
    if world_readable(HOSTS):
        assert shared_readable(HOSTS)
    shadow = Path("/etc/shadow")
    if shadow.exists():
        assert not (shadow.stat().st_mode & stat.S_IROTH) and not shared_readable(shadow)
    assert not shared_readable(Path("/proc/self/status"))  # the engine's own process, not the node's
    mtab = Path("/etc/mtab")
    if mtab.is_symlink() and os.path.realpath(mtab).startswith("/proc/"):
        assert not shared_readable(mtab)  # links are followed: /etc/mtab is /proc/self/mounts
    assert not shared_readable(Path("/dev/null"))
    assert not shared_readable(Path("/etc"))  # a folder
    assert not shared_readable(tmp_path / "absent")
    mine = tmp_path / "mine.txt"
    mine.write_text("x")
    os.chmod(mine, 0o644)
    assert not shared_readable(mine)  # not under a shared host folder


def test_a_file_behind_a_closed_folder_is_not_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory() as made:
        base = Path(made)
        os.chmod(base, 0o755)
        monkeypatch.setattr("aipipe.engine.pod.SHARED_OUTPUT_TOPS", frozenset({base.parts[1]}))
        if not all(folder.stat().st_mode & stat.S_IXOTH for folder in base.parents):
            pytest.skip(f"{base.parent} is not world-searchable on this host")
        closed, opened = base / "closed", base / "opened"
        for folder, mode in ((closed, 0o700), (opened, 0o755)):
            folder.mkdir()
            (folder / "f.txt").write_text("x")
            os.chmod(folder / "f.txt", 0o644)
            os.chmod(folder, mode)
        assert shared_readable(opened / "f.txt")
        assert not shared_readable(closed / "f.txt")  # a node running as another user could not reach it
        big = opened / "big.txt"
        big.write_bytes(b"x" * (SHARED_OUTPUT_LIMIT + 1))
        os.chmod(big, 0o644)
        assert not shared_readable(big)
