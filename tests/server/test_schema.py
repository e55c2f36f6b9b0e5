"""The packaged API definitions match ../shared/argo/swagger.json; request validation accepts what Argo accepts."""

from __future__ import annotations

import json
import re

import pytest

from aipipe.errors import UserError
from aipipe.server.schema import DEFINITIONS_FILE, PREFIX, validate_body

DROPPED_KEYS = {"description", "title", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
                "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key"}


def _strip(schema):
    if isinstance(schema, dict):
        return {k: ({p: _strip(v) for p, v in val.items()} if k == "properties" else _strip(val))
                for k, val in schema.items() if k not in DROPPED_KEYS}
    if isinstance(schema, list):
        return [_strip(x) for x in schema]
    return schema


def test_packaged_definitions_are_the_shared_swagger(shared_dir):
    definitions = json.loads((shared_dir / "argo" / "swagger.json").read_text())["definitions"]
    todo = [k for k in definitions if k.startswith(PREFIX) and "Request" in k] + [f"{PREFIX}Workflow"]
    reachable: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reachable:
            reachable.add(name)
            todo += re.findall(r"#/definitions/([^\"]+)", json.dumps(definitions[name]))
    expected = {k: _strip(definitions[k]) for k in reachable}
    assert json.loads(DEFINITIONS_FILE.read_text()) == expected


def _create(template: dict) -> dict:
    return {"workflow": {"metadata": {"generateName": "x-"}, "spec": {"entrypoint": "main",
                                                                      "templates": [template]}}}


def test_validation_accepts_integers_where_argo_does():
    validate_body("WorkflowCreateRequest", _create({
        "name": "main", "retryStrategy": {"limit": 3}, "activeDeadlineSeconds": 10,
        "script": {"source": "print(1)", "command": ["python"],
                   "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "1Gi"}}}}))


@pytest.mark.parametrize(("body", "field"), [
    (_create({"name": "main", "container": {"command": "not-a-list"}}), "workflow.spec.templates.0.container.command"),
    ({"workflow": {"metadata": {}, "spec": {"entrypoint": 3}}}, "workflow.spec.entrypoint"),
    ({"serverDryRun": "yes"}, "serverDryRun"),
])
def test_validation_names_the_field(body, field):
    with pytest.raises(UserError, match=re.escape(field)):
        validate_body("WorkflowCreateRequest", body)
