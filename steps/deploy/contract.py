"""The deploy step's contract: its typed flags, outputs, report, resources and the account it runs as."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from aipipe.contract import OUTPUTS_DIR, Artifact, Output, StepResources, step_contract

# The deployer applies Deployments/Services: it runs as this least-privilege account, which
# `python -m steps.deploy --dry-run` renders with its Role (steps.deploy.render.render_rbac).
DEPLOYER_ACCOUNT = "aipipe-deployer"

Provider = Literal["hami", "mig", "time-slicing", "kai", "orionx", "gpushare"]


class DeployFlags(BaseModel):
    """``python -m steps.deploy`` flags (the contract's inputs; the sizing and rollout flags are in
    :mod:`steps.deploy.step`)."""

    engine_uri: str = Field(description="engine bundle URI from convert-trt")
    model_version: str = Field(description="model version being deployed")
    memory_mb: str = Field(description="engine footprint per replica from convert-trt (MiB)")
    gpu_memory_mib: int = Field(5120, ge=256, le=1048576, description="GPU memory budget for the service (MiB)")
    gpu_compute_percent: int = Field(50, ge=1, le=100, description="GPU compute share for the service (%)")
    target: Literal["local", "kubernetes"] = Field("local", description="where to deploy")
    provider: Provider | None = Field("hami", description="fractional-GPU provider (kubernetes target)")
    namespace: str = Field("aipipe-serving", description="Kubernetes namespace (kubernetes target)")
    model_name: str = Field("", description="MLflow registered model whose champion alias moves to this version "
                            "once it serves; empty = no alias change")


CONTRACT = step_contract(
    __package__,
    description="Deploy the engine on a fraction of a GPU with a health-gated rollout.",
    flags=DeployFlags,
    outputs=(
        Output("endpoint", "URL of the inference service"),
        Output("replicas", "GPU processes (replicas) that fit the budget"),
        Output("gpu_memory_mb_per_replica", "GPU memory cap per replica (MiB)"),
        Output("provider", "fractional-GPU provider used"),
        Output("previous_version", "model version served before (empty if none)"),
        Output("rolled_back", "true when the new version failed its health gate"),
    ),
    artifacts=(Artifact("deploy-report", f"{OUTPUTS_DIR}/deploy-report.json", "rendered objects and health"),),
    resources=StepResources(cpu="1", memory="1Gi", deadline_seconds=1800, service_account=DEPLOYER_ACCOUNT),
)
