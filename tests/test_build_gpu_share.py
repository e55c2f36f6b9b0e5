"""A step's GPU share and preemption in its contract, compiled in the configured provider's terms.

Each compiled template validates against the Argo CRDs, passes ``aipipe lint``, and the embedded engine reads it
back to the same request (so what compiles is what the engine honours).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from aipipe.compile.lint import lint_documents
from aipipe.compile.schema import load_validators, schema_errors
from aipipe.config import load_config
from aipipe.contract import GpuNeed
from aipipe.discovery import discover_steps
from aipipe.engine.gpu import GpuRequest, gpu_request
from pipelines.templates.builder import step_template

STEPS = discover_steps()
SHARE = GpuNeed(memory_mib=20480, compute_percent=30)


def compiled(provider: str, gpu: bool | GpuNeed, preemptible: bool = False) -> dict[str, Any]:
    cfg = load_config(env={"AIPIPE_HOME": "/var/lib/aipipe", "AIPIPE_STEPS_IMAGE": "registry/steps:1",
                           "AIPIPE_DEPLOY_PROVIDER": provider}, path=None)
    spec = dataclasses.replace(STEPS["train"], gpu=gpu, preemptible=preemptible)
    doc: dict[str, Any] = step_template(spec, cfg).to_dict()
    return doc


@pytest.fixture(scope="module")
def crds(shared_dir: Path) -> Path:
    return shared_dir / "argo" / "crds-full"


def checked(doc: dict[str, Any], crds: Path) -> dict[str, Any]:
    """The step's template, after the CRD schema and aipipe lint passed on its WorkflowTemplate."""
    assert list(schema_errors(load_validators(crds)["WorkflowTemplate"], doc)) == []
    assert lint_documents([("train.yaml", doc)], crds) == []
    [template] = doc["spec"]["templates"]
    return template


@pytest.mark.parametrize("provider", ["hami", "kai", "mig"])
def test_a_whole_gpu_step_compiles_as_before_whatever_the_provider(provider: str, crds: Path) -> None:
    template = checked(compiled(provider, True), crds)
    resources = template["container"]["resources"]
    assert resources["limits"]["nvidia.com/gpu"] == resources["requests"]["nvidia.com/gpu"] == "1"
    assert "schedulerName" not in template and "annotations" not in template.get("metadata", {})
    assert gpu_request(template) == GpuRequest(1)


def test_hami_share_is_gpu_gpumem_gpucores_and_the_engine_reads_it_back(crds: Path) -> None:
    template = checked(compiled("hami", SHARE, preemptible=True), crds)
    limits = template["container"]["resources"]["limits"]
    assert {k: v for k, v in limits.items() if k.startswith("nvidia.com/")} == {
        "nvidia.com/gpu": "1", "nvidia.com/gpumem": "20480", "nvidia.com/gpucores": "30"}
    assert template["metadata"]["annotations"] == {"aipipe.dev/preemptible": "true"}
    assert gpu_request(template) == GpuRequest(1, 20480, 30, preemptible=True)


def test_kai_share_is_annotations_and_its_scheduler(crds: Path) -> None:
    template = checked(compiled("kai", SHARE), crds)
    assert template["schedulerName"] == "kai-scheduler"
    assert template["metadata"]["annotations"] == {"gpu-memory": "20480"}
    assert template["metadata"]["labels"]["kai.scheduler/queue"] == "default-queue"
    assert not any(k.startswith("nvidia.com/") for k in template["container"]["resources"].get("limits", {}))
    assert gpu_request(template) == GpuRequest(1, 20480)
    compute_only = checked(compiled("kai", GpuNeed(compute_percent=50)), crds)
    assert compute_only["metadata"]["annotations"] == {"gpu-fraction": "0.50"}
    assert gpu_request(compute_only) == GpuRequest(1)  # the engine honours a fraction with a whole GPU


def test_a_provider_without_step_shares_gets_whole_gpus(crds: Path) -> None:
    template = checked(compiled("mig", GpuNeed(count=2, memory_mib=1024)), crds)
    assert template["container"]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert gpu_request(template) == GpuRequest(2)


@pytest.mark.parametrize("change, field, words", [
    (lambda t: t["container"]["resources"]["limits"].update({"nvidia.com/gpu": "0.5"}),
     "spec.templates[0].container.resources.limits.nvidia.com/gpu", "nvidia.com/gpumem"),
    (lambda t: t["container"]["resources"]["limits"].update({"nvidia.com/gpucores": "0"}),
     "spec.templates[0].container.resources.limits.nvidia.com/gpucores", "from 1 to 100"),
    (lambda t: t["metadata"]["annotations"].update({"aipipe.dev/preemptible": "yes"}),
     "spec.templates[0].metadata.annotations.aipipe.dev/preemptible", '"true" or "false"'),
    (lambda t: t["metadata"]["annotations"].update({"gpu-fraction": "1.5"}),
     "spec.templates[0].metadata.annotations.gpu-fraction", "at most 1"),
])
def test_lint_refuses_what_the_engine_cannot_honour(change: Any, field: str, words: str, crds: Path) -> None:
    doc = compiled("hami", SHARE, preemptible=True)
    change(doc["spec"]["templates"][0])
    found = [d for d in lint_documents([("train.yaml", doc)], crds) if d.check == "gpu"]
    assert [d.field for d in found] == [field] and words in found[0].message, found


def test_a_share_out_of_range_is_refused_in_the_contract() -> None:
    with pytest.raises(ValueError, match="compute_percent"):
        GpuNeed(compute_percent=150)
    with pytest.raises(ValueError, match="memory_mib"):
        GpuNeed(memory_mib=0)
    assert dataclasses.replace(STEPS["train"], gpu=True).gpu_need == GpuNeed()
    assert dataclasses.replace(STEPS["train"], gpu=False).gpu_need is None
