"""Kubernetes objects of the inference service and of the deploy step's own permissions.

``render_service`` gives the Service, the Deployment (one pod = one fractional-GPU service holding
``replicas`` GPU processes) and, when asked, a HorizontalPodAutoscaler. ``render_rbac`` gives the
ServiceAccount the deploy step runs as and a least-privilege Role for it in the serving namespace; an
administrator applies those once (the step never grants itself rights). ``validate`` checks every object
against the Kubernetes OpenAPI schema (strict: unknown fields are errors). An engine URI a pod cannot
fetch (anything but ``s3://``, e.g. a ``file://`` path on the machine that rendered it) is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from aipipe.config import KEYS_BY_NAME
from aipipe.errors import UserError

from .contract import DEPLOYER_ACCOUNT
from .providers import GpuShare, get_provider
from .sizing import Sizing

FIELD_MANAGER = "aipipe"
SERVICE_PORT = 80
CONTAINER_PORT = 8000
ENGINE_MOUNT = "/engine"
SHM_SIZE = "1Gi"  # CPU workers and GPU processes exchange tensors through /dev/shm (default 64Mi)
HOST_MEMORY_PER_PROCESS_MIB = 512
KUBERNETES_SCHEMA_VERSION = "1.33"
_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,50}[a-z0-9])?$")
_LABEL_VALUE_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
_STORAGE_SECRETS = ("storage.s3_access_key", "storage.s3_secret_key")


@dataclass(frozen=True)
class ServiceSpec:
    """Everything the objects depend on, resolved once at the step's entry point."""

    name: str
    namespace: str
    model_version: str
    engine_uri: str
    image: str
    provider: str
    sizing: Sizing
    share: GpuShare
    secret_name: str = "aipipe-secrets"
    storage_env: dict[str, str] = field(default_factory=dict)  # non-secret storage settings (S3 endpoint, region)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    hpa_max_replicas: int = 0  # 0 = no HorizontalPodAutoscaler

    def __post_init__(self) -> None:
        if not _NAME_RE.match(self.name):
            raise UserError(f"{self.name!r} is not a valid service name (lowercase letters, digits, '-', "
                            "starting with a letter, at most 52 characters)", field="name")
        if urlparse(self.engine_uri).scheme != "s3":
            raise UserError(f"{self.engine_uri!r} is not reachable from a pod (its init container fetches the "
                            "engine from object storage): use an s3:// storage root", field="engine-uri")
        if not self.model_version or not _LABEL_VALUE_RE.match(self.model_version):
            raise UserError(f"{self.model_version!r} cannot be a label value (letters, digits, '-', '_', '.', "
                            "at most 63 characters)", field="model-version")

    @property
    def selector(self) -> dict[str, str]:
        """Stable across versions: a Deployment's selector is immutable."""
        return {"app.kubernetes.io/name": self.name, "app.kubernetes.io/instance": self.name}

    @property
    def cluster_url(self) -> str:
        """The Service's in-cluster URL."""
        return f"http://{self.name}.{self.namespace}.svc.cluster.local"

    @property
    def labels(self) -> dict[str, str]:
        return {**self.selector, "app.kubernetes.io/version": self.model_version,
                "app.kubernetes.io/component": "inference", "app.kubernetes.io/part-of": "aipipe",
                "app.kubernetes.io/managed-by": FIELD_MANAGER}


def _meta(spec: ServiceSpec, name: str | None = None) -> dict[str, Any]:
    return {"name": name or spec.name, "namespace": spec.namespace, "labels": spec.labels}


def _secret_env(secret_name: str) -> list[dict[str, Any]]:
    env = []
    for key in _STORAGE_SECRETS:
        var = KEYS_BY_NAME[key].env
        env.append({"name": var, "valueFrom": {"secretKeyRef": {
            "name": secret_name, "key": var.lower().replace("_", "-"), "optional": True}}})
    return env


def _server_args(spec: ServiceSpec) -> list[str]:
    s = spec.sizing
    return ["python", "-m", f"{__package__}.server", "--engine-dir", ENGINE_MOUNT, "--host", "0.0.0.0",
            "--port", str(CONTAINER_PORT), "--gpu-procs", str(s.replicas), "--cpu-workers", str(s.cpu_workers),
            "--gpu-memory-mb-per-proc", str(s.gpu_memory_mb_per_replica), "--device", "cuda"]


def _probe(path: str, period: int, failures: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": "http"}, "periodSeconds": period, "failureThreshold": failures,
            "timeoutSeconds": 2}


