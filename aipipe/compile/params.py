"""Pipeline parameters: one table per pipeline, used to build Hera parameters and to check ``-p k=v``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hera.workflows import Parameter

from aipipe.config import Config
from aipipe.contract import Input
from aipipe.errors import UserError

TYPES = ("str", "int", "float", "bool")


@dataclass(frozen=True)
class PipelineParam:
    """One pipeline parameter; ``config_key`` takes the default from the Config instead of ``default``."""

    name: str
    default: str
    description: str
    type: str = "str"
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    config_key: str | None = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"{self.name}: type must be one of {TYPES}")

    def default_for(self, cfg: Config) -> str:
        return str((self.config_key and cfg.get(self.config_key)) or self.default)

    def check(self, raw: str) -> str:
        """Return the value as Argo will see it, or raise UserError naming the parameter."""
        if self.enum and raw not in self.enum:
            raise UserError(f"{raw!r} is not one of {', '.join(self.enum)}", field=f"parameter {self.name}")
        if self.type == "bool":
            low = raw.strip().lower()
            if low not in {"true", "false"}:
                raise UserError(f"expected true or false, got {raw!r}", field=f"parameter {self.name}")
            return low
        if self.type in {"int", "float"}:
            try:
                number = int(raw) if self.type == "int" else float(raw)
            except ValueError:
                raise UserError(f"expected an {self.type}, got {raw!r}" if self.type == "int"
                                else f"expected a number, got {raw!r}", field=f"parameter {self.name}") from None
            if self.minimum is not None and number < self.minimum:
                raise UserError(f"{raw} is below the minimum {self.minimum:.10g}", field=f"parameter {self.name}")
            if self.maximum is not None and number > self.maximum:
                raise UserError(f"{raw} is above the maximum {self.maximum:.10g}", field=f"parameter {self.name}")
        return raw

    def hera(self, value: str) -> Parameter:
        """The Hera workflow argument for this parameter with its (validated) value."""
        return Parameter(name=self.name, value=value, description=self._describe(), enum=list(self.enum) or None)

    def _describe(self) -> str:
        bounds = []
        if self.minimum is not None:
            bounds.append(f">= {self.minimum:.10g}")
        if self.maximum is not None:
            bounds.append(f"<= {self.maximum:.10g}")
        suffix = f" ({self.type}{', ' + ', '.join(bounds) if bounds else ''})" if self.type != "str" else ""
        return self.description + suffix


def from_input(item: Input, name: str, *, description: str | None = None, minimum: float | None = None,
               maximum: float | None = None, config_key: str | None = None) -> PipelineParam:
    """A pipeline parameter feeding a step's input: default, type, enum and range come from the contract
    (a pipeline may narrow the range or word the description for its own runs)."""
    if item.default is None:
        raise ValueError(f"{name}: --{item.name} is a required input; a pipeline parameter needs a default")
    return PipelineParam(
        name, item.default, description or item.description, "str" if item.enum else item.type, item.enum,
        item.minimum if minimum is None else minimum, item.maximum if maximum is None else maximum, config_key)


def parse_assignments(pairs: Iterable[str]) -> dict[str, str]:
    """``["k=v", …]`` from ``-p`` flags into a dict; a pair without ``=`` is a UserError."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(f"expected NAME=VALUE, got {pair!r}", field="-p")
        out[name.strip()] = value
    return out


def resolve_params(table: Sequence[PipelineParam], given: Mapping[str, str] | None, cfg: Config) -> dict[str, str]:
    """Every parameter's value: the given ones checked, the rest from their defaults."""
    by_name = {p.name: p for p in table}
    given = dict(given or {})
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise UserError(f"unknown parameter (known: {', '.join(by_name)})", field=f"parameter {unknown[0]}")
    return {p.name: p.check(given[p.name]) if p.name in given else p.check(p.default_for(cfg)) for p in table}


def check_declared(declared: Mapping[str, str | None], given: Mapping[str, str] | None) -> dict[str, str | None]:
    """For manifests without a table: only declared arguments may be set; values stay strings."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(declared))
    if unknown:
        known = ", ".join(declared) or "none"
        raise UserError(f"unknown parameter (the workflow declares: {known})", field=f"parameter {unknown[0]}")
    return {name: given.get(name, value) for name, value in declared.items()}
