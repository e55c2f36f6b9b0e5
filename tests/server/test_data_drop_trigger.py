"""The data-drop trigger against the moto S3 server: ``aipipe triggers watch`` posts S3 event
notifications to a real ``aipipe server``, whose WorkflowEventBinding (from cron/data_drop.py) starts the
retrain (a stand-in template) once per new object, and never again for the same ETag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aipipe.storage import join
from cron import data_drop
from tests.fixtures_s3 import S3Server
from tests.server.conftest import REPO_ROOT, ServerProcess
from tests.server.test_triggers_api import apply_binding, runs, settle, stand_in_template

NS = "argo"


def watch_once(server: ServerProcess, s3: S3Server, root: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **s3.env(root), "AIPIPE_HOME": str(server.home), "ARGO_SERVER": server.url}
    env.pop("ARGO_TOKEN", None)  # the CLI finds the local server's token file by itself
    result = subprocess.run([sys.executable, "-m", "aipipe.cli.main", "triggers", "watch", "--once"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def test_a_new_object_under_the_prefix_starts_one_run(server: ServerProcess, s3_server: S3Server) -> None:
    root = s3_server.fresh_root()
    cfg = s3_server.config(root)
    stand_in_template(server)
    apply_binding(server, data_drop.event_binding(cfg))
    storage = s3_server.storage()
    storage.put_bytes(join(root, "models", "not-a-drop.bin"), b"elsewhere")  # outside the prefix
    assert "posted" not in watch_once(server, s3_server, root).stdout
    storage.put_bytes(join(root, "incoming", "batch-1", "images.tar"), b"first drop")
    assert "posted 1 new object(s)" in watch_once(server, s3_server, root).stdout
    (run,) = settle(server, 1)
    assert run["metadata"]["labels"]["aipipe.io/trigger"] == "data-drop"
    assert run["spec"]["workflowTemplateRef"] == {"name": "aipipe-retrain"}
    # a fresh watcher posts the object again: the server knows its ETag and starts nothing
    assert "posted 1 new object(s)" in watch_once(server, s3_server, root).stdout
    # putting the same bytes again (the same ETag) starts nothing either
    storage.put_bytes(join(root, "incoming", "batch-1", "images.tar"), b"first drop")
    watch_once(server, s3_server, root)
    assert len(settle(server, 1)) == 1
    storage.put_bytes(join(root, "incoming", "batch-1", "images.tar"), b"replaced: a new ETag")
    watch_once(server, s3_server, root)
    assert len(settle(server, 2)) == 2
    assert len(runs(server, "aipipe.io/trigger=data-drop")) == 2


def test_file_root_watcher(server: ServerProcess, tmp_path: Path, s3_server: S3Server) -> None:
    """A ``file://`` storage root: the same events (bucket ``local``, keys relative to the root)."""
    root = (tmp_path / "store").as_uri()
    stand_in_template(server)
    apply_binding(server, data_drop.event_binding(s3_server.config(root)))
    drop = tmp_path / "store" / "incoming" / "a.csv"
    drop.parent.mkdir(parents=True)
    drop.write_text("x,y\n1,2\n")
    assert "posted 1 new object(s)" in watch_once(server, s3_server, root).stdout
    assert len(settle(server, 1)) == 1
    watch_once(server, s3_server, root)
    assert len(settle(server, 1, wait=2.0)) == 1