def _container_security() -> dict[str, Any]:
    return {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def render_deployment(spec: ServiceSpec) -> dict[str, Any]:
    """The Deployment: an init container fetches the engine bundle, the server runs it on the GPU share."""
    gpu = get_provider(spec.provider).request(spec.share)
    processes = 1 + spec.sizing.cpu_workers + spec.sizing.replicas
    host_memory = f"{processes * HOST_MEMORY_PER_PROCESS_MIB}Mi"
    cpu = str(spec.sizing.cpu_workers + 1)
    server = {
        "name": "server",
        "image": spec.image,
        "command": _server_args(spec),
        "ports": [{"name": "http", "containerPort": CONTAINER_PORT, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": cpu, "memory": host_memory},
                      "limits": {"memory": host_memory, **gpu.limits}},
        "readinessProbe": _probe("/readyz", 5, 3),
        "livenessProbe": _probe("/healthz", 10, 3),
        "startupProbe": _probe("/healthz", 5, 60),
        "volumeMounts": [{"name": "engine", "mountPath": ENGINE_MOUNT, "readOnly": True},
                         {"name": "shm", "mountPath": "/dev/shm"}],
        "securityContext": _container_security(),
    }
    if gpu.env:
        server["env"] = [{"name": k, "value": v} for k, v in sorted(gpu.env.items())]
    fetch = {
        "name": "fetch-engine",
        "image": spec.image,
        "command": ["python", "-m", f"{__package__}.fetch", "--engine-uri", spec.engine_uri, "--dest", ENGINE_MOUNT],
        "env": [{"name": k, "value": v} for k, v in sorted(spec.storage_env.items())] + _secret_env(spec.secret_name),
        "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "512Mi"}},
        "volumeMounts": [{"name": "engine", "mountPath": ENGINE_MOUNT}],
        "securityContext": _container_security(),
    }
    pod_spec: dict[str, Any] = {
        "automountServiceAccountToken": False,  # the server never calls the API
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "initContainers": [fetch],
        "containers": [server],
        "volumes": [{"name": "engine", "emptyDir": {}},
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_SIZE}}],
    }
    if gpu.scheduler_name:
        pod_spec["schedulerName"] = gpu.scheduler_name
    if spec.node_selector:
        pod_spec["nodeSelector"] = dict(spec.node_selector)
    if spec.tolerations:
        pod_spec["tolerations"] = [dict(t) for t in spec.tolerations]
    template_meta: dict[str, Any] = {"labels": {**spec.labels, **gpu.labels}}
    annotations = {**gpu.annotations, "aipipe.io/engine-uri": spec.engine_uri}
    template_meta["annotations"] = dict(sorted(annotations.items()))
    # With an HPA the autoscaler owns the replica count: applying one would fight it (SSA conflict).
    replicas = {} if spec.hpa_max_replicas > 0 else {"replicas": 1}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {**_meta(spec), "annotations": {"aipipe.io/gpu-provider": spec.provider}},
        "spec": {
            **replicas,
            "revisionHistoryLimit": 5,
            "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": spec.selector},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "template": {"metadata": template_meta, "spec": pod_spec},
        },
    }


def render_service_object(spec: ServiceSpec) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(spec),
        "spec": {"type": "ClusterIP", "selector": spec.selector,
                 "ports": [{"name": "http", "port": SERVICE_PORT, "targetPort": "http", "protocol": "TCP"}]},
    }


def render_hpa(spec: ServiceSpec) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": _meta(spec),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
            "minReplicas": 1,
            "maxReplicas": spec.hpa_max_replicas,
            "metrics": [{"type": "Resource", "resource": {
                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}],
        },
    }


def render_service(spec: ServiceSpec) -> list[dict[str, Any]]:
    """What the deploy step applies: Service, Deployment (+ HPA)."""
    objects = [render_service_object(spec), render_deployment(spec)]
    if spec.hpa_max_replicas > 0:
        objects.append(render_hpa(spec))
    return objects


def render_rbac(namespace: str, step_namespace: str, *, with_hpa: bool = False) -> list[dict[str, Any]]:
    """The deploy step's ServiceAccount (in the workflows' namespace) and its Role in the serving namespace.

    Rights: apply and watch Deployments and Services, read ReplicaSets (to find the new revision and the
    previous one), reach the Service through the API server's proxy (health + smoke prediction).
    """
    labels = {"app.kubernetes.io/part-of": "aipipe", "app.kubernetes.io/managed-by": FIELD_MANAGER,
              "app.kubernetes.io/component": "deployer"}
    rules: list[dict[str, Any]] = [
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch", "create", "patch"]},
        {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["services"], "verbs": ["get", "list", "create", "patch"]},
        {"apiGroups": [""], "resources": ["services/proxy"], "verbs": ["get", "create"]},
    ]
    if with_hpa:
        rules.append({"apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"],
                      "verbs": ["get", "create", "patch"]})
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": DEPLOYER_ACCOUNT, "namespace": step_namespace, "labels": labels}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
         "metadata": {"name": DEPLOYER_ACCOUNT, "namespace": namespace, "labels": labels}, "rules": rules},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": {"name": DEPLOYER_ACCOUNT, "namespace": namespace, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": DEPLOYER_ACCOUNT},
         "subjects": [{"kind": "ServiceAccount", "name": DEPLOYER_ACCOUNT, "namespace": step_namespace}]},
    ]


def validate(objects: list[dict[str, Any]], version: str = KUBERNETES_SCHEMA_VERSION) -> None:
    """Check each object against the Kubernetes OpenAPI schema (strict); a failure names the object and field."""
    import kubernetes_validate  # lazy: only the deploy step and tests need it

    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "(root)"
            raise UserError(f"{obj['kind']}/{obj['metadata']['name']}: {where}: {exc.message}",
                            field="rendered manifest") from exc
