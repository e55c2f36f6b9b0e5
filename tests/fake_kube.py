"""A fake of the parts of the Kubernetes API the deploy step uses (no API server can run here).

An ``http.server`` on 127.0.0.1 that the real ``kubernetes`` client talks to (bearer token required).
It enforces what the deployer relies on:

- server-side apply (``PATCH`` with ``application/apply-patch+yaml``): ``fieldManager`` required; per-manager
  field ownership kept in ``metadata.managedFields``; a field owned by another manager with a different
  value is a 409 Conflict listing the fields unless ``force=true`` (which takes them over); equal values
  are shared; fields a manager stops applying are removed unless another manager owns them; lists of
  objects with ``name`` merge by name, other lists are atomic;
- ``metadata.generation`` bumps on spec changes; the Deployment controller sees a new generation after
  ``observe_lag_s`` (until then ``status.observedGeneration`` and the revision stay old); a Deployment's
  selector is immutable (422);
- a Deployment controller: each new pod template gets a ReplicaSet (``pod-template-hash`` label, owner
  reference, ``deployment.kubernetes.io/revision``); going back to an old template reuses its ReplicaSet
  with a new revision (how rollback works); ``status`` (observedGeneration, replicas, updated/ready/available,
  Progressing condition with ProgressDeadlineExceeded); old ReplicaSets scale to 0 once the new one is ready;
- readiness the test controls: ``ready_policy(template) -> bool`` and ``ready_after_s``;
- the Service proxy (``/api/v1/namespaces/{ns}/services/{name}:{port}/proxy/...``) forwards to the
  backend URL registered for the model version of the newest ready ReplicaSet the Service selects.

Pods cannot run here: ``add_pods(version)`` starts a small HTTP stand-in for that version's serving pods
(``/readyz``, ``/v1/predict`` answering as that version, or failing when ``healthy=False``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import yaml

REVISION = "deployment.kubernetes.io/revision"
VERSION_LABEL = "app.kubernetes.io/version"
_RESOURCE_RE = re.compile(
    r"^/(?:api/v1|apis/(?P<group>[a-z0-9.]+)/(?P<gv>v[0-9a-z]+))/namespaces/(?P<ns>[^/]+)/(?P<plural>[a-z]+)"
    r"(?:/(?P<name>[^/]+)(?P<rest>/.*)?)?$")
_KINDS = {"deployments": ("apps/v1", "Deployment"), "replicasets": ("apps/v1", "ReplicaSet"),
          "services": ("v1", "Service"), "horizontalpodautoscalers": ("autoscaling/v2", "HorizontalPodAutoscaler"),
          # Argo's and argo-events' custom resources (aipipe triggers apply --kubernetes)
          "workflowtemplates": ("argoproj.io/v1alpha1", "WorkflowTemplate"),
          "workfloweventbindings": ("argoproj.io/v1alpha1", "WorkflowEventBinding"),
          "eventsources": ("argoproj.io/v1alpha1", "EventSource"), "sensors": ("argoproj.io/v1alpha1", "Sensor")}
_SERVER_FIELDS = {"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp"}

Path = tuple[str, ...]


# --- field sets ---------------------------------------------------------------------------------------

def _keyed(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) and "name" in i for i in items)


def field_set(obj: Any, prefix: Path = ()) -> set[Path]:
    """Leaf paths of an applied object; ``k:<name>`` marks an item of a list merged by name."""
    out: set[Path] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not prefix and key in ("apiVersion", "kind", "status"):
                continue
            if prefix == ("f:metadata",) and key in (*_SERVER_FIELDS, "name", "namespace"):
                continue
            path = (*prefix, f"f:{key}")
            if isinstance(value, dict) and value:
                out |= field_set(value, path)
            elif isinstance(value, list) and _keyed(value):
                for item in value:
                    item_path = (*path, f"k:{item['name']}")
                    out.add(item_path)
                    out |= field_set(item, item_path)
            else:
                out.add(path)
    return out


def _get(obj: Any, path: Path) -> Any:
    for part in path:
        if obj is None:
            return None
        if part.startswith("f:"):
            obj = obj.get(part[2:]) if isinstance(obj, dict) else None
        else:
            name = part[2:]
            obj = next((i for i in obj if isinstance(i, dict) and i.get("name") == name), None) \
                if isinstance(obj, list) else None
    return obj


def _delete(obj: Any, path: Path) -> None:
    parent = _get(obj, path[:-1])
    last = path[-1]
    if last.startswith("f:") and isinstance(parent, dict):
        parent.pop(last[2:], None)
    elif last.startswith("k:") and isinstance(parent, list):
        parent[:] = [i for i in parent if not (isinstance(i, dict) and i.get("name") == last[2:])]


def _merge(live: Any, applied: Any) -> Any:
    if isinstance(live, dict) and isinstance(applied, dict):
        out = dict(live)
        for key, value in applied.items():
            out[key] = _merge(live.get(key), value)
        return out
    if isinstance(live, list) and isinstance(applied, list) and _keyed(applied) and _keyed(live):
        by_name = {i["name"]: i for i in live}
        merged = [_merge(by_name.get(i["name"]), i) for i in applied]
        names = {i["name"] for i in applied}
        return merged + [i for i in live if i["name"] not in names]
    return copy.deepcopy(applied)


def _fields_v1(paths: set[Path]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in sorted(paths):
        node = tree
        for part in path:
            key = part if part.startswith("f:") else "k:" + json.dumps({"name": part[2:]})
            node = node.setdefault(key, {})
    return tree


def _prune_empty(obj: Any) -> None:
    if isinstance(obj, dict):
        for key in list(obj):
            _prune_empty(obj[key])
            if obj[key] == {} and key not in ("emptyDir",):
                del obj[key]
    elif isinstance(obj, list):
        for item in obj:
            _prune_empty(item)


class FakePods:
    """What a version's pods answer behind the Service; ``healthy=False``: ready, but predictions fail."""

    def __init__(self, version: str, healthy: bool = True) -> None:
        self.version, self.healthy, self.predictions = version, healthy, 0
        pods = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._answer(200, {"status": "ready"})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                pods.predictions += 1
                if not pods.healthy:
                    return self._answer(500, {"error": "engine failed"})
                self._answer(200, {"model_version": pods.version,
                                   "predictions": [{"class": "cat", "index": 0, "probability": 0.9}]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class ApplyConflict(Exception):
    def __init__(self, conflicts: list[tuple[str, str]]) -> None:
        super().__init__(conflicts)
        self.conflicts = conflicts


# --- the API ------------------------------------------------------------------------------------------

class FakeKube:
    """State + controllers; ``start()`` serves it on 127.0.0.1."""

    def __init__(self, token: str = "test-token") -> None:
        self.token = token
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.managed: dict[tuple[str, str, str], dict[str, set[Path]]] = {}
        self.backends: dict[str, str] = {}  # model version -> base URL of its "pods"
        self.ready_policy: Callable[[dict[str, Any]], bool] = lambda template: True
        self.ready_after_s = 0.1
        self.observe_lag_s = 0.0  # how long the Deployment controller takes to see a new generation
        self.progress_deadline_s: float | None = None  # None = the Deployment's progressDeadlineSeconds
        self.requests: list[tuple[str, str, str]] = []  # (method, path, content type)
        self._lock = threading.RLock()
        self._rv = 0
        self._server: ThreadingHTTPServer | None = None
        self._pods: list[FakePods] = []

    # lifecycle
    def start(self) -> str:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add_pods(self, version: str, healthy: bool = True) -> FakePods:
        pods = FakePods(version, healthy)
        self._pods.append(pods)
        self.backends[version] = pods.url
        return pods

    def stop(self) -> None:
        for pods in self._pods:
            pods.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def kubeconfig(self, url: str | None = None) -> dict[str, Any]:
        url = url or self.url
        return {"apiVersion": "v1", "kind": "Config", "current-context": "fake",
                "clusters": [{"name": "fake", "cluster": {"server": url}}],
                "users": [{"name": "fake", "user": {"token": self.token}}],
                "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}

    # server-side apply
    def apply(self, plural: str, ns: str, name: str, body: dict[str, Any], manager: str, force: bool) -> dict:
        with self._lock:
            key = (plural, ns, name)
            live = copy.deepcopy(self.objects.get(key))
            owners = self.managed.setdefault(key, {})
            applied = field_set(body)
            conflicts = []
            for other, fields in owners.items():
                if other == manager:
                    continue
                for path in sorted(applied & fields):
                    if _get(live, path) != _get(body, path):
                        conflicts.append((other, ".".join(p[2:] for p in path)))
            if conflicts and not force:
                raise ApplyConflict(conflicts)
            for other, path_text in conflicts:
                owners[other] = {p for p in owners[other] if ".".join(x[2:] for x in p) != path_text}
            others = set().union(*(f for m, f in owners.items() if m != manager)) if owners else set()
            if live is None:
                live = {"apiVersion": body["apiVersion"], "kind": body["kind"],
                        "metadata": {"name": name, "namespace": ns, "generation": 1,
                                     "uid": hashlib.sha1(f"{key}".encode()).hexdigest()[:16],
                                     "creationTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
            old_spec = copy.deepcopy(live.get("spec"))
            for path in sorted(owners.get(manager, set()) - applied - others, key=len, reverse=True):
                _delete(live, path)
            _prune_empty(live.get("spec"))
            _prune_empty(live["metadata"])
            merged = _merge(live, {k: v for k, v in body.items() if k != "status"})
            merged["metadata"].update(name=name, namespace=ns)
            if plural == "deployments" and old_spec is not None and \
                    old_spec.get("selector") != merged.get("spec", {}).get("selector"):
                raise ValueError("spec.selector: field is immutable")
            if old_spec is not None and old_spec != merged.get("spec"):
                merged["metadata"]["generation"] = live["metadata"].get("generation", 1) + 1
            owners[manager] = applied
            self._rv += 1
            merged["metadata"]["resourceVersion"] = str(self._rv)
            merged["metadata"]["managedFields"] = [
                {"manager": m, "operation": "Apply", "apiVersion": body["apiVersion"], "fieldsType": "FieldsV1",
                 "fieldsV1": _fields_v1(f)} for m, f in owners.items() if f]
            self.objects[key] = merged
            if plural == "deployments":
                merged.setdefault("spec", {}).setdefault("replicas", 1)
                merged["_applied_at"] = time.monotonic()  # the controller sees it after observe_lag_s
            return copy.deepcopy(merged)

    # the Deployment controller
    def _owned_sets(self, dep: dict[str, Any]) -> list[dict[str, Any]]:
        uid = dep["metadata"]["uid"]
        return [o for (plural, ns, _), o in self.objects.items() if plural == "replicasets"
                and ns == dep["metadata"]["namespace"]
                and any(r.get("uid") == uid for r in o["metadata"].get("ownerReferences", []))]

    def _sync_replica_sets(self, dep: dict[str, Any]) -> None:
        template = dep["spec"]["template"]
        digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]
        owned = self._owned_sets(dep)
        revisions = [int(rs["metadata"]["annotations"][REVISION]) for rs in owned]
        current = next((rs for rs in owned if rs["metadata"]["labels"].get("pod-template-hash") == digest), None)
        newest = max(revisions, default=0)
        if current is None:
            ns, name = dep["metadata"]["namespace"], f"{dep['metadata']['name']}-{digest}"
            rs_template = copy.deepcopy(template)
            rs_template["metadata"].setdefault("labels", {})["pod-template-hash"] = digest
            current = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                       "metadata": {"name": name, "namespace": ns, "labels": rs_template["metadata"]["labels"],
                                    "annotations": {REVISION: str(newest + 1)},
                                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                                         "name": dep["metadata"]["name"],
                                                         "uid": dep["metadata"]["uid"], "controller": True}]},
                       "spec": {"replicas": dep["spec"]["replicas"], "template": rs_template,
                                "selector": copy.deepcopy(dep["spec"]["selector"])},
                       "_created": time.monotonic()}
            self.objects[("replicasets", ns, name)] = current
        elif int(current["metadata"]["annotations"][REVISION]) != newest:
            current["metadata"]["annotations"][REVISION] = str(newest + 1)
            current["_created"] = time.monotonic()
        current["spec"]["replicas"] = dep["spec"]["replicas"]
        dep["metadata"].setdefault("annotations", {})[REVISION] = current["metadata"]["annotations"][REVISION]
        dep["_rollout_started"] = time.monotonic()

    def _reconcile(self) -> None:
        now = time.monotonic()
        for (plural, _, _), dep in list(self.objects.items()):
            if plural != "deployments":
                continue
            if dep.get("_observed") != dep["metadata"]["generation"] and \
                    now - dep["_applied_at"] >= self.observe_lag_s:
                self._sync_replica_sets(dep)
                dep["_observed"] = dep["metadata"]["generation"]
            if "_observed" not in dep:
                continue  # not seen by the controller yet: no status, no ReplicaSet
            revision = dep["metadata"]["annotations"][REVISION]
            owned = self._owned_sets(dep)
            new = next(rs for rs in owned if rs["metadata"]["annotations"][REVISION] == revision)
            new_ready = self.ready_policy(new["spec"]["template"]) and now - new["_created"] >= self.ready_after_s
            for rs in owned:
                if rs is not new and new_ready:
                    rs["spec"]["replicas"] = 0
                n = rs["spec"]["replicas"]
                ready = n if (rs is new and new_ready) or (rs is not new and rs.get("_was_ready")) else 0
                rs["_was_ready"] = rs.get("_was_ready") or (rs is new and new_ready)
                rs["status"] = {"replicas": n, "readyReplicas": ready, "availableReplicas": ready,
                                "observedGeneration": 1}
            total = sum(rs["status"]["replicas"] for rs in owned)
            ready_total = sum(rs["status"]["readyReplicas"] for rs in owned)
            deadline = self.progress_deadline_s if self.progress_deadline_s is not None \
                else dep["spec"].get("progressDeadlineSeconds", 600)
            if new_ready:
                cond = {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}
            elif now - dep["_rollout_started"] > deadline:
                cond = {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                        "message": f'ReplicaSet "{new["metadata"]["name"]}" has timed out progressing.'}
            else:
                cond = {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}
            dep["status"] = {"observedGeneration": dep["_observed"], "replicas": total,
                             "updatedReplicas": new["status"]["replicas"],
                             "readyReplicas": ready_total, "availableReplicas": ready_total,
                             "conditions": [cond]}

    # reads
    def get(self, plural: str, ns: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            self._reconcile()
            obj = self.objects.get((plural, ns, name))
            return _public(obj) if obj else None

    def list(self, plural: str, ns: str, selector: str = "") -> list[dict[str, Any]]:
        wanted = dict(p.split("=", 1) for p in selector.split(",") if p)
        with self._lock:
            self._reconcile()
            return [_public(o) for (p, n, _), o in sorted(self.objects.items()) if p == plural and n == ns
                    and all(o["metadata"].get("labels", {}).get(k) == v for k, v in wanted.items())]

    def proxy_target(self, ns: str, service: str) -> str | None:
        """Base URL of the pods the Service reaches: the newest ready ReplicaSet's model version."""
        with self._lock:
            self._reconcile()
            svc = self.objects.get(("services", ns, service))
            if svc is None:
                return None
            selector = svc["spec"].get("selector", {})
            ready = [rs for (p, n, _), rs in self.objects.items() if p == "replicasets" and n == ns
                     and rs["status"]["readyReplicas"] > 0
                     and all(rs["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in selector.items())]
            if not ready:
                return None
            newest = max(ready, key=lambda rs: int(rs["metadata"]["annotations"][REVISION]))
            return self.backends.get(newest["spec"]["template"]["metadata"]["labels"].get(VERSION_LABEL, ""))


def _public(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in obj.items() if not k.startswith("_")}


def _status(code: int, reason: str, message: str, causes: list[dict[str, str]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                            "reason": reason, "code": code}
    if causes:
        body["details"] = {"causes": causes}
    return body


class _Handler(BaseHTTPRequestHandler):
    fake: FakeKube

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, body: Any, content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method: str) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        content_type = self.headers.get("Content-Type", "")
        self.fake.requests.append((method, url.path, content_type))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Authorization") != f"Bearer {self.fake.token}":
            return self._send(401, _status(401, "Unauthorized", "Unauthorized"))
        match = _RESOURCE_RE.match(url.path)
        if not match or match["plural"] not in _KINDS:
            return self._send(404, _status(404, "NotFound", f"the server could not find {url.path}"))
        plural, ns, name, rest = match["plural"], match["ns"], match["name"], match["rest"]
        if plural == "services" and rest and rest.startswith("/proxy"):
            return self._proxy(method, ns, name, rest[len("/proxy"):] or "/", raw, content_type)
        if method == "GET" and name is None:
            items = self.fake.list(plural, ns, query.get("labelSelector", ""))
            api_version, kind = _KINDS[plural]
            return self._send(200, {"apiVersion": api_version, "kind": f"{kind}List", "items": items})
        if method == "GET":
            obj = self.fake.get(plural, ns, name)
            if obj is None:
                return self._send(404, _status(404, "NotFound", f'{plural} "{name}" not found'))
            return self._send(200, obj)
        if method == "PATCH" and name:
            return self._apply(plural, ns, name, raw, content_type, query)
        return self._send(405, _status(405, "MethodNotAllowed", f"{method} not supported by the fake"))

    def _apply(self, plural: str, ns: str, name: str, raw: bytes, content_type: str, query: dict[str, str]) -> None:
        if content_type.split(";")[0].strip() != "application/apply-patch+yaml":
            return self._send(415, _status(415, "UnsupportedMediaType", f"the fake only takes apply patches, "
                                                                      f"got {content_type!r}"))
        manager = query.get("fieldManager", "")
        if not manager:
            return self._send(400, _status(400, "BadRequest", "fieldManager is required for apply requests"))
        try:
            body = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            return self._send(400, _status(400, "BadRequest", f"invalid YAML: {exc}"))
        api_version, kind = _KINDS[plural]
        if not isinstance(body, dict) or body.get("apiVersion") != api_version or body.get("kind") != kind \
                or body.get("metadata", {}).get("name") != name:
            return self._send(400, _status(400, "BadRequest", "body apiVersion/kind/name do not match the URL"))
        try:
            obj = self.fake.apply(plural, ns, name, body, manager, query.get("force") == "true")
        except ApplyConflict as exc:
            causes = [{"type": "FieldManagerConflict", "message": f'conflict with "{m}": .{f}', "field": f".{f}"}
                      for m, f in exc.conflicts]
            return self._send(409, _status(409, "Conflict", f"Apply failed with {len(causes)} conflict(s)", causes))
        except ValueError as exc:
            return self._send(422, _status(422, "Invalid", str(exc)))
        return self._send(200, _public(obj))

    def _proxy(self, method: str, ns: str, service_port: str, path: str, raw: bytes, content_type: str) -> None:
        target = self.fake.proxy_target(ns, service_port.split(":")[0])
        if target is None:
            return self._send(503, _status(503, "ServiceUnavailable", f'no endpoints available for service '
                                                                      f'"{service_port}"'))
        req = urllib.request.Request(target + path, data=raw or None, method=method)
        if content_type:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return self._send(resp.status, resp.read(), resp.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as exc:
            return self._send(exc.code, exc.read(), exc.headers.get("Content-Type", ""))
        except OSError as exc:
            return self._send(502, _status(502, "BadGateway", f"error trying to reach service: {exc}"))

    def do_GET(self) -> None:
        self._route("GET")

    def do_PATCH(self) -> None:
        self._route("PATCH")

    def do_POST(self) -> None:
        self._route("POST")
