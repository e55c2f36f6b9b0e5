"""Kubernetes target: server-side apply, rollout wait, health gate through the Service, rollback.

Talks to the API server through the ``kubernetes`` client (kubeconfig or in-cluster config, auth, TLS)
with raw JSON bodies, so the objects stay the plain dicts ``render`` produced. Apply is server-side
(``application/apply-patch+yaml``, field manager ``aipipe``): a field another manager owns with a
different value is a conflict (exit 2, naming the field and its manager) unless ``force_conflicts``.

Rollout: after the Deployment is applied the controller makes a ReplicaSet for the new pod template
(revision ``deployment.kubernetes.io/revision``). The step waits until that ReplicaSet is ready and the
old pods are gone, then calls /readyz and a smoke prediction through the API server's Service proxy;
the answer must come from the new model version. On failure it re-applies the previous ReplicaSet's pod
template (what ``kubectl rollout undo`` does) and waits for that rollout.

Never run against a real cluster here: tests use the fake apps/v1 API in tests/fake_kube.py.
"""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from aipipe.errors import AuthError, ConflictError, ServiceUnavailable, UserError

from .health import HealthResult, Transport, gate
from .render import FIELD_MANAGER, ServiceSpec

REVISION = "deployment.kubernetes.io/revision"
TEMPLATE_HASH = "pod-template-hash"
APPLY_PATCH = "application/apply-patch+yaml"
_COLLECTIONS = {
    ("apps/v1", "Deployment"): "/apis/apps/v1/namespaces/{ns}/deployments",
    ("apps/v1", "ReplicaSet"): "/apis/apps/v1/namespaces/{ns}/replicasets",
    ("v1", "Service"): "/api/v1/namespaces/{ns}/services",
    ("autoscaling/v2", "HorizontalPodAutoscaler"): "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
}


def _collection(api_version: str, kind: str, namespace: str) -> str:
    try:
        return _COLLECTIONS[(api_version, kind)].format(ns=namespace)
    except KeyError:
        raise UserError(f"the deploy step does not apply {kind} ({api_version})", field="kind") from None


class KubeApi:
    """JSON requests to the API server through the kubernetes client's ApiClient."""

    def __init__(self, api_client: Any) -> None:
        self.client = api_client

    @classmethod
    def from_environment(cls, context: str | None = None) -> KubeApi:
        """In-cluster credentials inside a pod, else the kubeconfig (``KUBECONFIG`` or ~/.kube/config)."""
        from kubernetes import client, config

        settings = client.Configuration()  # our own, never the client's process-wide default
        try:
            if os.environ.get("KUBERNETES_SERVICE_HOST"):
                config.load_incluster_config(client_configuration=settings)
            else:
                # KUBECONFIG read now: the client reads it once, at import time
                config.load_kube_config(config_file=os.environ.get("KUBECONFIG") or None, context=context,
                                        client_configuration=settings)
        except config.ConfigException as exc:
            raise UserError(f"no Kubernetes credentials: {exc}", field="kubeconfig") from exc
        return cls(client.ApiClient(settings))

    def request(self, method: str, path: str, *, query: dict[str, Any] | None = None, body: Any = None,
                content_type: str | None = None, timeout_s: float = 30.0, raw: bool = False) -> Any:
        """One call; JSON answers are parsed. 404 returns None; other failures raise contract errors."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        headers = {"Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        params = [(k, v) for k, v in (query or {}).items() if v is not None]
        serialized = self.client.param_serialize(method, path, query_params=params, header_params=headers,
                                                 body=body, auth_settings=["BearerToken"])
        try:
            response = self.client.call_api(*serialized, _request_timeout=timeout_s)
            data = response.read()
        except (HTTPError, OSError) as exc:
            raise ServiceUnavailable(f"Kubernetes API unreachable: {exc}", field="kubernetes") from exc
        except ApiException as exc:  # the REST layer raises it for TLS failures (status 0)
            raise ServiceUnavailable(f"Kubernetes API error: {exc.reason}", field="kubernetes") from exc
        if raw:
            return response.status, data
        if response.status == 404:
            return None
        if response.status >= 300:
            raise _api_error(response.status, data, f"{method} {path}")
        return json.loads(data) if data else None


def _api_error(status: int, data: bytes, what: str) -> Exception:
    try:
        payload = json.loads(data)
        message = payload.get("message") or data.decode(errors="replace")
    except ValueError:
        payload, message = {}, data.decode(errors="replace")
    if status in (401, 403):
        return AuthError(f"{what}: {message}", field="kubernetes")
    if status == 409:
        causes = payload.get("details", {}).get("causes", []) if isinstance(payload, dict) else []
        fields = "; ".join(c.get("message", "") for c in causes) or message
        return ConflictError(f"{what}: server-side apply conflict: {fields} (rerun with --force-conflicts to "
                             "take these fields over)", field="kubernetes")
    if status in (400, 415, 422):
        return UserError(f"{what}: {message}", field="kubernetes")
    return ServiceUnavailable(f"{what}: HTTP {status}: {message}", field="kubernetes")


@dataclass
class KubeOutcome:
    """What happened; it fills the step's outputs and report."""

    endpoint: str
    previous_version: str = ""
    previous_revision: str = ""
    revision: str = ""
    rolled_back: bool = False
    health: HealthResult = field(default_factory=HealthResult)
    rollback: dict[str, Any] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)


