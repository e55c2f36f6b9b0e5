"""Progress of one epoch: a rich bar in a terminal, log lines otherwise, and Argo's progress file."""

from __future__ import annotations

import logging
import sys
from types import TracebackType
from typing import Any

from aipipe.stepkit import report_progress

log = logging.getLogger("aipipe.train")


class EpochProgress:
    """Shows one epoch's steps; ``enabled`` is False on non-zero DDP ranks."""

    def __init__(self, epoch: int, epochs: int, steps: int, done: int, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._bar: Any = None
        self._task: Any = None
        if enabled and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn(f"epoch {epoch + 1}/{epochs}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.description}"), TimeRemainingColumn(), transient=False)
            self._task = self._bar.add_task("", total=steps, completed=done)

    def __enter__(self) -> EpochProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()

    def update(self, step_in_epoch: int, global_step: int, total_steps: int, line: str) -> None:
        """Advance to ``step_in_epoch`` steps done; ``line`` is the loss/timing summary."""
        if not self.enabled:
            return
        report_progress(global_step, total_steps)
        if self._bar is not None:
            self._bar.update(self._task, completed=step_in_epoch, description=line)
        else:
            log.info("step %d/%d %s", global_step, total_steps, line)
