"""Argo custom metrics (``metrics.prometheus``) of the retrain runs and of the step templates.

Argo computes a workflow's metrics once it ends (``{{workflow.duration}}``, ``{{workflow.status}}``)
and a template's metrics once its node completes, with ``{{status}}``, ``{{duration}}``,
``{{inputs.parameters.*}}`` and ``{{outputs.parameters.*}}`` of that node; the controller prefixes
each name with ``argo_workflows_``. Every step reports its duration and outcome; steps whose outputs
are worth a time series (accuracy, engine speed) also report those values as gauges, only when the
step Succeeded (a failed step has no outputs to read). One metric name always keeps one type and one
help text, as Prometheus requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hera.workflows.models import Amount, Counter, Gauge, Histogram, MetricLabel, Prometheus

from aipipe.contract import StepSpec

DURATION_BUCKETS = (30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0)
SUCCEEDED = "{{status}} == Succeeded"
MODEL = ("model", "{{inputs.parameters.model-name}}")


@dataclass(frozen=True)
class OutputGauge:
    """A gauge set from one output parameter of one step (by its Argo name)."""

    step: str
    output: str
    name: str
    help: str
    labels: tuple[tuple[str, str], ...] = (MODEL,)


OUTPUT_GAUGES: tuple[OutputGauge, ...] = (
    OutputGauge("train", "val_accuracy", "aipipe_train_val_accuracy",
                "Top-1 accuracy of the newly trained model on the validation split"),
    OutputGauge("evaluate", "candidate_metric", "aipipe_eval_accuracy",
                "Top-1 accuracy of the candidate model on the held-out split, as the evaluate gate scored it"),
    OutputGauge("convert-trt", "throughput_b64", "aipipe_engine_throughput_items_per_second",
                "Inference engine throughput at batch 64 (items/s), measured by convert",
                (MODEL, ("backend", "{{outputs.parameters.backend}}"),
                 ("precision", "{{outputs.parameters.precision}}"))),
    OutputGauge("convert-trt", "latency_ms_b1", "aipipe_engine_latency_ms",
                "Inference engine latency at batch 1 (ms), measured by convert",
                (MODEL, ("backend", "{{outputs.parameters.backend}}"),
                 ("precision", "{{outputs.parameters.precision}}"))),
)


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
    """Duration and outcome of every run of the step, plus its output gauges."""
    outcome = (("step", spec.name), ("status", "{{status}}"))
    metrics = [
        Prometheus(name="aipipe_step_duration_seconds", help="Duration of an aipipe pipeline step, by final status",
                   labels=_labels(outcome),
                   histogram=Histogram(value="{{duration}}", buckets=_buckets())),
        Prometheus(name="aipipe_step_runs_total", help="Finished aipipe pipeline steps, by final status",
                   labels=_labels(outcome), counter=Counter(value="1")),
    ]
    for gauge in OUTPUT_GAUGES:
        if gauge.step == spec.name:
            metrics.append(Prometheus(
                name=gauge.name, help=gauge.help, labels=_labels(gauge.labels), when=SUCCEEDED,
                gauge=Gauge(value=f"{{{{outputs.parameters.{gauge.output}}}}}", realtime=False)))
    return metrics