class KubeDeployer:
    """Applies a rendered service and rolls it out behind the health gate."""

    def __init__(self, api: KubeApi, spec: ServiceSpec, *, timeout_s: float = 600.0, poll_s: float = 1.0,
                 force_conflicts: bool = False) -> None:
        self.api = api
        self.spec = spec
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self.force_conflicts = force_conflicts

    def _path(self, api_version: str, kind: str, name: str = "") -> str:
        base = _collection(api_version, kind, self.spec.namespace)
        return f"{base}/{name}" if name else base

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Server-side apply as field manager ``aipipe``."""
        path = self._path(obj["apiVersion"], obj["kind"], obj["metadata"]["name"])
        query = {"fieldManager": FIELD_MANAGER, "force": "true" if self.force_conflicts else None}
        return self.api.request("PATCH", path, query=query, body=obj, content_type=APPLY_PATCH)

    def deployment(self) -> dict[str, Any] | None:
        return self.api.request("GET", self._path("apps/v1", "Deployment", self.spec.name))

    def replica_sets(self) -> list[dict[str, Any]]:
        """The Deployment's ReplicaSets, newest revision first."""
        selector = ",".join(f"{k}={v}" for k, v in self.spec.selector.items())
        listing = self.api.request("GET", self._path("apps/v1", "ReplicaSet"), query={"labelSelector": selector})
        items = (listing or {}).get("items", [])
        return sorted(items, key=lambda rs: -int(rs["metadata"].get("annotations", {}).get(REVISION, "0")))

    def service_transport(self) -> Transport:
        """Reach the Service through the API server's proxy (works in-cluster and from a workstation)."""
        base = f"{self._path('v1', 'Service', self.spec.name)}:http/proxy"

        def send(method: str, path: str, body: bytes | None, content_type: str | None) -> tuple[int, bytes]:
            try:
                return self.api.request(method, base + path, body=body, content_type=content_type,
                                        timeout_s=15.0, raw=True)
            except ServiceUnavailable as exc:
                return 0, str(exc).encode()

        return send

    def wait_rollout(self, deadline: float) -> tuple[str, str]:
        """Wait until the newest ReplicaSet is ready and old pods are gone; returns (revision, "" or why not)."""
        while True:
            dep = self.deployment()
            if dep is None:
                return "", "the Deployment disappeared"
            revision = dep["metadata"].get("annotations", {}).get(REVISION, "")
            problem = _rollout_problem(dep, self.replica_sets(), revision)
            if not problem:
                return revision, ""
            stuck = _progress_deadline_exceeded(dep)
            if stuck or time.monotonic() >= deadline:
                return revision, stuck or f"rollout not complete after {self.timeout_s:g}s: {problem}"
            time.sleep(self.poll_s)

    def deploy(self, objects: list[dict[str, Any]], health_timeout_s: float = 120.0) -> KubeOutcome:
        """Apply ``objects`` (Deployment last), gate the rollout, roll back on failure."""
        outcome = KubeOutcome(endpoint=self.spec.cluster_url)
        before = self.deployment()
        if before is not None:
            outcome.previous_version = before["metadata"].get("labels", {}).get("app.kubernetes.io/version", "")
            outcome.previous_revision = before["metadata"].get("annotations", {}).get(REVISION, "")
        for obj in sorted(objects, key=lambda o: o["kind"] == "Deployment"):
            self.apply(obj)
            outcome.applied.append(f"{obj['kind']}/{obj['metadata']['name']}")
        deadline = time.monotonic() + self.timeout_s
        outcome.revision, problem = self.wait_rollout(deadline)
        if problem:
            outcome.health = HealthResult(error=problem)
        else:
            outcome.health = gate(self.service_transport(), self.spec.model_version, health_timeout_s)
        if not outcome.health.ok:
            outcome.rolled_back = True
            outcome.rollback = self.rollback(outcome, objects, health_timeout_s)
        return outcome

    def rollback(self, outcome: KubeOutcome, objects: list[dict[str, Any]], health_timeout_s: float) -> dict[str, Any]:
        """Re-apply the previous revision's pod template and wait for it; ``done`` False (and why) if none."""
        previous = next((rs for rs in self.replica_sets()
                         if rs["metadata"].get("annotations", {}).get(REVISION) not in ("", outcome.revision)), None)
        if previous is None:
            return {"done": False, "reason": "no previous revision to roll back to"}
        template = copy.deepcopy(previous["spec"]["template"])
        template["metadata"].get("labels", {}).pop(TEMPLATE_HASH, None)
        body = copy.deepcopy(next(o for o in objects if o["kind"] == "Deployment"))
        body["spec"]["template"] = template
        version = template["metadata"].get("labels", {}).get("app.kubernetes.io/version", "")
        body["metadata"]["labels"]["app.kubernetes.io/version"] = version
        self.apply(body)
        revision, problem = self.wait_rollout(time.monotonic() + self.timeout_s)
        health = None if problem else gate(self.service_transport(), version, health_timeout_s)
        return {"done": not problem and health is not None and health.ok, "to_version": version,
                "from_revision": previous["metadata"]["annotations"].get(REVISION), "revision": revision,
                "error": problem or (health.error if health else ""),
                "health": health.to_dict() if health else None}


