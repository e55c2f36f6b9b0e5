"""An input artifact's ``mode`` (and ``recurseMode``) sets its permissions, as Argo's executor does."""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.conftest import EngineRun, nodes_by_display


def workflow(inputs: list[dict[str, Any]], command: str, steps: bool = False) -> dict[str, Any]:
    use = {"name": "use", "inputs": {"artifacts": inputs},
           "container": {"image": "alpine", "command": ["sh", "-c", command]}}
    make = {"name": "make", "container": {"image": "alpine", "command": [
        "sh", "-c", "mkdir -p /tmp/d/sub && echo 'echo nested ran' > /tmp/d/sub/run.sh"]},
        "outputs": {"artifacts": [{"name": "d", "path": "/tmp/d"}]}}
    main = {"name": "main", "steps": [[{"name": "make", "template": "make"}], [
        {"name": "use", "template": "use",
         "arguments": {"artifacts": [{"name": "d", "from": "{{steps.make.outputs.artifacts.d}}"}]}}]]}
    templates = [main, make, use] if steps else [use]
    return {"metadata": {"name": "mode"}, "spec": {"entrypoint": "main" if steps else "use",
                                                   "templates": templates}}


def test_raw_artifact_with_mode_is_executable(engine: EngineRun) -> None:
    art = {"name": "tool", "path": "/tmp/tool.sh", "mode": 0o755, "raw": {"data": "#!/bin/sh\necho tool ran\n"}}
    out = engine.run(workflow([art], "/tmp/tool.sh && stat -c %a /tmp/tool.sh"))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert engine.log_text().split() == ["tool", "ran", "755"]


def test_without_mode_a_raw_artifact_is_not_executable(engine: EngineRun) -> None:
    art = {"name": "tool", "path": "/tmp/tool.sh", "raw": {"data": "#!/bin/sh\necho tool ran\n"}}
    out = engine.run(workflow([art], "[ ! -x /tmp/tool.sh ]"))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")


@pytest.mark.parametrize(("recurse", "expect"), [(True, "nested ran"), (False, "not executable")])
def test_recurse_mode_reaches_files_in_a_folder(engine: EngineRun, recurse: bool, expect: str) -> None:
    art = {"name": "d", "path": "/tmp/in", "mode": 0o755, "recurseMode": recurse}
    out = engine.run(workflow([art], "/tmp/in/sub/run.sh 2>/dev/null || echo not executable", steps=True))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    assert nodes_by_display(out)["use"][0]["outputs"]["result"] == expect


def test_a_mode_that_is_no_file_mode_fails_the_node(engine: EngineRun) -> None:
    art = {"name": "tool", "path": "/tmp/tool.sh", "mode": "rwx", "raw": {"data": "x"}}
    out = engine.run(workflow([art], "true"))
    assert out["status"]["phase"] in ("Failed", "Error")
    assert "mode must be a file mode" in str(out["status"].get("message"))
