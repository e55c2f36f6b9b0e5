"""``python -m steps.convert_trt``: convert the ONNX model into an engine bundle with the FP16 precision debugger."""

from __future__ import annotations

import argparse
from typing import Any

from aipipe.config import load_config
from aipipe.contract import CONVERT
from aipipe.errors import UserError
from aipipe.stepkit import parse_step_args, run_step
from mlkit.engine.inspect import parse_profile
from steps.convert_trt.config import DEFAULT_ATOL, DEFAULT_ERROR_STAT, DEFAULT_RTOL, ERROR_STATS
from steps.convert_trt.convert import REPORT_NAME, ConvertArgs, convert
from steps.convert_trt.debugger.strategies import STRATEGIES


def _extra_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL, help="absolute tolerance per tensor")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL, help="relative tolerance per tensor")
    parser.add_argument("--check-error-stat", choices=ERROR_STATS, default=DEFAULT_ERROR_STAT,
                        help="error statistic compared with atol/rtol")
    parser.add_argument("--strategy", choices=STRATEGIES, default="linear", help="debugger marking strategy")
    parser.add_argument("--max-evaluations", type=int, default=10, help="debugger evaluation budget")
    parser.add_argument("--calibration-samples", type=int, default=16, help="held-out images the debugger uses")
    parser.add_argument("--validation-samples", type=int, default=512, help="held-out images for validation")
    parser.add_argument("--batch-profile", default="1,32,64", help="min,opt,max of the dynamic batch axis")
    parser.add_argument("--profile", action="append", default=[],
                        help="NAME:MIN/OPT/MAX shapes (e.g. input:1x3x64x64/8x3x64x64/32x3x64x64) "
                        "for dynamic axes besides the batch")
    parser.epilog = (parser.epilog or "") + f" Report artifact: {REPORT_NAME}."


def _convert_args(raw: dict[str, Any]) -> ConvertArgs:
    try:
        batch = tuple(int(v) for v in str(raw["batch-profile"]).split(","))
        delta = float(raw["max-accuracy-delta"])
    except ValueError as exc:
        raise UserError(f"expected numbers: {exc}", field="batch-profile/max-accuracy-delta") from exc
    if len(batch) != 3:
        raise UserError("expected three integers min,opt,max", field="batch-profile")
    return ConvertArgs(
        onnx_uri=raw["onnx-uri"], dataset_uri=raw["dataset-uri"], model_name=raw["model-name"],
        model_version=raw["model-version"], backend=raw["backend"], precision=raw["precision"],
        precision_config_uri=raw["precision-config-uri"], max_accuracy_delta=delta, atol=raw["atol"],
        rtol=raw["rtol"], error_stat=raw["check-error-stat"], strategy=raw["strategy"],
        max_evaluations=raw["max-evaluations"], calibration_samples=raw["calibration-samples"],
        validation_samples=raw["validation-samples"], batch_profile=(batch[0], batch[1], batch[2]),
        profiles=tuple(parse_profile(p) for p in raw["profile"]))


def main() -> None:
    outputs = convert(_convert_args(parse_step_args(CONVERT, extend=_extra_flags)), load_config())
    print(f"convert: {outputs['backend']} {outputs['precision']} engine at {outputs['engine_uri']} "
          f"({outputs['memory_mb']} MiB, {outputs['latency_ms_b1']} ms at b=1, {outputs['throughput_b64']} img/s)")


if __name__ == "__main__":
    run_step(CONVERT.name, main)
