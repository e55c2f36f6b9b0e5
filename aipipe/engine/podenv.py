"""A container's environment: the engine's variables, its image's, ``env`` and ``envFrom`` (values, Secrets,
ConfigMaps, the pod fields ``valueFrom.fieldRef`` reads, the resources ``resourceFieldRef`` reads)."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

from aipipe.confine import confined
from aipipe.engine.configmaps import ConfigMapStore
from aipipe.engine.execution import ExecutionContext
from aipipe.engine.expr import to_text
from aipipe.engine.kubeexpand import expand
from aipipe.engine.names import pod_name
from aipipe.engine.nodes import NodeTree
from aipipe.engine.resourcefield import resource_field_value
from aipipe.engine.template import Scope
from aipipe.engine.unsupported import METADATA_KEY_FIELD
from aipipe.errors import UserError

PROGRESS_FILE = "/argo/progress"


def pod_fields(nid: str, tmpl: Mapping[str, Any], scope: Scope, tree: NodeTree) -> dict[str, str]:
    """What ``valueFrom.fieldRef`` reads for this node (:data:`~aipipe.engine.unsupported.LOCAL_POD_FIELDS`):
    Argo's pod name for the node, the run's namespace and service account, this host, and the pod's labels and
    annotations (``metadata.labels['k']``: the ones Argo's controller puts on the pod, then the template's own)."""
    node = tree.get(nid) or {}
    workflow = str(scope.values.get("workflow.name") or "")
    template = str(node.get("templateName") or tmpl.get("name") or "")
    own = tmpl.get("metadata") or {}
    labels = {"workflows.argoproj.io/workflow": workflow, "workflows.argoproj.io/completed": "false",
              **(own.get("labels") or {})}
    annotations = {"workflows.argoproj.io/node-name": str(node.get("name") or ""),
                   "workflows.argoproj.io/node-id": nid, **(own.get("annotations") or {})}
    return {"metadata.name": pod_name(workflow, str(node.get("name") or nid), template),
            "metadata.namespace": str(scope.values.get("workflow.namespace") or ""),
            "spec.nodeName": socket.gethostname(),
            "spec.serviceAccountName": str(scope.values.get("workflow.serviceAccountName") or ""),
            "status.podIP": "127.0.0.1", "status.hostIP": "127.0.0.1",
            **{f"metadata.labels['{k}']": str(v) for k, v in labels.items()},
            **{f"metadata.annotations['{k}']": str(v) for k, v in annotations.items()}}


class ContainerEnv:
    """Builds one container's environment (main, init containers and sidecars alike)."""

    def __init__(self, ctx: ExecutionContext, configmaps: ConfigMapStore) -> None:
        self.ctx = ctx
        self.configmaps = configmaps

    def build(self, body: Mapping[str, Any], search_path: str, image_env: dict[str, str],
              pod_fields: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """The container's whole environment, and the part its pod spec declares (``envFrom``, then ``env``: what
        ``$(NAME)`` in its command and args may name). An ``env`` value's ``$(NAME)`` names one declared before it."""
        node_env = self.ctx.settings.node_env
        env = {k: os.environ[k] for k in node_env.passthrough if os.environ.get(k)}
        env.setdefault("HOME", os.path.expanduser("~"))
        env.setdefault("LANG", "C.UTF-8")
        env["PATH"] = search_path
        env["ARGO_PROGRESS_FILE"] = PROGRESS_FILE
        env.update(node_env.fixed)
        env.update(image_env)
        env.update(self.ctx.extra_env)
        declared: dict[str, str] = {}
        for i, ref in enumerate(body.get("envFrom") or []):
            declared.update(self._source(ref, f"envFrom[{i}]"))
        for item in body.get("env") or []:
            name = str(item.get("name"))
            if "value" in item:
                text = to_text(item["value"]) if not isinstance(item["value"], str) else item["value"]
                declared[name] = expand(text, declared)
                continue
            value = self._value_from(name, item.get("valueFrom") or {}, body, pod_fields)
            if value is not None:
                declared[name] = value
        env.update(declared)
        return env, declared

    def _value_from(self, name: str, source: Mapping[str, Any], body: Mapping[str, Any],
                    pod_fields: Mapping[str, str]) -> str | None:
        """An ``env`` entry's ``valueFrom``: a Secret's or ConfigMap's key, a pod field or a resource field."""
        if source.get("secretKeyRef"):
            ref = source["secretKeyRef"]
            return self.ctx.secrets.get(str(ref.get("name")), str(ref.get("key")), bool(ref.get("optional")))
        if source.get("configMapKeyRef"):
            ref = source["configMapKeyRef"]
            return self.configmaps.get(str(ref.get("name")), str(ref.get("key")), bool(ref.get("optional")),
                                       field=f"env {name}: valueFrom.configMapKeyRef")
        if source.get("fieldRef"):  # other fields are refused at submit; a label the pod lacks reads empty
            path = str(source["fieldRef"].get("fieldPath") or "")
            return pod_fields.get(path, "" if METADATA_KEY_FIELD.fullmatch(path) else None)
        if source.get("resourceFieldRef"):
            return resource_field_value(source["resourceFieldRef"], body, self.ctx.work_dir)
        return None

    def _source(self, ref: Mapping[str, Any], field: str) -> dict[str, str]:
        """The variables one ``envFrom`` entry gives: every key of a Secret or ConfigMap, ``prefix`` first;
        an ``optional`` one that does not exist gives none."""
        prefix = str(ref.get("prefix") or "")
        if ref.get("secretRef"):
            secret = ref["secretRef"]
            name = str(secret.get("name"))
            folder = confined(self.ctx.secrets.root, name, field=f"{field}.secretRef")
            if secret.get("optional") and not folder.is_dir():
                return {}
            values = self.ctx.secrets.keys(name)
        elif ref.get("configMapRef"):
            config_map = ref["configMapRef"]
            found = self.configmaps.require(str(config_map.get("name")), bool(config_map.get("optional")),
                                            f"{field}.configMapRef")
            values = {key: value.removesuffix("\n") for key, value in found.items()}
        else:
            raise UserError("needs secretRef or configMapRef", field=field)
        return {prefix + key: value for key, value in values.items()}
