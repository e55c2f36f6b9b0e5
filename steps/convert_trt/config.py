"""The precision config: which layers stay FP32 under FP16, with the seed platform's key names.

Written by the debugger, read back by a later conversion so no search is repeated. Keys:
``FP32_LAYERS_FOR_FP16`` (layer names: ONNX node names or torch module paths),
``TRT_EXCLUDE_TACTIC`` (TensorRT tactic names to exclude), ``atol``, ``rtol``, ``check-error-stat``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from aipipe.errors import UserError

ErrorStat = Literal["mean", "median", "max"]
ERROR_STATS: tuple[str, ...] = get_args(ErrorStat)
DEFAULT_ATOL = 1e-2
DEFAULT_RTOL = 1e-2
DEFAULT_ERROR_STAT: ErrorStat = "mean"


@dataclass(frozen=True)
class PrecisionConfig:
    """Layers pinned to FP32, tactics excluded, and the tolerances the plan was judged with."""

    fp32_layers: tuple[str, ...] = ()
    exclude_tactics: tuple[str, ...] = ()
    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    error_stat: str = DEFAULT_ERROR_STAT
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.error_stat not in ERROR_STATS:
            raise UserError(f"must be one of {', '.join(ERROR_STATS)}, got {self.error_stat!r}",
                            field="check-error-stat")
        for name, value in (("atol", self.atol), ("rtol", self.rtol)):
            if not value >= 0:
                raise UserError(f"must be a number >= 0, got {value!r}", field=name)

    def to_dict(self) -> dict[str, Any]:
        return {"FP32_LAYERS_FOR_FP16": list(self.fp32_layers), "TRT_EXCLUDE_TACTIC": list(self.exclude_tactics),
                "atol": self.atol, "rtol": self.rtol, "check-error-stat": self.error_stat, **self.extra}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: Any, source: str = "precision config") -> PrecisionConfig:
        """Parse and check a config mapping; a bad field is a :class:`UserError` naming it."""
        if not isinstance(data, dict):
            raise UserError("must be a JSON object", field=source)
        layers = data.get("FP32_LAYERS_FOR_FP16", [])
        tactics = data.get("TRT_EXCLUDE_TACTIC", [])
        for key, value in (("FP32_LAYERS_FOR_FP16", layers), ("TRT_EXCLUDE_TACTIC", tactics)):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UserError("must be a list of strings", field=f"{source}:{key}")
        try:
            atol, rtol = float(data.get("atol", DEFAULT_ATOL)), float(data.get("rtol", DEFAULT_RTOL))
        except (TypeError, ValueError) as exc:
            raise UserError(f"atol/rtol must be numbers: {exc}", field=source) from exc
        known = {"FP32_LAYERS_FOR_FP16", "TRT_EXCLUDE_TACTIC", "atol", "rtol", "check-error-stat"}
        return cls(tuple(layers), tuple(tactics), atol, rtol, str(data.get("check-error-stat", DEFAULT_ERROR_STAT)),
                   {k: v for k, v in data.items() if k not in known})

    @classmethod
    def from_json(cls, text: str, source: str = "precision config") -> PrecisionConfig:
        try:
            return cls.from_dict(json.loads(text), source)
        except json.JSONDecodeError as exc:
            raise UserError(f"not valid JSON: {exc}", field=source) from exc
