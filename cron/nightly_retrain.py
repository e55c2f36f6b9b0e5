"""Nightly retrain: a CronWorkflow running the retrain pipeline with its default parameters.

A run that finds no new annotations ends Succeeded after export (``changed=false``), so a
nightly schedule is cheap. ``Forbid`` keeps a slow run from overlapping the next one.
"""

from __future__ import annotations

from hera.workflows import CronWorkflow
from hera.workflows.models import WorkflowMetadata

from aipipe.compile.params import resolve_params
from aipipe.config import Config
from pipelines import retrain

PIPELINE = "retrain"
NAME = "aipipe-retrain-nightly"
SCHEDULES = ["0 2 * * *"]
TIMEZONE = "UTC"
STARTING_DEADLINE_SECONDS = 3600  # a schedule missed by more than an hour (controller down) is skipped


def build(cfg: Config) -> CronWorkflow:
    """The nightly CronWorkflow; spawned workflows carry the ``trigger: cron`` label."""
    params = resolve_params(retrain.PARAMETERS, None, cfg)
    kwargs = retrain.workflow_kwargs(cfg, params, trigger="cron")
    with CronWorkflow(
        name=NAME,
        schedules=SCHEDULES,
        timezone=TIMEZONE,
        concurrency_policy="Forbid",
        starting_deadline_seconds=STARTING_DEADLINE_SECONDS,
        successful_jobs_history_limit=3,
        failed_jobs_history_limit=3,
        workflow_metadata=WorkflowMetadata(labels=kwargs["labels"], annotations=kwargs["annotations"]),
        **kwargs,
    ) as cron:
        retrain.add_dag()
    return cron
