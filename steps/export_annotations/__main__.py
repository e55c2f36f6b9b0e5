"""``python -m steps.export_annotations``: export a Label Studio project into a dataset version."""

from __future__ import annotations

import argparse

from aipipe.config import load_config
from aipipe.errors import AipipeError
from aipipe.stepkit import parse_step_args, run_step, write_outputs, write_report

from .contract import CONTRACT
from .export import ExportStepFlags, ZeroUsable, parse_options, run_export

REPORT_NAME = "export-report.json"


def _epilog(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (parser.epilog or "") + (
        " Environment: LABEL_STUDIO_URL, LABEL_STUDIO_WAIT_SECONDS (default 30),"
        " LABEL_STUDIO_API_KEY (legacy token or personal access token), "
        "AIPIPE_STORAGE_ROOT, AIPIPE_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. "
        f"Report artifact: {REPORT_NAME} (skipped tasks by reason, with examples).")


def main() -> None:
    flags = parse_step_args(CONTRACT, ExportStepFlags, extend=_epilog)
    try:
        cfg = load_config()
        outputs, report = run_export(cfg, parse_options(flags, cfg.get("label_studio.wait_seconds")))
    except ZeroUsable as exc:
        write_report(REPORT_NAME, {**exc.report, "error": str(exc)})
        raise
    except AipipeError as exc:  # the report artifact exists whatever happened
        write_report(REPORT_NAME, {"project": flags.project, "error": str(exc)})
        raise
    write_report(REPORT_NAME, report)
    write_outputs(CONTRACT, outputs)
    print(f"export-annotations: {outputs['num_items']} items, version {outputs['dataset_version']} "
          f"({'changed' if outputs['changed'] else 'unchanged'}, {outputs['num_new']} new) at {outputs['dataset_uri']}")


if __name__ == "__main__":
    run_step(CONTRACT.name, main)
