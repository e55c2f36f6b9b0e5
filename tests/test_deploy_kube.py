"""Kubernetes target against the fake apps/v1 API: server-side apply, rollout, health gate, rollback.

The pods behind the Service are the fake's HTTP stand-ins for the serving runtime (no cluster can run
pods here); the real runtime is covered by the local-target tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import yaml

from aipipe.errors import ConflictError
from steps.deploy.kube import REVISION, KubeApi, KubeDeployer
from steps.deploy.providers import GpuShare
from steps.deploy.render import ServiceSpec, render_service
from steps.deploy.sizing import size_service
from tests.fake_kube import FakeKube

NS = "aipipe-serving"


@pytest.fixture()
def fake(tmp_path, monkeypatch) -> Iterator[FakeKube]:
    kube = FakeKube()
    kube.start()
    config = tmp_path / "kubeconfig"
    config.write_text(yaml.safe_dump(kube.kubeconfig()))
    monkeypatch.setenv("KUBECONFIG", str(config))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    yield kube
    kube.stop()


def _spec(version: str, provider: str = "hami") -> ServiceSpec:
    return ServiceSpec(name="aipipe-classifier", namespace=NS, model_version=version,
                       engine_uri=f"s3://models/engines/aipipe-classifier/{version}", image="steps:0.1.0",
                       provider=provider, sizing=size_service(1229, 5120, 50), share=GpuShare(5120, 50))


def _deployer(version: str, **kwargs) -> KubeDeployer:
    return KubeDeployer(KubeApi.from_environment(), _spec(version), timeout_s=kwargs.pop("timeout_s", 5.0),
                        poll_s=0.05, **kwargs)


def _deploy(version: str, **kwargs):
    deployer = _deployer(version, **kwargs)
    return deployer.deploy(render_service(deployer.spec), health_timeout_s=2.0)


def test_first_deploy_applies_with_field_manager_and_waits_for_ready_replica_set(fake):
    fake.add_pods("1")
    outcome = _deploy("1")
    assert outcome.health.ok, outcome.health
    assert not outcome.rolled_back and outcome.previous_version == "" and outcome.revision == "1"
    assert outcome.applied == ["Service/aipipe-classifier", "Deployment/aipipe-classifier"]
    assert outcome.health.smoke["model_version"] == "1"
    assert outcome.endpoint == f"http://aipipe-classifier.{NS}.svc.cluster.local"
    patches = [r for r in fake.requests if r[0] == "PATCH"]
    assert patches and all(ct == "application/apply-patch+yaml" for _, _, ct in patches)
    dep = fake.get("deployments", NS, "aipipe-classifier")
    assert [m["manager"] for m in dep["metadata"]["managedFields"]] == ["aipipe"]
    assert dep["metadata"]["labels"]["app.kubernetes.io/version"] == "1"
    # the smoke prediction went through the Service proxy to the pods
    assert any("/services/aipipe-classifier:http/proxy/v1/predict" in p for _, p, _ in fake.requests)


def test_new_version_rolls_out_to_a_new_replica_set(fake):
    fake.add_pods("1"), fake.add_pods("2")
    _deploy("1")
    outcome = _deploy("2")
    assert outcome.health.ok and outcome.previous_version == "1" and outcome.revision == "2"
    sets = {rs["metadata"]["annotations"][REVISION]: rs for rs in fake.list("replicasets", NS)}
    assert set(sets) == {"1", "2"}
    assert sets["1"]["spec"]["replicas"] == 0 and sets["2"]["status"]["readyReplicas"] == 1
    # applying the same version again is a no-op rollout: same revision, no new ReplicaSet
    again = _deploy("2")
    assert again.revision == "2" and len(fake.list("replicasets", NS)) == 2


def test_a_stale_status_is_never_taken_for_the_new_rollout(fake):
    fake.add_pods("1"), fake.add_pods("2")
    _deploy("1")
    fake.observe_lag_s = 0.5  # until the controller catches up, the status still shows revision 1 complete
    outcome = _deploy("2")
    assert outcome.health.ok and outcome.revision == "2"
    assert outcome.health.smoke["model_version"] == "2"


def test_never_ready_version_is_rolled_back_to_the_previous_revision(fake):
    fake.add_pods("1"), fake.add_pods("2")
    _deploy("1")
    fake.ready_policy = lambda t: t["metadata"]["labels"]["app.kubernetes.io/version"] != "2"
    fake.progress_deadline_s = 0.5
    outcome = _deploy("2")
    assert outcome.rolled_back and not outcome.health.ok
    assert "ProgressDeadlineExceeded" in outcome.health.error or "stuck" in outcome.health.error
    assert outcome.rollback["done"], outcome.rollback
    assert outcome.rollback["to_version"] == "1"
    dep = fake.get("deployments", NS, "aipipe-classifier")
    assert dep["metadata"]["labels"]["app.kubernetes.io/version"] == "1"
    assert dep["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/version"] == "1"
    # rollback reused the old ReplicaSet with a new revision, as the Deployment controller does
    sets = {rs["metadata"]["labels"]["app.kubernetes.io/version"]: rs for rs in fake.list("replicasets", NS)}
    assert len(sets) == 2 and sets["1"]["metadata"]["annotations"][REVISION] == "3"
    assert sets["2"]["spec"]["replicas"] == 0


def test_ready_but_failing_smoke_prediction_is_rolled_back(fake):
    fake.add_pods("1")
    broken = fake.add_pods("2", healthy=False)
    _deploy("1")
    outcome = _deploy("2")
    assert outcome.rolled_back and outcome.health.ready and "500" in outcome.health.error
    assert broken.predictions == 1 and outcome.rollback["done"]
    assert outcome.rollback["health"]["smoke"]["model_version"] == "1"


def test_failed_first_deploy_has_nothing_to_roll_back_to(fake):
    fake.add_pods("1", healthy=False)
    outcome = _deploy("1")
    assert outcome.rolled_back and outcome.rollback == {"done": False, "reason": "no previous revision to roll back to"}


def test_conflict_with_another_field_manager_is_refused_then_forced(fake):
    fake.add_pods("1")
    _deploy("1")
    # someone else (kubectl, another tool) takes over the replica count with a different value
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "aipipe-classifier"},
             "spec": {"replicas": 3}}
    fake.apply("deployments", NS, "aipipe-classifier", other, "kubectl", force=True)
    with pytest.raises(ConflictError, match=r'conflict with "kubectl": \.spec\.replicas'):
        _deploy("1")
    outcome = _deploy("1", force_conflicts=True)
    assert outcome.health.ok
    dep = fake.get("deployments", NS, "aipipe-classifier")
    assert dep["spec"]["replicas"] == 1
    owners = {m["manager"]: m["fieldsV1"] for m in dep["metadata"]["managedFields"]}
    assert "f:replicas" in owners["aipipe"]["f:spec"] and "kubectl" not in owners


def test_equal_values_are_shared_and_dropped_fields_are_removed(fake):
    fake.add_pods("1")
    spec_objects = render_service(_spec("1"))
    service = next(o for o in spec_objects if o["kind"] == "Service")
    shared = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "aipipe-classifier"},
              "spec": {"type": "ClusterIP"}}
    _deploy("1")
    fake.apply("services", NS, "aipipe-classifier", shared, "other", force=False)  # same value: no conflict
    extra = json.loads(json.dumps(service))
    extra["metadata"]["annotations"] = {"team": "vision"}
    deployer = _deployer("1")
    deployer.apply(extra)
    assert fake.get("services", NS, "aipipe-classifier")["metadata"]["annotations"] == {"team": "vision"}
    deployer.apply(service)  # aipipe no longer applies the annotation: the server removes it
    live = fake.get("services", NS, "aipipe-classifier")
    assert "annotations" not in live["metadata"] and live["spec"]["type"] == "ClusterIP"


def test_unauthorised_and_missing_api_map_to_clear_errors(fake, tmp_path, monkeypatch):
    from aipipe.errors import AuthError, ServiceUnavailable

    bad = fake.kubeconfig("http://127.0.0.1:1")
    config = tmp_path / "down"
    config.write_text(yaml.safe_dump(bad))
    monkeypatch.setenv("KUBECONFIG", str(config))
    with pytest.raises(ServiceUnavailable):
        _deployer("1").deployment()
    wrong = fake.kubeconfig()
    wrong["users"][0]["user"]["token"] = "nope"
    config.write_text(yaml.safe_dump(wrong))
    with pytest.raises(AuthError):
        _deployer("1").deployment()
