"""The export: Label Studio snapshot → usable items → content-addressed dataset version in storage."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from aipipe.config import Config
from aipipe.errors import UserError
from aipipe.stepkit import report_progress
from aipipe.storage import Storage, join, parse_uri

from .annotations import BadLabel, LabelSpec, choose_annotation
from .client import LabelStudioSource, Retry
from .contract import ExportFlags
from .dataset import DETECTION, Box, Item, build_manifest, publish, slugify, stage_image
from .images import ImageFetcher, ImageProblem, decode

MAX_EXAMPLES = 20  # task ids kept per problem in the report
LS_CONVERSIONS = ("COCO", "YOLO")  # Label Studio's own conversions, kept with detection datasets


@dataclass(frozen=True)
class ExportOptions:
    project: str
    dataset_root: str = ""
    val_fraction: float = 0.2
    view: int | None = None
    retry: Retry = field(default_factory=Retry)
    workers: int = 8


@dataclass(frozen=True)
class Candidate:
    """A task with a usable annotation, before its image is fetched."""

    task_id: int
    image_url: Any
    annotation_key: str
    label: str | None = None
    boxes: tuple[Box, ...] = ()


@dataclass
class Report:
    """Counts of what was used and what was skipped, with example task ids for each problem."""

    tasks: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    dropped_annotations: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def skip(self, reason: str, task_id: int, detail: str) -> None:
        self.skipped[reason] += 1
        bucket = self.examples.setdefault(reason, [])
        if len(bucket) < MAX_EXAMPLES:
            bucket.append({"task": task_id, "detail": detail})

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        return {"tasks_exported": self.tasks, "skipped": dict(self.skipped),
                "skipped_total": sum(self.skipped.values()), "dropped_annotations": dict(self.dropped_annotations),
                "examples": self.examples, **extra}


class ExportStepFlags(ExportFlags):
    """The contract's flags plus the step's own options."""

    retries: int | None = Field(None, description="attempts per Label Studio request when it is unreachable or "
                                "answers 5xx (default: as many as LABEL_STUDIO_WAIT_SECONDS of waiting allows)")
    backoff_seconds: float = Field(1.0, gt=0, description="first wait between attempts, doubled each time")
    workers: int = Field(8, ge=1, description="parallel image downloads")


def parse_options(flags: ExportStepFlags, wait_seconds: Any = None) -> ExportOptions:
    """The step's typed flags as export options; ``wait_seconds`` bounds the total wait for an
    unreachable Label Studio (``label_studio.wait_seconds``)."""
    view_text = flags.view.strip()
    if view_text and not view_text.isdigit():
        raise UserError(f"a Label Studio view id is a number, got {view_text!r}", field="view")
    dataset_root = flags.dataset_root.strip()
    if dataset_root:
        parse_uri(dataset_root)
    try:
        wait = None if wait_seconds in (None, "") else float(wait_seconds)
    except ValueError as exc:
        raise UserError(f"not a number of seconds: {wait_seconds!r}", field="label_studio.wait_seconds") from exc
    backoff = flags.backoff_seconds
    if flags.retries is None:
        retry = Retry.within(30.0 if wait is None else wait, backoff)
    elif flags.retries < 1:
        raise UserError("at least 1", field="retries")
    else:
        retry = Retry(flags.retries, backoff, wait)
    return ExportOptions(project=flags.project, dataset_root=dataset_root, val_fraction=flags.val_fraction,
                         view=int(view_text) if view_text else None, retry=retry, workers=flags.workers)


def candidates(tasks: Sequence[Mapping[str, Any]], spec: LabelSpec, report: Report) -> list[Candidate]:
    """Apply the annotation policy and parse labels; every skipped task is counted."""
    found = []
    for task in tasks:
        task_id = int(task["id"])
        choice = choose_annotation(task.get("annotations") or [], spec)
        report.dropped_annotations["cancelled"] += choice.cancelled
        report.dropped_annotations["empty"] += choice.empty
        if choice.annotation is None:
            report.skip("no_usable_annotation", task_id, "only cancelled or empty annotations")
            continue
        if choice.annotation.get("ground_truth"):
            report.dropped_annotations["ground_truth_used"] += 1
        try:
            if spec.task == DETECTION:
                label, boxes = None, spec.boxes_of(choice.annotation)
            else:
                label, boxes = spec.label_of(choice.annotation), ()
        except BadLabel as exc:
            report.skip(exc.reason, task_id, str(exc))
            continue
        url = (task.get("data") or {}).get(spec.image_key)
        found.append(Candidate(task_id, url, choice.key, label, boxes))
    return found


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on a terminal; always Argo's progress file when it is set."""
    if not sys.stderr.isatty():
        yield report_progress
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
            report_progress(done, total)

        yield update


