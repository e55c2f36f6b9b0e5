"""Nightly retrain: a CronWorkflow running the retrain pipeline with its default parameters.

A run that finds no new annotations ends Succeeded after export (``changed=false``), so a
nightly schedule is cheap. ``Forbid`` keeps a slow run from overlapping the next one. The time zone
is ``triggers.timezone``; with ``triggers.skip_within_hours`` > 0 a ``when`` guard skips the run when
the last scheduled one was less than that many hours ago (Argo's ``cronworkflow.lastScheduledTime``).
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
STARTING_DEADLINE_SECONDS = 3600  # a schedule missed by more than an hour (controller down) is skipped


def when_guard(hours: int) -> str | None:
    """Argo's ``when``: true before the first run or once the last one is ``hours`` old (None for 0)."""
    if hours <= 0:
        return None
    return (f'{{{{= cronworkflow.lastScheduledTime == nil || cronworkflow.lastScheduledTime < now() - '
            f'duration("{hours}h") }}}}')


def build(cfg: Config) -> CronWorkflow:
    """The nightly CronWorkflow; spawned workflows carry the ``trigger: cron`` label."""
    params = resolve_params(retrain.PARAMETERS, None, cfg)
    kwargs = retrain.workflow_kwargs(cfg, params, trigger="cron")
    with CronWorkflow(
        name=NAME,
        schedules=SCHEDULES,
        timezone=str(cfg.get("triggers.timezone")),
        when=when_guard(int(cfg.get("triggers.skip_within_hours"))),
        concurrency_policy="Forbid",
        starting_deadline_seconds=STARTING_DEADLINE_SECONDS,
        successful_jobs_history_limit=3,
        failed_jobs_history_limit=3,
        workflow_metadata=WorkflowMetadata(labels=kwargs["labels"], annotations=kwargs["annotations"]),
        **kwargs,
    ) as cron:
        retrain.add_dag()
    return cron
