"""``data`` templates: the artifact repository listed and transformed with expr-lang, as upstream's
examples/data-transformations.yaml (docs/data-sourcing-and-transformation.md) uses them to fan out over log files."""

from __future__ import annotations

from typing import Any

from tests.engine.conftest import EngineRun, nodes_by_display
from tests.fixtures_s3 import S3Server


def _writer(name: str, key: str) -> dict[str, Any]:
    return {"name": name, "script": {"image": "busybox", "command": ["sh"], "source": f"echo {name} > /tmp/out"},
            "outputs": {"artifacts": [{"name": "out", "path": "/tmp/out", "archive": {"none": {}},
                                       "s3": {"key": key}}]}}


def _workflow(data: dict[str, Any], fan_out: bool = True) -> dict[str, Any]:
    writers = [_writer("w1", "logs/a/main.log"), _writer("w2", "logs/b/main.log"), _writer("w3", "logs/b/other.txt"),
               _writer("w4", "logsx/main.log")]
    process = {"name": "process", "inputs": {"parameters": [{"name": "file-name"}],
                                             "artifacts": [{"name": "file", "path": "/file"}]},
               "script": {"image": "busybox", "command": ["sh"], "source": "echo {{inputs.parameters.file-name}}: "
                                                                             "$(cat /file)"}}
    steps = [[{"name": w["name"], "template": w["name"]} for w in writers],
             [{"name": "list", "template": "list"}]]
    if fan_out:  # each listed key read back as an artifact
        steps.append([{"name": "process", "template": "process", "withParam": "{{steps.list.outputs.result}}",
                       "arguments": {"parameters": [{"name": "file-name", "value": "{{item}}"}],
                                     "artifacts": [{"name": "file", "s3": {"key": "{{item}}"}}]}}])
    return {"metadata": {"name": "data-template"},
            "spec": {"entrypoint": "main", "templates": [{"name": "main", "steps": steps}, *writers,
                                                         {"name": "list", "data": data}, process]}}


def test_listed_keys_filtered_then_fanned_out(engine: EngineRun) -> None:
    wf = engine.run(_workflow({"source": {"artifactPaths": {"name": "logs", "s3": {"key": "logs"}}},
                               "transformation": [{"expression": 'filter(data, {# endsWith "main.log"})'}]}))
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    nodes = nodes_by_display(wf)
    assert nodes["list"][0]["outputs"]["result"] == '["logs/a/main.log","logs/b/main.log"]'  # not logsx/
    results = sorted(n["outputs"]["result"] for d, ns in nodes.items() if d.startswith("process(") for n in ns)
    assert results == ["logs/a/main.log: w1", "logs/b/main.log: w2"]


def test_transformations_chain_and_fail_with_argos_words(engine: EngineRun) -> None:
    chained = engine.run(_workflow({"source": {"artifactPaths": {"s3": {"key": "logs/b"}}}, "transformation": [
        {"expression": "map(data, {split(#, '/')[2]})"}, {"expression": "filter(data, {# != 'main.log'})"}]},
        fan_out=False))
    assert chained["status"]["phase"] == "Succeeded", chained["status"].get("message")
    assert nodes_by_display(chained)["list"][0]["outputs"]["result"] == '["other.txt"]'

    broken = engine.run(_workflow({"source": {"artifactPaths": {"s3": {"key": "logs"}}},
                                   "transformation": [{"expression": "data.missing("}]}, fan_out=False))
    [node] = nodes_by_display(broken)["list"]
    assert node["phase"] == "Failed"
    assert node["message"].startswith("unable to process data template: unable to process data transformation: "
                                      "error processing data step 0: ")
    no_source = engine.run(_workflow({"source": {}}, fan_out=False))
    assert nodes_by_display(no_source)["list"][0]["message"] == (
        "unable to process data template: unable to process data source: no valid source is used for data template")


def test_listing_an_s3_repository(engine: EngineRun, s3_server: S3Server) -> None:
    """The same fan-out with the repository in S3 (moto through the minio SDK): keys relative to its root."""
    engine.env.update(s3_server.env())
    wf = engine.run(_workflow({"source": {"artifactPaths": {"s3": {"key": "logs"}}},
                               "transformation": [{"expression": 'filter(data, {# endsWith "main.log"})'}]}),
                    artifact_root=s3_server.fresh_root())
    assert wf["status"]["phase"] == "Succeeded", wf["status"].get("message")
    assert nodes_by_display(wf)["list"][0]["outputs"]["result"] == '["logs/a/main.log","logs/b/main.log"]'
