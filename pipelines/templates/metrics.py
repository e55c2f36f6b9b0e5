"""Argo custom metrics (``metrics.prometheus``) of the retrain runs and of the step templates.

Argo computes a workflow's metrics once it ends (``{{workflow.duration}}``, ``{{workflow.status}}``)
and a template's metrics once its node completes, with ``{{status}}``, ``{{duration}}``,
``{{inputs.parameters.*}}`` and ``{{outputs.parameters.*}}`` of that node; the controller prefixes
each name with ``argo_workflows_``. Every step reports its duration and outcome. One metric name
always keeps one type and one help text, as Prometheus requires.
"""

from __future__ import annotations

from collections.abc import Sequence

from hera.workflows.models import Amount, Counter, Histogram, MetricLabel, Prometheus

from aipipe.contract import StepSpec

DURATION_BUCKETS = (30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0)


def run_metrics(trigger: str) -> list[Prometheus]:
    """Workflow-level: how long a whole retrain took, by trigger and final status."""
    return [Prometheus(name="aipipe_retrain_duration_seconds", help="Duration of a whole aipipe retrain run",
                       labels=_labels((("trigger", trigger), ("status", "{{workflow.status}}"))),
                       histogram=Histogram(value="{{workflow.duration}}", buckets=_buckets()))]


def _buckets() -> list[Amount]:
    return [Amount(b) for b in DURATION_BUCKETS]


def _labels(pairs: Sequence[tuple[str, str]]) -> list[MetricLabel]:
    return [MetricLabel(key=key, value=value) for key, value in pairs]


def step_metrics(spec: StepSpec) -> list[Prometheus]:
    """Duration and outcome of every run of the step."""
    outcome = (("step", spec.name), ("status", "{{status}}"))
    return [
        Prometheus(name="aipipe_step_duration_seconds", help="Duration of an aipipe pipeline step, by final status",
                   labels=_labels(outcome),
                   histogram=Histogram(value="{{duration}}", buckets=_buckets())),
        Prometheus(name="aipipe_step_runs_total", help="Finished aipipe pipeline steps, by final status",
                   labels=_labels(outcome), counter=Counter(value="1")),
    ]
