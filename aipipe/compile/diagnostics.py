"""A lint finding: where it is (file, resource, template, field) and what is wrong."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """One problem in one manifest; ``field`` is a dotted path such as ``spec.templates[2].dag.tasks[0].when``."""

    file: str
    kind: str
    name: str
    message: str
    field: str = ""
    template: str = ""
    severity: str = ERROR
    check: str = ""  # which check found it: schema, template-ref, reference, cycle, argument, …

    def location(self) -> str:
        parts = [self.file, f"{self.kind}/{self.name}"]
        if self.template:
            parts.append(f"template {self.template}")
        if self.field:
            parts.append(self.field)
        return ": ".join(parts)

    def __str__(self) -> str:
        return f"{self.location()}: {self.severity}: {self.message}"


def format_path(parts: Iterable[str | int]) -> str:
    """``["spec", "templates", 0, "name"]`` -> ``spec.templates[0].name``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class Resource:
    """One manifest being linted, with the helper that records its diagnostics."""

    file: str
    kind: str
    name: str
    spec: dict[str, Any]
    spec_path: list[str | int]
    found: list[Diagnostic]

    def report(self, message: str, field: Sequence[str | int] = (), template: str = "", check: str = "",
               severity: str = ERROR) -> None:
        self.found.append(Diagnostic(self.file, self.kind, self.name, message, format_path(field), template,
                                     severity, check))


def has_errors(diagnostics: Sequence[Diagnostic]) -> bool:
    return any(d.severity == ERROR for d in diagnostics)
