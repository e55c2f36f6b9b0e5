"""Rendering for every fractional-GPU provider: schema-valid objects, provider units, goldens.

Goldens live in tests/golden/deploy/; after an intended change regenerate them with
``AIPIPE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_deploy_render.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from aipipe.errors import UserError
from steps.deploy.providers import PROVIDERS, GpuShare, get_provider
from steps.deploy.render import (
    DEPLOYER_ACCOUNT,
    ServiceSpec,
    render_deployment,
    render_rbac,
    render_service,
    validate,
)
from steps.deploy.sizing import size_service

GOLDEN = Path(__file__).parent / "golden" / "deploy"
VARIANTS = [(name, "memory") for name in PROVIDERS] + [("hami", "fraction"), ("kai", "fraction")]


def _spec(provider: str, share_by: str = "memory", hpa: int = 0, budget: int = 5000) -> ServiceSpec:
    return ServiceSpec(
        name="aipipe-classifier", namespace="aipipe-serving", model_version="7",
        engine_uri="s3://aipipe/engines/aipipe-classifier/7", image="ghcr.io/aipipe/steps:0.1.0", provider=provider,
        sizing=size_service(1229, budget, 50), share=GpuShare(budget, 50, gpu_total_mib=81920, share_by=share_by),
        storage_env={"AIPIPE_S3_ENDPOINT": "http://minio.storage:9000"},
        node_selector={"nvidia.com/gpu.present": "true"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], hpa_max_replicas=hpa)


def _check_golden(name: str, objects: list[dict]) -> None:
    text = yaml.safe_dump_all(objects, sort_keys=False)
    path = GOLDEN / f"{name}.yaml"
    if os.environ.get("AIPIPE_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.is_file(), f"missing golden {path}; run with AIPIPE_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(), f"{path.name} differs from the rendering; regenerate and review if intended"


@pytest.mark.parametrize(("provider", "share_by"), VARIANTS)
def test_every_provider_renders_valid_objects_matching_its_golden(provider, share_by):
    objects = render_service(_spec(provider, share_by))
    validate(objects)
    _check_golden(provider if share_by == "memory" else f"{provider}-{share_by}", objects)


# What each provider asks for a 5000 MiB / 50% share of an 80 GB GPU, in its own units.
EXPECTED = {
    ("hami", "memory"): ({"nvidia.com/gpu": "1", "nvidia.com/gpumem": "5000", "nvidia.com/gpucores": "50"}, {}, None),
    ("hami", "fraction"): ({"nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "7",
                            "nvidia.com/gpucores": "50"}, {}, None),
    ("mig", "memory"): ({"nvidia.com/mig-1g.10gb": "1"}, {}, None),
    ("time-slicing", "memory"): ({"nvidia.com/gpu.shared": "1"}, {}, None),
    ("kai", "memory"): ({}, {"gpu-memory": "5000"}, "kai-scheduler"),
    ("kai", "fraction"): ({}, {"gpu-fraction": "0.07"}, "kai-scheduler"),
    ("orionx", "memory"): ({"virtaitech.com/gpu": "1"}, {}, None),
    ("gpushare", "memory"): ({"aliyun.com/gpu-mem": "5"}, {}, None),
}


@pytest.mark.parametrize(("provider", "share_by"), VARIANTS)
def test_provider_request_in_its_units(provider, share_by):
    dep = render_deployment(_spec(provider, share_by))
    pod = dep["spec"]["template"]
    container = pod["spec"]["containers"][0]
    limits, annotations, scheduler = EXPECTED[(provider, share_by)]
    gpu_limits = {k: v for k, v in container["resources"]["limits"].items() if k not in ("memory", "cpu")}
    assert gpu_limits == limits
    assert {k: v for k, v in pod["metadata"]["annotations"].items() if not k.startswith("aipipe.io/")} == annotations
    assert pod["spec"].get("schedulerName") == scheduler
    if provider == "kai":
        assert pod["metadata"]["labels"]["kai.scheduler/queue"] == "default-queue"
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    assert (env == {"ORION_GMEM": "5000", "ORION_RATIO": "50"}) == (provider == "orionx")


def test_granted_share_is_rounded_up_to_the_provider_unit():
    share = GpuShare(5000, 50, gpu_total_mib=81920)
    assert get_provider("gpushare").request(share).granted["memory_mib"] == 5120
    mig = get_provider("mig").request(share).granted
    assert mig["mig_profile"] == "1g.10gb" and mig["memory_mib"] >= 5000 and mig["compute_percent"] == 14
    assert get_provider("mig").request(GpuShare(12000, 50)).granted["mig_profile"] == "1g.20gb"
    assert get_provider("mig").request(GpuShare(30000, 50)).granted["mig_profile"] == "3g.40gb"
    assert get_provider("mig").request(GpuShare(5000, 50, gpu_total_mib=143771)).granted["mig_profile"] == "1g.18gb"
    assert get_provider("mig").request(GpuShare(5000, 50, gpu_total_mib=40960)).granted["mig_profile"] == "2g.10gb"
    with pytest.raises(UserError, match="no MIG profile holds"):
        get_provider("mig").request(GpuShare(90000, 50))
    with pytest.raises(UserError) as err:
        get_provider("nvlink-magic")
    assert err.value.field == "provider"


def test_server_command_carries_the_sizing_and_labels_carry_the_version():
    spec = _spec("hami")
    dep = render_deployment(spec)
    command = dep["spec"]["template"]["spec"]["containers"][0]["command"]
    flags = dict(zip(command[3::2], command[4::2], strict=False))
    assert flags["--gpu-procs"] == str(spec.sizing.replicas) == "3"
    assert flags["--cpu-workers"] == "4"
    assert flags["--gpu-memory-mb-per-proc"] == str(spec.sizing.gpu_memory_mb_per_replica)
    for labels in (dep["metadata"]["labels"], dep["spec"]["template"]["metadata"]["labels"]):
        assert labels["app.kubernetes.io/version"] == "7" and labels["app.kubernetes.io/name"] == "aipipe-classifier"
    # the selector must not change between versions (it is immutable)
    assert "app.kubernetes.io/version" not in dep["spec"]["selector"]["matchLabels"]
    assert render_deployment(_spec("hami"))["spec"]["selector"] == dep["spec"]["selector"]
    pod = dep["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert any(v["name"] == "shm" and v["emptyDir"]["medium"] == "Memory" for v in pod["volumes"])
    secrets = [e for e in pod["initContainers"][0]["env"] if "valueFrom" in e]
    assert {e["valueFrom"]["secretKeyRef"]["key"] for e in secrets} == {"aws-access-key-id", "aws-secret-access-key"}
    assert "aipipe-test-secret" not in yaml.safe_dump(dep)  # no literal secrets, only references


def test_hpa_is_optional_and_then_leaves_replicas_to_the_autoscaler():
    kinds = [o["kind"] for o in render_service(_spec("hami"))]
    assert kinds == ["Service", "Deployment"]
    objects = render_service(_spec("hami", hpa=4))
    validate(objects)
    hpa = objects[-1]
    assert hpa["kind"] == "HorizontalPodAutoscaler" and hpa["spec"]["maxReplicas"] == 4
    assert "replicas" not in objects[1]["spec"]  # applying a replica count would fight the HPA
    _check_golden("hpa", objects)


def test_deployer_rbac_is_least_privilege():
    objects = render_rbac("aipipe-serving", "argo")
    validate(objects)
    _check_golden("rbac", objects)
    account, role, binding = objects
    assert account["metadata"] == {**account["metadata"], "name": DEPLOYER_ACCOUNT, "namespace": "argo"}
    assert role["metadata"]["namespace"] == "aipipe-serving" and role["kind"] == "Role"  # never a ClusterRole
    grants = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
              for v in rule["verbs"]}
    assert {r for _, r, _ in grants} == {"deployments", "replicasets", "services", "services/proxy"}
    assert not any(v in ("delete", "deletecollection", "*", "escalate", "bind") for _, _, v in grants)
    assert {v for _, r, v in grants if r == "replicasets"} == {"get", "list", "watch"}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": DEPLOYER_ACCOUNT, "namespace": "argo"}]
    with_hpa = render_rbac("aipipe-serving", "argo", with_hpa=True)[1]["rules"]
    assert any("horizontalpodautoscalers" in r["resources"] for r in with_hpa)


def test_schema_validation_names_the_bad_field():
    dep = render_deployment(_spec("hami"))
    dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limitz"] = {}
    with pytest.raises(UserError, match=r"Deployment/aipipe-classifier: spec\.template\.spec\.containers\.0"):
        validate([dep])


@pytest.mark.parametrize(("field", "value"), [("name", "Bad_Name"), ("model_version", "v 1/2"), ("model_version", "")])
def test_names_and_versions_that_cannot_be_kubernetes_names_are_refused(field, value):
    kwargs = {"name": "aipipe-classifier", "model_version": "7", field: value}
    with pytest.raises(UserError):
        ServiceSpec(namespace="ns", engine_uri="s3://b/e", image="i", provider="hami",
                    sizing=size_service(1229, 5120, 50), share=GpuShare(5120, 50), **kwargs)


@pytest.mark.parametrize("uri", ["file:///home/me/.aipipe/storage/engines/aipipe-classifier/7", "/tmp/engine",
                                 "http://example.com/engine"])
def test_an_engine_uri_a_pod_cannot_fetch_is_refused(uri):
    with pytest.raises(UserError, match="not reachable from a pod") as caught:
        ServiceSpec(name="aipipe-classifier", namespace="ns", model_version="7", engine_uri=uri, image="i",
                    provider="hami", sizing=size_service(1229, 5120, 50), share=GpuShare(5120, 50))
    assert caught.value.field == "engine-uri"
