"""An export killed mid-upload leaves an unmarked dataset; the next run completes it, then marks it done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from aipipe.contract import DATASET_MANIFEST, SUCCESS_MARKER
from aipipe.storage import join
from steps.export_annotations import seed
from tests.fixtures_labelstudio import LabelStudioServer
from tests.fixtures_s3 import S3Server

REPO = Path(__file__).resolve().parents[1]
IMAGES = 16
KILL_AFTER = 6

# Runs the real step, but SIGKILLs the process right before its (KILL_AFTER+1)-th object upload.
KILLING_RUNNER = """
import os, runpy, signal, sys
from aipipe import storage
limit = int(os.environ["KILL_AFTER_UPLOADS"])
original = storage.Storage.put_file
def put_file(self, uri, src):
    if self.stats.uploads >= limit:
        os.kill(os.getpid(), signal.SIGKILL)
    return original(self, uri, src)
storage.Storage.put_file = put_file
sys.argv = ["steps.export_annotations", *sys.argv[1:]]
runpy.run_module("steps.export_annotations", run_name="__main__")
"""


def test_killed_upload_is_completed_by_the_next_run(label_studio: LabelStudioServer, s3_server: S3Server,
                                                    tmp_path: Path) -> None:
    seeded = seed.seed_project(label_studio.source(), images=IMAGES, title="resume test", size=24, seed=3)
    root = s3_server.fresh_root()
    env = {**os.environ, **label_studio.env(), **s3_server.env(root), "AIPIPE_HOME": str(tmp_path / "home"),
           "AIPIPE_OUTPUTS_DIR": str(tmp_path / "out"), "PYTHONPATH": str(REPO)}
    args = ["--project", str(seeded.id), "--retries", "2", "--backoff-seconds", "0.1"]
    killed = subprocess.run([sys.executable, "-c", KILLING_RUNNER, *args], env={**env, "KILL_AFTER_UPLOADS":
                            str(KILL_AFTER)}, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    storage = s3_server.storage()
    left = storage.list(root + "/")
    assert len(left) == KILL_AFTER and all("/images/" in uri for uri in left), left
    assert not any(uri.endswith((SUCCESS_MARKER, DATASET_MANIFEST, "latest.json")) for uri in left)

    done = subprocess.run([sys.executable, "-m", "steps.export_annotations", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    uri = (tmp_path / "out" / "dataset_uri").read_text()
    report = json.loads((tmp_path / "out" / "export-report.json").read_text())
    # the images still missing, classes.json, manifest.json, _SUCCESS, latest.json
    assert report["uploaded_objects"] == (IMAGES - KILL_AFTER) + 4
    manifest = json.loads(storage.get_text(join(uri, DATASET_MANIFEST)))
    images = [o for o in storage.list(uri + "/") if "/images/" in o]
    assert len(images) == len({r["sha256"] for r in manifest["items"]}) == IMAGES
    assert storage.exists(join(uri, SUCCESS_MARKER))
    assert set(left) <= set(images), "the images of the killed run were re-uploaded elsewhere"
