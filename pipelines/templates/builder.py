"""The one template builder: a step's reusable WorkflowTemplate from its contract.

Everything a template says comes from the step folder's contract (inputs, outputs, artifacts,
GPU need, preemption, secrets, resources, deadline, version), from the platform's policy for every step
(:mod:`aipipe.steppolicy`: retries, Secret keys, plain env) and from the
:class:`~aipipe.config.Config` resolved at compile time (image, Secret name, GPU resource/node
selector/tolerations, the GPU-sharing provider whose terms a GPU share is said in (:mod:`aipipe.gpushare`),
non-secret service URLs).
"""

from __future__ import annotations

from hera.workflows import (
    Artifact,
    Container,
    EmptyDirVolume,
    Env,
    NoneArchiveStrategy,
    Parameter,
    Resources,
    RetryStrategy,
    SecretEnv,
    WorkflowTemplate,
)
from hera.workflows.models import Backoff, IntOrString, Quantity, Toleration, ValueFrom

from aipipe.argo.labels import DESCRIPTION_ANNOTATION, TITLE_ANNOTATION
from aipipe.config import KEYS_BY_NAME, Config
from aipipe.contract import OUTPUTS_DIR, StepSpec
from aipipe.gpushare import PREEMPTIBLE, PodGpu, pod_gpu
from aipipe.steppolicy import (
    BACKOFF_DURATION,
    BACKOFF_FACTOR,
    BACKOFF_MAX_DURATION,
    PLAIN_ENV_KEYS,
    RETRY_LIMIT,
    RETRY_POLICY,
    STORAGE_SECRETS,
    retry_expression,
    secret_key_name,
)
from pipelines.templates.metrics import step_metrics

BACKOFF = Backoff(duration=BACKOFF_DURATION, factor=IntOrString(BACKOFF_FACTOR), max_duration=BACKOFF_MAX_DURATION)

PROJECT_LABEL = "aipipe.io/project"
MODEL_LABEL = "aipipe.io/model"
TRIGGER_LABEL = "aipipe.io/trigger"
STEP_LABEL = "aipipe.io/step"
CONTRACT_LABEL = "aipipe.io/contract"
PART_OF_LABEL = "app.kubernetes.io/part-of"


def step_env(spec: StepSpec, cfg: Config) -> list[Env | SecretEnv]:
    """Plain config values (resolved now) and secrets (``secretKeyRef``, never literals)."""
    plain = {KEYS_BY_NAME[k].env: str(cfg.get(k)) for k in PLAIN_ENV_KEYS}
    plain.update({
        "AIPIPE_HOME": str(cfg.home),
        "AIPIPE_STORAGE_ROOT": cfg.storage_root,
        "MLFLOW_TRACKING_URI": cfg.mlflow_tracking_uri,
    })
    env: list[Env | SecretEnv] = [Env(name=name, value=value) for name, value in sorted(plain.items()) if value]
    secret_name = cfg.get("kubernetes.secret_name")
    for key in spec.secrets:
        env.append(SecretEnv(name=KEYS_BY_NAME[key].env, secret_name=secret_name, secret_key=secret_key_name(key)))
    for key in STORAGE_SECRETS:
        env.append(SecretEnv(name=KEYS_BY_NAME[key].env, secret_name=secret_name, secret_key=secret_key_name(key),
                             optional=True))
    return env


def step_parameters(spec: StepSpec) -> list[Parameter]:
    """Input parameters: required ones have no default; enums become Argo ``enum``."""
    params = []
    for item in spec.inputs:
        param = Parameter(name=item.name, description=item.description, enum=list(item.enum) or None)
        if item.default is not None:  # Hera would render an unset default as "null"
            param.default = item.default
        params.append(param)
    return params


def step_args(spec: StepSpec) -> list[str]:
    """``--<input> {{inputs.parameters.<input>}}`` for every contract input."""
    args: list[str] = []
    for item in spec.inputs:
        args += [f"--{item.name}", f"{{{{inputs.parameters.{item.name}}}}}"]
    return args


