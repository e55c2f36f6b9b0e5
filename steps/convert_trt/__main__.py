"""``python -m steps.convert_trt``: convert the ONNX model into an engine bundle with the FP16 precision debugger."""

from __future__ import annotations

import argparse

from pydantic import Field

from aipipe.config import load_config
from aipipe.errors import UserError
from aipipe.stepkit import parse_step_args, run_step
from mlkit.engine.inspect import parse_profile

from .config import DEFAULT_ATOL, DEFAULT_ERROR_STAT, DEFAULT_RTOL, ErrorStat
from .contract import CONTRACT, ConvertFlags
from .convert import REPORT_NAME, ConvertArgs, convert
from .debugger.strategies import Strategy


class ConvertStepFlags(ConvertFlags):
    """The contract's flags plus the debugger's and the engine builder's own options."""

    atol: float = Field(DEFAULT_ATOL, ge=0, description="absolute tolerance per tensor")
    rtol: float = Field(DEFAULT_RTOL, ge=0, description="relative tolerance per tensor")
    check_error_stat: ErrorStat = Field(DEFAULT_ERROR_STAT, description="error statistic compared with atol/rtol")
    strategy: Strategy = Field("linear", description="debugger marking strategy")
    max_evaluations: int = Field(10, ge=1, description="debugger evaluation budget")
    calibration_samples: int = Field(16, ge=1, description="held-out images the debugger uses")
    validation_samples: int = Field(512, ge=1, description="held-out images for validation")
    batch_profile: str = Field("1,32,64", description="min,opt,max of the dynamic batch axis")
    profile: list[str] = Field([], description="NAME:MIN/OPT/MAX shapes (e.g. input:1x3x64x64/8x3x64x64/32x3x64x64) "
                               "for dynamic axes besides the batch")


def _epilog(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (parser.epilog or "") + f" Report artifact: {REPORT_NAME}."


def _convert_args(flags: ConvertStepFlags) -> ConvertArgs:
    try:
        batch = tuple(int(v) for v in flags.batch_profile.split(","))
    except ValueError as exc:
        raise UserError(f"expected numbers: {exc}", field="batch-profile") from exc
    if len(batch) != 3:
        raise UserError("expected three integers min,opt,max", field="batch-profile")
    return ConvertArgs(
        onnx_uri=flags.onnx_uri, dataset_uri=flags.dataset_uri, model_name=flags.model_name,
        model_version=flags.model_version, backend=flags.backend, precision=flags.precision,
        precision_config_uri=flags.precision_config_uri, max_accuracy_delta=flags.max_accuracy_delta,
        atol=flags.atol, rtol=flags.rtol, error_stat=flags.check_error_stat, strategy=flags.strategy,
        max_evaluations=flags.max_evaluations, calibration_samples=flags.calibration_samples,
        validation_samples=flags.validation_samples, batch_profile=(batch[0], batch[1], batch[2]),
        profiles=tuple(parse_profile(p) for p in flags.profile))


def main() -> None:
    outputs = convert(_convert_args(parse_step_args(CONTRACT, ConvertStepFlags, extend=_epilog)), load_config())
    print(f"convert: {outputs['backend']} {outputs['precision']} engine at {outputs['engine_uri']} "
          f"({outputs['memory_mb']} MiB, {outputs['latency_ms_b1']} ms at b=1, {outputs['throughput_b64']} img/s)")


if __name__ == "__main__":
    run_step(CONTRACT.name, main)
