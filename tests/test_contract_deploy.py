"""The deploy step against its contract: flags, output files, report artifact, exit codes.

Kubernetes runs go to the fake API (tests/fake_kube.py) with the engine bundle in S3 (moto); the
local target's contract is covered in tests/test_deploy_local.py with the real runtime.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from steps.deploy.contract import CONTRACT as DEPLOY
from steps.deploy.render import validate
from tests.fake_kube import FakeKube

REPO = Path(__file__).resolve().parents[1]
REPORT = Path(next(a.path for a in DEPLOY.artifacts if a.name == "deploy-report")).name
MANIFEST = {"backend": "onnxruntime", "precision": "fp16", "file": "model_fp16.onnx", "memory_mb": 1229,
            "model_version": "1", "model_name": "aipipe-classifier"}


def _run(args: list[str], env: dict[str, str], outputs: Path) -> tuple[subprocess.CompletedProcess, dict]:
    proc = subprocess.run([sys.executable, "-m", "steps.deploy", *args], capture_output=True, text=True,
                          timeout=180, cwd=outputs.parent,
                          env={**os.environ, **env, "AIPIPE_OUTPUTS_DIR": str(outputs), "PYTHONPATH": str(REPO)})
    values = {p.name: p.read_text() for p in outputs.iterdir()} if outputs.is_dir() else {}
    return proc, values


@pytest.fixture()
def cluster(tmp_path, s3_server):
    """The fake API, a kubeconfig for it, and two engine manifests in S3."""
    kube = FakeKube()
    kube.start()
    config = tmp_path / "kubeconfig"
    config.write_text(yaml.safe_dump(kube.kubeconfig()))
    root = s3_server.fresh_root()
    storage = s3_server.storage()
    for version in ("1", "2"):
        storage.put_text(f"{root}/engines/aipipe-classifier/{version}/engine.json",
                         json.dumps({**MANIFEST, "model_version": version}))
    env = {**s3_server.env(root), "KUBECONFIG": str(config), "AIPIPE_HOME": str(tmp_path / "home")}
    env.pop("KUBERNETES_SERVICE_HOST", None)
    yield kube, env, root
    kube.stop()


def _k8s_args(root: str, version: str, *extra: str) -> list[str]:
    return ["--engine-uri", f"{root}/engines/aipipe-classifier/{version}", "--model-version", version,
            "--memory-mb", "", "--target", "kubernetes", "--rollout-timeout-s", "10", "--health-timeout-s", "5",
            *extra]


def test_flags_are_the_contract_inputs():
    from aipipe.stepkit import parse_step_args
    from steps.deploy.step import DeployStepFlags, _provider_from_config

    argv = [x for i in DEPLOY.inputs if i.default is None for x in (f"--{i.name}", "1")]
    args = parse_step_args(DEPLOY, DeployStepFlags, argv, _provider_from_config)
    assert {i.name for i in DEPLOY.inputs} <= {name.replace("_", "-") for name in args.model_dump()}
    assert args.provider is None  # not given: the config's deploy.provider decides


def test_kubernetes_deploy_writes_every_output_and_rolls_back_a_bad_version(cluster, tmp_path):
    kube, env, root = cluster
    kube.add_pods("1")
    proc, out = _run(_k8s_args(root, "1"), env, tmp_path / "out1")
    assert proc.returncode == 0, proc.stderr
    assert set(out) == {*DEPLOY.output_names(), REPORT}
    assert out["endpoint"] == "http://aipipe-classifier.aipipe-serving.svc.cluster.local"
    # memory_mb came from engine.json (flag left empty): 1229 MiB -> 4 replicas in the default 5120 MiB
    assert (out["replicas"], out["gpu_memory_mb_per_replica"], out["provider"]) == ("4", "1254", "hami")
    assert (out["previous_version"], out["rolled_back"]) == ("", "false")
    report = json.loads(out[REPORT])
    assert report["health"]["ok"] and report["revision"] == "1"
    assert [o["kind"] for o in report["objects"]] == ["Service", "Deployment"]
    assert [o["kind"] for o in report["rbac"]] == ["ServiceAccount", "Role", "RoleBinding"]

    kube.ready_policy = lambda t: t["metadata"]["labels"]["app.kubernetes.io/version"] != "2"
    kube.progress_deadline_s = 1.0
    proc, out = _run(_k8s_args(root, "2"), env, tmp_path / "out2")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "version 2 failed" in proc.stderr and "rolled back to version 1" in proc.stderr
    assert (out["previous_version"], out["rolled_back"]) == ("1", "true")
    assert json.loads(out[REPORT])["rollback"]["done"]
    dep = kube.get("deployments", "aipipe-serving", "aipipe-classifier")
    assert dep["metadata"]["labels"]["app.kubernetes.io/version"] == "1"


def test_champion_moves_only_when_the_new_version_serves(cluster, tmp_path, mlflow_server):
    """--model-name: a healthy rollout points MLflow's champion at the version; a rolled-back one leaves it."""
    from mlflow import MlflowClient

    from mlkit.tracking import MlflowTracker, register_version

    kube, env, root = cluster
    name = f"deploy-alias-{tmp_path.name}"[:60]
    for version in ("1", "2"):
        tracker = MlflowTracker(mlflow_server, "deploy-alias-tests", run_name=f"v{version}")
        assert register_version(tracker.client, mlflow_server, name, tracker.run_id, {}) == version
        tracker.finish()
    client = MlflowClient(mlflow_server)
    client.set_registered_model_alias(name, "candidate", "1")  # what the evaluate gate leaves
    env = {**env, "MLFLOW_TRACKING_URI": mlflow_server}
    kube.add_pods("1")
    proc, out = _run(_k8s_args(root, "1", "--model-name", name), env, tmp_path / "out1")
    assert proc.returncode == 0, proc.stderr
    assert client.get_registered_model(name).aliases == {"champion": "1"}
    assert json.loads(out[REPORT])["aliases"] == {"champion": "1", "previous": None}

    client.set_registered_model_alias(name, "candidate", "2")
    kube.ready_policy = lambda t: t["metadata"]["labels"]["app.kubernetes.io/version"] != "2"
    kube.progress_deadline_s = 1.0
    proc, out = _run(_k8s_args(root, "2", "--model-name", name), env, tmp_path / "out2")
    assert proc.returncode == 2 and out["rolled_back"] == "true", proc.stderr
    assert client.get_registered_model(name).aliases == {"champion": "1", "candidate": "2"}


