"""Artifacts in an S3 artifact repository (moto through the minio SDK) instead of the local default."""

from __future__ import annotations

import json

import yaml

from tests.conftest import SHARED_DIR
from tests.engine.conftest import EngineRun, nodes_by_display
from tests.fixtures_s3 import S3Server

CORPUS = SHARED_DIR / "argo" / "conformance"


def _run(engine: EngineRun, s3_server: S3Server, name: str) -> tuple[dict, str]:
    engine.env.update(s3_server.env())
    root = s3_server.fresh_root()
    workflow = yaml.safe_load((CORPUS / name).read_text())
    workflow["metadata"]["name"] = workflow["metadata"]["generateName"] + "s3"
    return engine.run(workflow, artifact_root=root), root


def test_map_reduce_with_s3_repository(engine: EngineRun, s3_server: S3Server) -> None:
    out, root = _run(engine, s3_server, "examples__map-reduce.yaml")
    assert out["status"]["phase"] == "Succeeded"
    storage = s3_server.storage()
    name = out["metadata"]["name"]
    assert json.loads(storage.get_text(f"{root}/{name}/total.json")) == {"total": 20}
    assert len(storage.list(f"{root}/{name}/parts/")) == 4
    assert not (engine.home / "artifacts").exists(), "nothing goes to the local default repository"


def test_directory_and_subpath_with_s3_repository(engine: EngineRun, s3_server: S3Server) -> None:
    out, _ = _run(engine, s3_server, "examples__artifact-passing-subpath.yaml")
    assert out["status"]["phase"] == "Succeeded"
    nodes = nodes_by_display(out)
    assert nodes["consume-artifact"][0]["outputs"]["result"] == "hello world"
