"""The deploy step's flow: read the engine's footprint, size the service, deploy it behind the health gate.

Outputs (steps/deploy/contract.py): endpoint, replicas, gpu_memory_mb_per_replica, provider, previous_version,
rolled_back; the report ``deploy-report.json`` holds the sizing, the rendered objects and the health
results. A version that fails its gate leaves the previous one serving; the step then writes its outputs
and report (``rolled_back=true``) and exits 2, since retrying a bad model cannot help. Once the new
version serves, ``--model-name``'s MLflow alias ``champion`` moves to it (the old one becomes ``previous``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from aipipe.config import Config, load_config
from aipipe.errors import UserError
from aipipe.stepkit import parse_step_args, report_progress, write_outputs, write_report
from aipipe.storage import Storage

from .contract import CONTRACT, DeployFlags
from .fetch import fetch_engine, read_manifest
from .providers import GpuShare, ShareBy, get_provider
from .render import ServiceSpec, render_rbac, render_service, validate
from .sizing import (
    DEFAULT_CPU_WORKERS_PER_GPU,
    DEFAULT_HEADROOM_PERCENT,
    Sizing,
    size_service,
    usable_cpus,
)

REPORT = "deploy-report.json"
LOCAL_PROVIDER = "local"  # outputs' provider for the local target: per-process caps, no cluster mechanism
DEFAULT_MAX_REPLICAS = 8


class DeployStepFlags(DeployFlags):
    """The contract's flags plus the deployer's own sizing and rollout options."""

    name: str = Field("", description="service name; default: the engine's model name")
    dry_run: bool = Field(False, description="print what would be deployed, change nothing")
    headroom_percent: float = Field(DEFAULT_HEADROOM_PERCENT, ge=0, lt=100,
                                    description="share of the GPU memory budget held back")
    cpu_workers_per_gpu: int = Field(DEFAULT_CPU_WORKERS_PER_GPU, ge=1,
                                     description="CPU workers that keep a whole GPU busy")
    max_replicas: int = Field(DEFAULT_MAX_REPLICAS, ge=1, description="most GPU processes per service")
    gpu_total_mib: int = Field(81920, ge=1,
                               description="memory of the cluster's GPU model: MIG profiles and fractions")
    share_by: ShareBy = Field("memory", description="ask HAMi/KAI for absolute memory or a fraction of the GPU")
    kai_queue: str = Field("default-queue", description="KAI scheduling queue")
    hpa_max_replicas: int = Field(0, ge=0, description="add an HPA up to N pods (0 = none)")
    image: str = Field("", description="serving image; default: config kubernetes.steps_image")
    force_conflicts: bool = Field(False, description="take over fields another field manager owns "
                                  "(server-side apply force)")
    rollout_timeout_s: float = Field(600.0, gt=0, description="seconds the rollout may take")
    health_timeout_s: float = Field(180.0, gt=0, description="seconds the new version has to pass its health gate")
    error_grace_s: float = Field(15.0, ge=0, description="fail the gate early once the runtime has reported a "
                                 "load error this long")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="local target: where the runtime runs the "
                                                   "model")


def _provider_from_config(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(provider=None)  # not given -> config deploy.provider


def _service_name(args: DeployStepFlags, manifest: dict[str, Any], engine_uri: str) -> str:
    """--name, else engine.json's model_name, else the <model-name> folder of .../engines/<model-name>/<version>."""
    if args.name:
        return str(args.name)
    if manifest.get("model_name"):
        return str(manifest["model_name"])
    parts = engine_uri.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 3 and parts[-3] == "engines" else "aipipe-classifier"


def _has_cuda() -> bool:
    """An NVIDIA driver is loaded (no CUDA import: the deployer stays light)."""
    return Path("/proc/driver/nvidia/version").exists()