def _rollout_problem(dep: dict[str, Any], replica_sets: list[dict[str, Any]], revision: str) -> str:
    """"" when the rollout of ``revision`` is complete, else what is still missing."""
    meta, spec, status = dep["metadata"], dep.get("spec", {}), dep.get("status", {})
    want = spec.get("replicas", 1)
    if status.get("observedGeneration", 0) < meta.get("generation", 0):
        return "the controller has not seen the new generation yet"
    new_rs = next((rs for rs in replica_sets if rs["metadata"].get("annotations", {}).get(REVISION) == revision), None)
    if new_rs is None:
        return f"no ReplicaSet for revision {revision or '?'} yet"
    ready = new_rs.get("status", {}).get("readyReplicas", 0)
    if ready < want:
        return f"ReplicaSet {new_rs['metadata']['name']}: {ready}/{want} ready"
    if status.get("updatedReplicas", 0) < want or status.get("availableReplicas", 0) < want:
        return "updated replicas not all available yet"
    if status.get("replicas", 0) > status.get("updatedReplicas", 0):
        return "old replicas still terminating"
    return ""


def _progress_deadline_exceeded(dep: dict[str, Any]) -> str:
    for cond in dep.get("status", {}).get("conditions", []):
        if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            return f"rollout stuck: {cond.get('message', 'progress deadline exceeded')}"
    return ""
