"""Seed a running Label Studio with a labelled demo project made from scikit-learn's digits.

    python -m steps.export_annotations.seed --url http://127.0.0.1:8080 --images 40 [--detection]

The API key comes from ``LABEL_STUDIO_API_KEY``. Images are uploaded as files and imported as
tasks pointing at ``/data/upload/…``, each with an annotation holding its true digit. A detection project
places 1-3 digits on a larger canvas and annotates their boxes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from aipipe.errors import UserError
from aipipe.stepkit import run_step

from .client import LabelStudioSource, Retry
from .fixtures import digit_images

DIGITS = tuple(str(d) for d in range(10))
IMAGE_FIELD = "image"
CONTROL = "label"
UPLOAD_BATCH = 50  # files per import request (Django caps the files of one request)
BoxPercent = tuple[str, float, float, float, float]  # label, x, y, w, h in percent of the image


def classification_config(classes: Sequence[str]) -> str:
    choices = "".join(f'<Choice value="{c}"/>' for c in classes)
    return (f'<View><Image name="{IMAGE_FIELD}" value="${IMAGE_FIELD}"/>'
            f'<Choices name="{CONTROL}" toName="{IMAGE_FIELD}" choice="single">{choices}</Choices></View>')


def detection_config(classes: Sequence[str]) -> str:
    labels = "".join(f'<Label value="{c}"/>' for c in classes)
    return (f'<View><Image name="{IMAGE_FIELD}" value="${IMAGE_FIELD}"/>'
            f'<RectangleLabels name="{CONTROL}" toName="{IMAGE_FIELD}">{labels}</RectangleLabels></View>')


def choice_result(label: str) -> list[dict[str, Any]]:
    return [{"from_name": CONTROL, "to_name": IMAGE_FIELD, "type": "choices", "value": {"choices": [label]}}]


def box_result(boxes: Sequence[BoxPercent], width: int, height: int) -> list[dict[str, Any]]:
    """Rectangle results from ``(label, x, y, w, h)`` in percent of the image (Label Studio's units)."""
    return [{"from_name": CONTROL, "to_name": IMAGE_FIELD, "type": "rectanglelabels", "original_width": width,
             "original_height": height, "image_rotation": 0,
             "value": {"x": x, "y": y, "width": w, "height": h, "rotation": 0, "rectanglelabels": [label]}}
            for label, x, y, w, h in boxes]


def _checked(resp: Any) -> Any:
    """The JSON of a ``requests`` response; an HTTP error carrying ``status_code`` for the retry policy."""
    import requests

    if resp.status_code >= 400:
        err = requests.HTTPError(f"HTTP {resp.status_code}: {resp.text[:200]}", response=resp)
        err.status_code = resp.status_code  # type: ignore[attr-defined]
        raise err
    return resp.json()


def _post_files(source: LabelStudioSource, project_id: int, files: Sequence[tuple[str, bytes]],
                params: dict[str, str]) -> Any:
    import requests

    return _checked(requests.post(f"{source.url}/api/projects/{project_id}/import", params=params,
                                  headers=source.auth_headers(), timeout=300,
                                  files=[(name, (name, data, "image/png")) for name, data in files]))


def upload_images(source: LabelStudioSource, project_id: int, files: Sequence[tuple[str, bytes]]) -> list[int]:
    """Upload image files into a project (one task each, pointing at ``/data/upload/…``); the task ids."""
    return source.call(lambda: list(_post_files(source, project_id, files, {"return_task_ids": "true"})["task_ids"]),
                       f"upload {len(files)} images")


def upload_files(source: LabelStudioSource, project_id: int, files: Sequence[tuple[str, bytes]]) -> list[str]:
    """Upload image files without creating tasks; their ``/data/upload/…`` URLs, in order."""
    import requests

    ids = source.call(lambda: list(_post_files(source, project_id, files, {"commit_to_project": "false"})[
        "file_upload_ids"]), f"upload {len(files)} images")
    listed = source.call(lambda: _checked(requests.get(
        f"{source.url}/api/projects/{project_id}/file-uploads", params={"ids": json.dumps(ids)},
        headers=source.auth_headers(), timeout=60)), "list uploaded files")
    path_of = {int(entry["id"]): str(entry["file"]) for entry in listed}
    return [f"/data/{path_of[i]}" for i in ids]


def import_annotated(source: LabelStudioSource, project_id: int, images: Sequence[str],
                     results: Sequence[list[dict[str, Any]]] | None) -> list[int]:
    """Create tasks for image URLs, each with its annotation when ``results`` is given; the task ids.

    Label Studio marks imported annotations as ground truth unless told otherwise; seeded labels are
    ordinary annotations, so a later annotation of the task supersedes them (the export's policy).
    """
    tasks = [{"data": {IMAGE_FIELD: url},
              **({"annotations": [{"result": results[i], "ground_truth": False}]} if results else {})}
             for i, url in enumerate(images)]
    request: Any = tasks
    response = source.call(lambda: source.client.projects.import_tasks(id=project_id, request=request,
                                                                        return_task_ids=True), "import tasks")
    return [int(t) for t in response.model_dump()["task_ids"]]


def annotate(source: LabelStudioSource, task_id: int, result: list[dict[str, Any]], *,
             ground_truth: bool = False, was_cancelled: bool = False) -> int:
    """Create one annotation on a task; its id."""
    created = source.call(lambda: source.client.annotations.create(
        id=task_id, result=result, ground_truth=ground_truth, was_cancelled=was_cancelled),
        f"annotate task {task_id}")
    return int(created.id)


def _png(array: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="PNG")
    return buf.getvalue()


def detection_images(count: int, size: int, seed: int) -> list[tuple[bytes, list[BoxPercent]]]:
    """Canvases of ``size`` pixels with 1-3 non-overlapping 24-48 px digits each, and their boxes in percent."""
    from PIL import Image

    glyphs, targets = digit_images(48)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        canvas = np.zeros((size, size, 3), np.uint8)
        boxes: list[BoxPercent] = []
        placed: list[tuple[int, int, int]] = []  # x, y, side in pixels
        for _ in range(int(rng.integers(1, 4))):
            side = int(rng.integers(24, 49))
            x, y = (int(v) for v in rng.integers(0, size - side, size=2))
            if any(x < px + ps and px < x + side and y < py + ps and py < y + side for px, py, ps in placed):
                continue
            placed.append((x, y, side))
            index = int(rng.integers(len(glyphs)))
            with Image.open(io.BytesIO(glyphs[index])) as glyph:
                canvas[y:y + side, x:x + side] = np.asarray(glyph.convert("RGB").resize((side, side)))
            boxes.append((str(targets[index]), 100 * x / size, 100 * y / size, 100 * side / size, 100 * side / size))
        out.append((_png(canvas), boxes))
    return out


@dataclass(frozen=True)
class SeededProject:
    id: int
    title: str
    task_ids: list[int]
    labels: list[str]  # classification: the true digit per task; detection: labels joined by " "


def seed_project(source: LabelStudioSource, *, images: int, title: str = "aipipe digits demo",
                 detection: bool = False, size: int = 64, seed: int = 0, annotate_all: bool = True) -> SeededProject:
    """Create a project with ``images`` labelled digit images (annotated unless ``annotate_all`` is False)."""
    if images < 1:
        raise UserError("at least 1", field="images")
    config = detection_config(DIGITS) if detection else classification_config(DIGITS)
    created = source.call(lambda: source.client.projects.create(title=title, label_config=config),
                          "create a project")
    project_id = int(created.id or 0)
    if detection:
        side = max(size, 96)
        samples = detection_images(images, side, seed)
        files = [(f"scene_{i:05d}.png", data) for i, (data, _) in enumerate(samples)]
        labels = [" ".join(b[0] for b in boxes) for _, boxes in samples]
        results = [box_result(boxes, side, side) for _, boxes in samples]
    else:
        pngs, targets = digit_images(size)
        rng = np.random.default_rng(seed)
        picks = rng.choice(len(pngs), size=images, replace=images > len(pngs))
        files = [(f"digit_{i:05d}.png", pngs[p]) for i, p in enumerate(picks)]
        labels = [str(targets[p]) for p in picks]
        results = [choice_result(label) for label in labels]
    urls = [url for start in range(0, len(files), UPLOAD_BATCH)
            for url in upload_files(source, project_id, files[start:start + UPLOAD_BATCH])]
    task_ids = import_annotated(source, project_id, urls, results if annotate_all else None)
    return SeededProject(project_id, title, task_ids, labels)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {__package__}.seed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("LABEL_STUDIO_URL", "http://127.0.0.1:8080"),
                        help="Label Studio URL (default: $LABEL_STUDIO_URL or http://127.0.0.1:8080)")
    parser.add_argument("--images", type=int, required=True, help="number of labelled images")
    parser.add_argument("--project-title", default="aipipe digits demo", help="title of the new project")
    parser.add_argument("--detection", action="store_true", help="an object-detection project instead")
    parser.add_argument("--size", type=int, default=64, help="image side in pixels (default: 64)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    args = parser.parse_args(argv)
    source = LabelStudioSource(args.url, os.environ.get("LABEL_STUDIO_API_KEY", ""), Retry(3, 1.0))
    seeded = seed_project(source, images=args.images, title=args.project_title, detection=args.detection,
                          size=args.size, seed=args.seed)
    print(f"project {seeded.id} {seeded.title!r}: {len(seeded.task_ids)} labelled images")


if __name__ == "__main__":
    run_step("seed", main)