def _size(args: DeployStepFlags, manifest: dict[str, Any], local: bool) -> tuple[Sizing, str]:
    memory: Any = args.memory_mb
    if memory in ("", "auto"):
        memory = manifest.get("memory_mb")
        if memory in (None, ""):
            raise UserError("engine.json has no memory_mb; pass the conversion step's --memory-mb", field="memory-mb")
    on_cpu = local and (args.device == "cpu" or (args.device == "auto" and not _has_cuda()))
    sizing = size_service(memory, args.gpu_memory_mib, args.gpu_compute_percent,
                          headroom_percent=args.headroom_percent, cpu_workers_per_gpu=args.cpu_workers_per_gpu,
                          max_cpu_workers=usable_cpus() if local else None)
    cap = args.max_replicas
    note = ""
    if on_cpu:  # no GPU here: model replicas share the CPU cores with the workers
        cap = min(cap, max(1, usable_cpus() // 2))
    if sizing.replicas > cap:
        note = f"replicas capped from {sizing.replicas} to {cap}" + (" (no GPU: CPU cores)" if on_cpu else "")
        usable = sizing.budget_mib - sizing.headroom_mib
        sizing = Sizing(**{**sizing.to_dict(), "replicas": cap, "gpu_memory_mb_per_replica": usable // cap})
    return sizing, note


def _service_spec(args: DeployStepFlags, cfg: Config, name: str, sizing: Sizing, provider: str) -> ServiceSpec:
    storage_env = {k: str(cfg.get(key)) for k, key in (("AIPIPE_S3_ENDPOINT", "storage.s3_endpoint"),
                                                      ("AIPIPE_S3_REGION", "storage.s3_region")) if cfg.get(key)}
    share = GpuShare(memory_mib=sizing.budget_mib, compute_percent=sizing.compute_percent,
                     gpu_total_mib=args.gpu_total_mib, share_by=args.share_by, queue=args.kai_queue)
    return ServiceSpec(name=name, namespace=args.namespace, model_version=args.model_version,
                       engine_uri=args.engine_uri, image=args.image or cfg.get("kubernetes.steps_image"),
                       provider=provider, sizing=sizing, share=share, secret_name=cfg.get("kubernetes.secret_name"),
                       storage_env=storage_env, node_selector=cfg.get("kubernetes.gpu_node_selector"),
                       tolerations=cfg.get("kubernetes.gpu_tolerations"), hpa_max_replicas=args.hpa_max_replicas)


def mark_serving(name: str, version: str, cfg: Config, report: dict[str, Any]) -> None:
    """Point the registered model ``name``'s ``champion`` alias at ``version``, which now serves (no-op without
    a name)."""
    if not name:
        return
    from mlkit.tracking import CHAMPION, PREVIOUS, check_reachable, client, configure_client_env, promote

    uri = cfg.mlflow_tracking_uri
    configure_client_env()
    check_reachable(uri)
    previous = promote(client(uri), uri, name, version)
    report["aliases"] = {CHAMPION: version, PREVIOUS: previous}
    print(f"MLflow model {name}: champion -> version {version}"
          + (f" (previous: {previous})" if previous else ""))


def _finish(report: dict[str, Any], outputs: dict[str, Any], error: str = "") -> None:
    """Outputs and report are written in every outcome (a failed gate keeps them), then the error if any."""
    report["outputs"] = outputs
    write_outputs(CONTRACT, outputs)
    write_report(REPORT, report)
    if error:
        raise UserError(error, field="health gate")


def deploy_kubernetes(args: DeployStepFlags, cfg: Config, storage: Storage, report: dict[str, Any]) -> None:
    from .kube import KubeApi, KubeDeployer

    manifest = read_manifest(storage, args.engine_uri)
    name = _service_name(args, manifest, args.engine_uri)
    provider = args.provider or cfg.get("deploy.provider")
    get_provider(provider)
    sizing, note = _size(args, manifest, local=False)
    spec = _service_spec(args, cfg, name, sizing, provider)
    objects = render_service(spec)
    rbac = render_rbac(spec.namespace, cfg.get("argo.namespace"), with_hpa=spec.hpa_max_replicas > 0)
    validate(rbac + objects)
    granted = get_provider(provider).request(spec.share)
    report.update(name=name, sizing=sizing.to_dict(), sizing_note=note, objects=objects, rbac=rbac,
                  gpu_request={"granted": granted.granted, "isolation": granted.isolation})
    outputs = {"replicas": sizing.replicas, "gpu_memory_mb_per_replica": sizing.gpu_memory_mb_per_replica,
               "provider": provider, "rolled_back": False}
    report_progress(1, 3)
    if args.dry_run:
        sys.stdout.write(yaml.safe_dump_all(rbac + objects, sort_keys=False))
        return _finish(report, {**outputs, "endpoint": spec.cluster_url, "previous_version": ""})
    deployer = KubeDeployer(KubeApi.from_environment(), spec, timeout_s=args.rollout_timeout_s,
                            force_conflicts=args.force_conflicts)
    outcome = deployer.deploy(objects, health_timeout_s=args.health_timeout_s)
    report_progress(3, 3)
    report.update(health=outcome.health.to_dict(), rollback=outcome.rollback, applied=outcome.applied,
                  revision=outcome.revision, previous_revision=outcome.previous_revision)
    outputs.update(endpoint=outcome.endpoint, previous_version=outcome.previous_version,
                   rolled_back=outcome.rolled_back)
    error = ""
    if not outcome.health.ok:
        back = f"rolled back to version {outcome.rollback.get('to_version')}" if outcome.rollback.get("done") \
            else f"rollback: {outcome.rollback.get('reason') or outcome.rollback.get('error')}"
        error = f"version {args.model_version} failed: {outcome.health.error}; {back}"
    else:
        mark_serving(args.model_name, args.model_version, cfg, report)
    _finish(report, outputs, error)


def deploy_local(args: DeployStepFlags, cfg: Config, storage: Storage, report: dict[str, Any]) -> None:
    from .local import LocalDeployments

    manifest = read_manifest(storage, args.engine_uri)
    name = _service_name(args, manifest, args.engine_uri)
    sizing, note = _size(args, manifest, local=True)
    report.update(name=name, sizing=sizing.to_dict(), sizing_note=note)
    outputs = {"replicas": sizing.replicas, "gpu_memory_mb_per_replica": sizing.gpu_memory_mb_per_replica,
               "provider": LOCAL_PROVIDER}
    report_progress(1, 3)
    deployments = LocalDeployments(cfg.home)
    if args.dry_run:
        current = deployments.current(name)
        print(f"would deploy {name} version {args.model_version} locally: {sizing.to_dict()}")
        return _finish(report, {**outputs, "endpoint": current.url if current else "",
                                "previous_version": current.model_version if current else "", "rolled_back": False})
    outcome = deployments.deploy(name, args.model_version, args.engine_uri,
                                 lambda dest: fetch_engine(storage, args.engine_uri, dest), sizing,
                                 device=args.device, health_timeout_s=args.health_timeout_s,
                                 error_grace_s=args.error_grace_s)
    report_progress(3, 3)
    report.update(health=outcome.health.to_dict(), instance=outcome.instance, reused=outcome.reused,
                  log_tail=outcome.log_tail)
    outputs.update(endpoint=outcome.endpoint, previous_version=outcome.previous_version,
                   rolled_back=outcome.rolled_back)
    error = ""
    if outcome.rolled_back:
        kept = f"version {outcome.previous_version} keeps serving at {outcome.endpoint}" if outcome.endpoint \
            else "nothing was serving before"
        error = f"version {args.model_version} failed: {outcome.health.error}; {kept}"
    else:
        print(f"{name} version {args.model_version} serving at {outcome.endpoint}")
        mark_serving(args.model_name, args.model_version, cfg, report)
    _finish(report, outputs, error)


def main(argv: list[str] | None = None) -> None:
    args = parse_step_args(CONTRACT, DeployStepFlags, argv, _provider_from_config)
    cfg = load_config()
    storage = Storage.from_config(cfg)
    report: dict[str, Any] = {"target": args.target, "model_version": args.model_version,
                              "engine_uri": args.engine_uri, "dry_run": args.dry_run}
    if args.target == "kubernetes":
        deploy_kubernetes(args, cfg, storage, report)
    else:
        deploy_local(args, cfg, storage, report)
