"""Lint Argo custom metrics (``metrics.prometheus``) for what the CRD schema cannot say.

- each metric has exactly one of ``gauge``, ``counter``, ``histogram``;
- a real-time gauge reads only the running duration (``{{duration}}``, ``{{workflow.duration}}``);
- ``{{outputs.parameters.x}}`` in a template's metrics names an output that template declares;
- one metric name keeps one type and one help text across all manifests (Prometheus refuses a
  second description of the same name, and Argo then drops the metric).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from aipipe.compile.diagnostics import Resource

METRIC_TYPES = ("gauge", "counter", "histogram")
REALTIME_VALUES = ("{{duration}}", "{{workflow.duration}}")
OUTPUT_REF = re.compile(r"\{\{\s*outputs\.parameters\.([A-Za-z0-9_-]+)\s*\}\}")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _prometheus(holder: Mapping[str, Any]) -> list[Any]:
    metrics = holder.get("metrics")
    found = metrics.get("prometheus") if isinstance(metrics, Mapping) else None
    return found if isinstance(found, list) else []


def _metric_sites(res: Resource) -> list[tuple[Mapping[str, Any], list[str | int], str, set[str] | None]]:
    """(metric, path, template name, declared outputs or None at workflow level) of one manifest."""
    sites: list[tuple[Mapping[str, Any], list[str | int], str, set[str] | None]] = []
    for i, metric in enumerate(_prometheus(res.spec)):
        sites.append((metric, [*res.spec_path, "metrics", "prometheus", i], "", None))
    for t, tmpl in enumerate(res.spec.get("templates") or []):
        if not isinstance(tmpl, Mapping):
            continue
        params = (tmpl.get("outputs") or {}).get("parameters") or []
        declared = {str(p.get("name")) for p in params if isinstance(p, Mapping)}
        for i, metric in enumerate(_prometheus(tmpl)):
            path: list[str | int] = [*res.spec_path, "templates", t, "metrics", "prometheus", i]
            sites.append((metric, path, str(tmpl.get("name", "")), declared))
    return sites


def check_metrics(resources: Sequence[Resource]) -> None:
    """Report metric problems on each resource; names are compared across all of them."""
    first: dict[str, tuple[str, str, str]] = {}  # name -> (type, help, where)
    for res in resources:
        for metric, path, template, declared in _metric_sites(res):
            if not isinstance(metric, Mapping):
                continue
            types = [t for t in METRIC_TYPES if metric.get(t) is not None]
            if len(types) != 1:
                res.report(f"a metric needs exactly one of {', '.join(METRIC_TYPES)}, found {len(types)}", path,
                           template, "metrics")
                continue
            body = metric[types[0]] if isinstance(metric[types[0]], Mapping) else {}
            value = str(body.get("value", ""))
            if types[0] == "gauge" and body.get("realtime") and value.strip() not in REALTIME_VALUES:
                res.report(f"a real-time gauge can only read {' or '.join(REALTIME_VALUES)}, got {value!r}",
                           [*path, "gauge", "value"], template, "metrics")
            if declared is not None:
                for ref in sorted({r for text in _strings(metric) for r in OUTPUT_REF.findall(text)}):
                    if ref not in declared:
                        res.report(f"{{{{outputs.parameters.{ref}}}}}: template {template!r} declares no output "
                                   f"{ref!r}", path, template, "reference")
            name, text = str(metric.get("name", "")), str(metric.get("help", ""))
            where = f"{res.kind}/{res.name}" + (f" template {template}" if template else "")
            kind, help_text, seen_at = first.setdefault(name, (types[0], text, where))
            if (kind, help_text) != (types[0], text):
                res.report(f"metric {name!r} is a {types[0]} with help {text!r}, but a {kind} with help "
                           f"{help_text!r} at {seen_at}: one name keeps one type and one help", path, template,
                           "metrics")
