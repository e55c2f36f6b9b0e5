"""HAMi's ``nvidia.com/priority`` as a node's place in the GPU queue, and the pool's settings as config keys.

Real runs on a pinned (synthetic) GPU inventory: a node that sets HAMi's high class goes ahead of a node of a
workflow with a higher ``spec.priority`` that sets HAMi's low class (the node's own setting wins).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aipipe.engine.context import pool_policy
from aipipe.engine.gpu import detect_inventory, gpu_request, request_problem
from aipipe.engine.gpupool import pool_report
from aipipe.errors import UserError
from tests.engine.concurrency import executor, in_thread, pin, wait_for

NS = "argo"
SOURCE = "import time\nstart = time.time()\ntime.sleep({seconds})\nprint(start, time.time())\n"


def template(limits: dict[str, Any]) -> dict[str, Any]:
    return {"name": "work", "script": {"image": "python:alpine3.23", "command": ["python"], "source": "pass",
                                       "resources": {"limits": limits}}}


def workflow(name: str, seconds: float, limits: dict[str, Any], priority: int) -> dict[str, Any]:
    work = template(limits)
    work["script"]["source"] = SOURCE.format(seconds=seconds)
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": "main", "priority": priority,
                     "templates": [{"name": "main", "steps": [[{"name": "n", "template": "work"}]]}, work]}}


@pytest.mark.parametrize("raw, expected", [(0, 1), ("0", 1), (1, 0), ("5", 0)])
def test_hamis_classes_map_to_pool_priorities(raw: Any, expected: int) -> None:
    request = gpu_request(template({"nvidia.com/gpu": 1, "nvidia.com/gpumem": 4096, "nvidia.com/priority": raw}))
    assert request is not None and request.priority == expected
    whole = gpu_request(template({"nvidia.com/gpu": 1, "nvidia.com/priority": raw}))
    assert whole is not None and whole.priority == expected


def test_without_hamis_priority_the_workflow_decides() -> None:
    request = gpu_request(template({"nvidia.com/gpu": 1}))
    assert request is not None and request.priority is None


@pytest.mark.parametrize("raw", ["high", "-1", "0.5"])
def test_a_bad_hami_priority_is_refused_naming_the_field(raw: str) -> None:
    problem = request_problem(template({"nvidia.com/gpu": 1, "nvidia.com/priority": raw}), "templates.work")
    assert problem is not None and problem.field == "templates.work.script.resources.limits.nvidia.com/priority"
    assert raw in str(problem)


def test_the_nodes_hami_class_wins_over_the_workflows_priority(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pin(home, 81920)

    def report() -> dict[str, Any]:
        return pool_report(home, detect_inventory(home))

    blocker = in_thread(executor(home, workflow("blocker", 2.5, {"nvidia.com/gpu": 1}, 0), []).run)
    wait_for(lambda: bool(report()["gpus"][0]["leases"]))
    low = in_thread(executor(home, workflow("workflow-high", 0.3, {"nvidia.com/gpu": 1, "nvidia.com/priority": 1},
                                            5), []).run)
    wait_for(lambda: len(report()["queue"]) == 1)
    high = in_thread(executor(home, workflow("hami-high", 0.3, {"nvidia.com/gpu": 1, "nvidia.com/priority": 0},
                                             0), []).run)
    wait_for(lambda: len(report()["queue"]) == 2)
    queue = report()["queue"]
    assert [(w["run"], w["priority"]) for w in queue] == [(f"{NS}/hami-high", 1), (f"{NS}/workflow-high", 0)]
    spans = {}
    for name, (thread, box) in {"blocker": blocker, "low": low, "high": high}.items():
        thread.join(60)
        status = box["out"]["status"]
        assert status["phase"] == "Succeeded", status
        [pod] = [n for n in status["nodes"].values() if n["type"] == "Pod"]
        spans[name] = tuple(map(float, pod["outputs"]["result"].split()))
    assert spans["blocker"][1] <= spans["high"][0] < spans["high"][1] <= spans["low"][0]


def test_the_pool_settings_come_from_the_config_file_and_the_variables_override_it(tmp_path: Path) -> None:
    config = tmp_path / "aipipe.yaml"
    config.write_text("engine:\n  gpu_aging_s: 60\n  gpu_placement: spread\n")
    assert pool_policy({"AIPIPE_CONFIG": str(config)}) == (60.0, "spread")
    assert pool_policy({"AIPIPE_CONFIG": str(config), "AIPIPE_GPU_AGING_S": "0",
                        "AIPIPE_GPU_PLACEMENT": "binpack"}) == (0.0, "binpack")
    config.write_text("engine:\n  gpu_aging_s: soon\n")
    with pytest.raises(UserError) as caught:
        pool_policy({"AIPIPE_CONFIG": str(config)})
    assert caught.value.field == "engine.gpu_aging_s"
    config.write_text("engine:\n  gpu_placement: tight\n")
    with pytest.raises(UserError) as caught:
        pool_policy({"AIPIPE_CONFIG": str(config)})
    assert caught.value.field == "engine.gpu_placement"
