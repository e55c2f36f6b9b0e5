"""Why a task was left out of the dataset: counted in the export report, never fatal."""

from __future__ import annotations


class SkippedTask(ValueError):
    """A task that cannot become a training item; ``reason`` is the report's counter name."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
