"""What a manifest asks that the embedded engine cannot honour as written, refused at submit with the field: env
sources a local node has no value for, volume kinds that need a cluster, memoize blocks without their parts, GPU
requests the pool cannot meet."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aipipe.engine.gpu import request_problem
from aipipe.engine.memospec import memoize_problems
from aipipe.engine.resourcefield import check_resource_field
from aipipe.errors import UserError

# the pod fields a node's env can take with valueFrom.fieldRef (aipipe.engine.pod gives their local values)
LOCAL_POD_FIELDS = ("metadata.name", "metadata.namespace", "spec.nodeName", "spec.serviceAccountName",
                    "status.podIP", "status.hostIP")
METADATA_KEY_FIELD = re.compile(r"metadata\.(labels|annotations)\['[^']+'\]")  # one label or annotation
# Volume kinds a node can mount here (aipipe.engine.volumes); the others need a cluster.
LOCAL_VOLUMES = ("emptyDir", "configMap", "secret", "persistentVolumeClaim")


def refuse_unsupported(spec: Mapping[str, Any], where: str) -> None:
    """UserError naming the first field of a template of ``spec`` (its templates, ``templateDefaults`` and inline
    templates) the engine cannot honour as written, e.g. ``spec.templates[2].memoize.cache.configMap.name``."""
    _check_memoize(spec.get("templateDefaults") or {}, f"{where}.templateDefaults")
    _refuse_volumes(spec.get("volumes"), f"{where}.volumes")
    for i, tmpl in enumerate(spec.get("templates") or []):
        _refuse_in_template(tmpl, f"{where}.templates[{i}]")


def _refuse_env_sources(env: Any, where: str) -> None:
    """``valueFrom`` sources a node cannot have: a ``fieldRef`` outside :data:`LOCAL_POD_FIELDS` and one label or
    annotation, and
    a ``resourceFieldRef`` Kubernetes would refuse."""
    for i, item in enumerate(env if isinstance(env, list) else []):
        source = (item.get("valueFrom") or {}) if isinstance(item, Mapping) else {}
        path = str((source.get("fieldRef") or {}).get("fieldPath") or "") if source.get("fieldRef") else None
        if path is not None and path not in LOCAL_POD_FIELDS and not METADATA_KEY_FIELD.fullmatch(path):
            raise UserError(f"fieldRef {path!r} has no value in the embedded engine (it gives "
                            f"{', '.join(LOCAL_POD_FIELDS)}, metadata.labels['KEY'] and "
                            "metadata.annotations['KEY']); give a value, or submit this workflow to Argo",
                            field=f"{where}[{i}].valueFrom.fieldRef.fieldPath")
        if source.get("resourceFieldRef"):
            check_resource_field(source["resourceFieldRef"], f"{where}[{i}].valueFrom.resourceFieldRef")


def _refuse_volumes(volumes: Any, where: str) -> None:
    for i, volume in enumerate(volumes if isinstance(volumes, list) else []):
        kinds = [k for k in (volume if isinstance(volume, Mapping) else {}) if k != "name"]
        for kind in kinds:
            if kind not in LOCAL_VOLUMES:
                raise UserError(f"{kind} volumes are not supported by the embedded engine (it mounts "
                                f"{', '.join(LOCAL_VOLUMES)} and volumeClaimTemplates); use one of those, or submit "
                                "this workflow to Argo", field=f"{where}[{i}].{kind}")


def _check_memoize(tmpl: Mapping[str, Any], where: str) -> None:
    """A ``memoize`` block runs (aipipe.engine.memo); one without its parts is refused before anything runs (a
    value in the wrong form errs its node when it is about to run, as in Argo's executeTemplate)."""
    if tmpl.get("memoize") is not None:
        for field, message in memoize_problems(tmpl["memoize"], f"{where}.memoize", values=False):
            raise UserError(message, field=field)


def _refuse_in_containers(tmpl: Mapping[str, Any], where: str) -> None:
    """A node's other containers (init containers, sidecars, a containerSet's) take the same env sources."""
    found = tmpl.get("containerSet")
    cset: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    for field, containers in (("initContainers", tmpl.get("initContainers")), ("sidecars", tmpl.get("sidecars")),
                              ("containerSet.containers", cset.get("containers"))):
        for i, container in enumerate(containers if isinstance(containers, list) else []):
            if isinstance(container, Mapping):
                _refuse_env_sources(container.get("env"), f"{where}.{field}[{i}].env")


def _refuse_in_template(tmpl: Any, where: str) -> None:
    if not isinstance(tmpl, Mapping):
        return
    _check_memoize(tmpl, where)
    _refuse_volumes(tmpl.get("volumes"), f"{where}.volumes")
    for kind in ("container", "script"):
        if isinstance(tmpl.get(kind), Mapping):
            _refuse_env_sources(tmpl[kind].get("env"), f"{where}.{kind}.env")
    _refuse_in_containers(tmpl, where)
    problem = request_problem(tmpl, where)
    if problem is not None:
        raise problem
    for gi, group in enumerate(tmpl.get("steps") or []):
        for si, step in enumerate(group if isinstance(group, list) else []):
            if isinstance(step, Mapping):
                _refuse_in_template(step.get("inline"), f"{where}.steps[{gi}][{si}].inline")
    dag = tmpl.get("dag")
    for ti, task in enumerate((dag.get("tasks") if isinstance(dag, Mapping) else None) or []):
        if isinstance(task, Mapping):
            _refuse_in_template(task.get("inline"), f"{where}.dag.tasks[{ti}].inline")