def step_outputs(spec: StepSpec) -> list[Parameter | Artifact]:
    """Output parameters read from ``/tmp/outputs/<name>``; reports as unarchived artifacts."""
    outputs: list[Parameter | Artifact] = [
        Parameter(name=o.name, description=o.description, value_from=ValueFrom(path=f"{OUTPUTS_DIR}/{o.name}"))
        for o in spec.outputs
    ]
    outputs += [Artifact(name=a.name, path=a.path, archive=NoneArchiveStrategy()) for a in spec.artifacts]
    return outputs


def _gpu_placement(cfg: Config) -> tuple[dict[str, str] | None, list[Toleration] | None]:
    selector = cfg.get("kubernetes.gpu_node_selector") or None
    tolerations = [Toleration(**t) for t in cfg.get("kubernetes.gpu_tolerations")] or None
    return selector, tolerations


def step_gpu(spec: StepSpec, cfg: Config) -> PodGpu | None:
    """The step's GPU need in the configured provider's terms (``deploy.provider``), None for none."""
    need = spec.gpu_need
    if need is None:
        return None
    return pod_gpu(need.count, need.memory_mib, need.compute_percent, cfg.get("deploy.provider"),
                   cfg.get("kubernetes.gpu_resource"))


def step_template(spec: StepSpec, cfg: Config) -> WorkflowTemplate:
    """The WorkflowTemplate ``aipipe-<step>-<version>`` with one container template named after the step;
    resources, deadline, GPU need and secrets all come from the step's contract."""
    resources = spec.resources
    gpu_resource = cfg.get("kubernetes.gpu_resource")
    gpu = step_gpu(spec, cfg) or PodGpu()
    whole = set(gpu.limits) == {gpu_resource} and not gpu.annotations  # Hera's own GPU field: requests and limits
    annotations = {**gpu.annotations, **({PREEMPTIBLE: "true"} if spec.preemptible else {})}
    node_selector, tolerations = _gpu_placement(cfg) if spec.gpu else (None, None)
    shm = [EmptyDirVolume(name="dshm", medium="Memory", size_limit=Quantity(resources.shm), mount_path="/dev/shm")] \
        if resources.shm else None
    labels = {PART_OF_LABEL: "aipipe", STEP_LABEL: spec.name, CONTRACT_LABEL: spec.version}
    with WorkflowTemplate(
        name=spec.template_name,
        labels=labels,
        annotations={TITLE_ANNOTATION: f"aipipe step: {spec.name} ({spec.version})",
                     DESCRIPTION_ANNOTATION: spec.description},
        entrypoint=spec.name,
        service_account_name=cfg.get("kubernetes.service_account"),
    ) as template:
        Container(
            name=spec.name,
            image=cfg.get("kubernetes.steps_image"),
            command=["python", "-m", spec.module],
            args=step_args(spec),
            inputs=step_parameters(spec),
            outputs=step_outputs(spec),
            env=step_env(spec, cfg),
            service_account_name=resources.service_account,
            resources=Resources(
                cpu_request=resources.cpu,
                memory_request=resources.memory,
                memory_limit=resources.memory,
                gpus=int(gpu.limits[gpu_resource]) if whole else None,
                gpu_flag=gpu_resource,
                custom_resources={"limits": gpu.limits} if gpu.limits and not whole else None,
            ),
            node_selector=node_selector,
            tolerations=tolerations,
            volumes=shm,
            retry_strategy=RetryStrategy(limit=RETRY_LIMIT, backoff=BACKOFF,
                                         expression=retry_expression(resources.retries_unavailable),
                                         retry_policy=RETRY_POLICY),
            active_deadline_seconds=resources.deadline_seconds,
            labels={STEP_LABEL: spec.name, **gpu.labels},
            annotations=annotations or None,
            scheduler_name=gpu.scheduler_name,
            metrics=step_metrics(spec),
        )
    return template