def fetch_items(found: list[Candidate], fetcher: ImageFetcher, staging: Path, report: Report,
                workers: int, is_detection: bool) -> list[Item]:
    """Download and check every candidate's image in parallel; problems are counted, not raised."""

    def load(candidate: Candidate) -> Item | ImageProblem:
        try:
            data = fetcher.fetch(candidate.image_url)
            image = decode(data)
        except ImageProblem as exc:
            return exc
        sha = stage_image(staging, data, image.ext)
        return Item(candidate.task_id, sha, image.ext, image.width, image.height, candidate.label, candidate.boxes)

    items: list[Item] = []
    seen: set[str] = set()
    with progress_bar("downloading images") as progress, ThreadPoolExecutor(workers) as pool:
        for done, (candidate, result) in enumerate(zip(found, pool.map(load, found), strict=True), start=1):
            progress(done, len(found))
            if isinstance(result, ImageProblem):
                report.skip(result.reason, candidate.task_id, str(result))
            elif is_detection and result.sha256 in seen:
                report.skip("duplicate_image", candidate.task_id, f"image {result.sha256[:12]} is in another task")
            else:
                seen.add(result.sha256)
                items.append(result)
    return items


def run_export(cfg: Config, opts: ExportOptions,
               storage: Storage | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Export a project; returns the step's output values and its report."""
    storage = storage or Storage.from_config(cfg)
    source = LabelStudioSource(cfg.get("label_studio.url"), cfg.get("label_studio.api_key"), opts.retry)
    project = source.project(opts.project)
    spec = LabelSpec.from_config(project.label_config)
    export_id, tasks = source.snapshot(project.id, opts.view)
    report = Report(tasks=len(tasks))
    found = candidates(tasks, spec, report)
    dataset_root = opts.dataset_root or join(cfg.storage_root, "datasets")
    slug = f"{project.id}-{slugify(project.title)}"
    fetcher = ImageFetcher(source.url, source.auth_headers, storage, opts.retry)
    with tempfile.TemporaryDirectory(prefix="aipipe-export-") as tmp:
        staging = Path(tmp)
        items = fetch_items(found, fetcher, staging, report, opts.workers, spec.task == DETECTION)
        base = {"project": project.title, "project_id": project.id, "task": spec.task,
                "classes": list(spec.classes), "export_id": export_id}
        if not items:
            raise ZeroUsable(report.as_dict(**base, items=0), project.title, project.id)
        manifest = build_manifest(slug, spec.task, spec.classes, items, opts.val_fraction)

        def conversions() -> dict[str, bytes]:  # only asked for when the version is not stored yet
            if spec.task != DETECTION:
                return {}
            return {f"labelstudio/{kind.lower()}.zip": source.converted(project.id, export_id, kind)
                    for kind in LS_CONVERSIONS}

        key_of_task = {c.task_id: c.annotation_key for c in found}
        keys = {item.task_id: key_of_task[item.task_id] for item in items}
        with progress_bar("uploading dataset") as progress:
            result = publish(storage, dataset_root, slug, manifest, staging, keys, progress, extra_files=conversions)
    outputs = {"dataset_uri": result.uri, "dataset_version": result.version, "num_items": len(items),
               "num_new": result.num_new, "classes": list(spec.classes), "changed": result.changed}
    splits = {k: manifest["counts"][k] for k in ("train", "val")}
    report_data = report.as_dict(**base, items=len(items), splits=splits, dataset_uri=result.uri,
                                 version=result.version, previous_version=result.previous_version,
                                 changed=result.changed, num_new=result.num_new, uploaded_objects=result.uploaded,
                                 already_complete=result.already_complete)
    return outputs, report_data


class ZeroUsable(UserError):
    """No task gave a usable item; carries the report so the step still writes it."""

    def __init__(self, report: dict[str, Any], title: str, project_id: int) -> None:
        skipped = ", ".join(f"{k}={v}" for k, v in sorted(report["skipped"].items())) or "no annotated tasks"
        super().__init__(f"project {title!r} (id {project_id}) has zero usable annotations "
                         f"({report['tasks_exported']} annotated tasks exported; skipped: {skipped})", field="project")
        self.report = report