def test_dry_run_prints_valid_manifests_for_the_configured_provider(tmp_path, s3_server):
    root = s3_server.fresh_root()
    s3_server.storage().put_text(f"{root}/engines/aipipe-classifier/1/engine.json", json.dumps(MANIFEST))
    proc, out = _run(["--engine-uri", f"{root}/engines/aipipe-classifier/1", "--model-version", "1",
                      "--memory-mb", "1229", "--target", "kubernetes", "--dry-run"],
                     {**s3_server.env(root), "AIPIPE_DEPLOY_PROVIDER": "mig", "AIPIPE_HOME": str(tmp_path / "home")},
                     tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    docs = list(yaml.safe_load_all(proc.stdout))
    assert [d["kind"] for d in docs] == ["ServiceAccount", "Role", "RoleBinding", "Service", "Deployment"]
    validate(docs)
    limits = docs[-1]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/mig-1g.10gb"] == "1"
    assert out["provider"] == "mig" and out["rolled_back"] == "false"


@pytest.mark.parametrize(("extra", "message"), [
    (["--memory-mb", "9000"], "gpu-memory-mib"),  # the budget cannot hold one replica
    (["--memory-mb", "1229", "--provider", "bogus"], "invalid choice"),
    (["--memory-mb", "1229", "--target", "kubernetes"], "engine-uri: 'file://"),  # a pod cannot read a local engine
    (["--memory-mb", "1229", "--target", "kubernetes", "--dry-run"], "not reachable from a pod"),  # nor render it
    (["--memory-mb", "", "--target", "kubernetes", "--dry-run"], "memory_mb"),
])
def test_bad_input_exits_2_with_one_clear_line(tmp_path, extra, message):
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "engine.json").write_text(json.dumps({**MANIFEST, "memory_mb": None}))
    proc, _ = _run(["--engine-uri", engine.as_uri(), "--model-version", "1", *extra],
                   {"AIPIPE_HOME": str(tmp_path / "home")}, tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_missing_engine_is_a_user_error(tmp_path):
    proc, _ = _run(["--engine-uri", (tmp_path / "nothing").as_uri(), "--model-version", "1", "--memory-mb", "1"],
                   {"AIPIPE_HOME": str(tmp_path / "home")}, tmp_path / "out")
    assert proc.returncode == 2 and "not an engine bundle" in proc.stderr


def test_unreachable_cluster_exits_3_to_be_retried(cluster, tmp_path):
    kube, env, root = cluster
    config = tmp_path / "down"
    config.write_text(yaml.safe_dump(kube.kubeconfig("http://127.0.0.1:1")))
    proc, _ = _run(_k8s_args(root, "1"), {**env, "KUBECONFIG": str(config)}, tmp_path / "out")
    assert proc.returncode == 3 and "unreachable" in proc.stderr and "Traceback" not in proc.stderr


def test_local_dry_run_starts_nothing(tmp_path):
    engine = tmp_path / "engines" / "aipipe-classifier" / "1"
    engine.mkdir(parents=True)
    (engine / "engine.json").write_text(json.dumps(MANIFEST))
    home = tmp_path / "home"
    proc, out = _run(["--engine-uri", engine.as_uri(), "--model-version", "1", "--memory-mb", "1229", "--dry-run"],
                     {"AIPIPE_HOME": str(home)}, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "would deploy aipipe-classifier version 1 locally" in proc.stdout
    assert set(out) == {*DEPLOY.output_names(), REPORT} and out["provider"] == "local" and out["endpoint"] == ""
    assert not (home / "deployments").exists()
