"""``python -m steps.export_annotations``: export a Label Studio project into a dataset version."""

from __future__ import annotations

import argparse

from aipipe.config import load_config
from aipipe.contract import EXPORT
from aipipe.errors import AipipeError
from aipipe.stepkit import parse_step_args, run_step, write_outputs, write_report
from steps.export_annotations.export import ZeroUsable, parse_options, run_export

REPORT_NAME = "export-report.json"


def _extra_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--retries", type=int, default=None,
                        help="attempts per Label Studio request when it is unreachable or answers 5xx (default: as "
                             "many as LABEL_STUDIO_WAIT_SECONDS of waiting allows)")
    parser.add_argument("--backoff-seconds", type=float, default=1.0,
                        help="first wait between attempts, doubled each time (default: 1.0)")
    parser.add_argument("--workers", type=int, default=8, help="parallel image downloads (default: 8)")
    parser.epilog = (parser.epilog or "") + (
        " Environment: LABEL_STUDIO_URL, LABEL_STUDIO_WAIT_SECONDS (default 30),"
        " LABEL_STUDIO_API_KEY (legacy token or personal access token), "
        "AIPIPE_STORAGE_ROOT, AIPIPE_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. "
        f"Report artifact: {REPORT_NAME} (skipped tasks by reason, with examples).")


def main() -> None:
    args = parse_step_args(EXPORT, extend=_extra_flags)
    try:
        cfg = load_config()
        outputs, report = run_export(cfg, parse_options(args, cfg.get("label_studio.wait_seconds")))
    except ZeroUsable as exc:
        write_report(REPORT_NAME, {**exc.report, "error": str(exc)})
        raise
    except AipipeError as exc:  # the report artifact exists whatever happened
        write_report(REPORT_NAME, {"project": args["project"], "error": str(exc)})
        raise
    write_report(REPORT_NAME, report)
    write_outputs(EXPORT, outputs)
    print(f"export-annotations: {outputs['num_items']} items, version {outputs['dataset_version']} "
          f"({'changed' if outputs['changed'] else 'unchanged'}, {outputs['num_new']} new) at {outputs['dataset_uri']}")


if __name__ == "__main__":
    run_step(EXPORT.name, main)
