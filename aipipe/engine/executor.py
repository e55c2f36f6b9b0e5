"""The driver loop: walks a Workflow's templates and runs its nodes (body being written)."""

from __future__ import annotations

import threading
from typing import Any

from aipipe.engine.context import ExecutionContext


class WorkflowExecutor:
    """Runs one Workflow object to completion; ``run`` returns it with an Argo-shaped ``status``.

    If ``workflow["status"]["nodes"]`` is present the run resumes: Succeeded/Skipped/Omitted nodes
    are kept, nodes left Running/Pending are retried per their retryStrategy or marked Error.
    ``ctx.on_change`` receives the whole workflow after each state change (before a process
    starts and after it ends). ``stop.set()`` kills every child process group and ends the run
    Failed with message "terminated by user".
    """

    def __init__(self, workflow: dict[str, Any], ctx: ExecutionContext) -> None:
        self.workflow = workflow
        self.ctx = ctx

    def run(self, stop: threading.Event | None = None) -> dict[str, Any]:
        raise NotImplementedError("executor body in progress")
