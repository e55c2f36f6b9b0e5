"""The dataset version: manifest, deterministic split, content-addressed version, resumable publish.

Layout (see :mod:`aipipe.contract`): ``<dataset_root>/<project-slug>/<version>/`` holds
``images/<sha256>.<ext>``, for detection ``labels/<sha256>.txt`` and ``coco.json``, then
``classes.json`` and ``manifest.json``, and ``_SUCCESS`` last. Every file in a version folder is
determined by the version (Label Studio's own COCO/YOLO conversions kept with detection datasets
are provenance from the same annotations), so an object that exists is already right: a resumed
publish uploads only what is missing, and a finished one (``_SUCCESS`` present) uploads nothing.

``<dataset_root>/<project-slug>/latest.json`` points at the previous export (its version and the
annotation keys it was built from) so the next export can count new annotations.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aipipe.contract import CLASSES_FILE, DATASET_MANIFEST, SUCCESS_MARKER
from aipipe.errors import NotFoundError
from aipipe.storage import Storage, join, parse_uri

LATEST_POINTER = "latest.json"
VERSION_LENGTH = 16  # hex characters of the manifest hash used as the version id
CLASSIFICATION = "classification"
DETECTION = "detection"


@dataclass(frozen=True)
class Box:
    """One bounding box in relative YOLO centre form (all in [0, 1])."""

    label: str
    label_id: int
    x: float
    y: float
    w: float
    h: float

    def record(self) -> dict[str, Any]:
        return {"label": self.label, "label_id": self.label_id, "x": round(self.x, 6), "y": round(self.y, 6),
                "w": round(self.w, 6), "h": round(self.h, 6)}


@dataclass(frozen=True)
class Item:
    """One usable task: its staged image (by content hash) and its label or boxes."""

    task_id: int
    sha256: str
    ext: str  # without the dot, e.g. "png"
    width: int
    height: int
    label: str | None = None  # classification
    boxes: tuple[Box, ...] = ()  # detection

    @property
    def image_path(self) -> str:
        return f"images/{self.sha256}.{self.ext}"

    @property
    def label_path(self) -> str:
        return f"labels/{self.sha256}.txt"


def slugify(name: str) -> str:
    """A storage-safe folder name for a project title or id."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-")
    return slug or "project"


def split_of(task_id: int, val_fraction: float) -> str:
    """``"val"`` or ``"train"`` from a hash of the task id alone, so a task never changes split."""
    digest = hashlib.sha256(f"aipipe-split:{task_id}".encode()).digest()
    position = int.from_bytes(digest[:8], "big") / 2**64
    return "val" if position < val_fraction else "train"


def stage_image(staging: Path, data: bytes, ext: str) -> str:
    """Store image bytes under ``staging/images/<sha256>.<ext>``; returns the hash."""
    sha = hashlib.sha256(data).hexdigest()
    path = staging / "images" / f"{sha}.{ext}"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return sha


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def build_manifest(project: str, task: str, classes: Sequence[str], items: Iterable[Item],
                   val_fraction: float) -> dict[str, Any]:
    """The manifest with its ``version``: a hash over classes + image hashes + labels + split."""
    label_ids = {name: i for i, name in enumerate(classes)}
    records: list[dict[str, Any]] = []
    for item in sorted(items, key=lambda it: it.task_id):
        record: dict[str, Any] = {"id": item.task_id, "image": item.image_path, "sha256": item.sha256,
                                  "width": item.width, "height": item.height,
                                  "split": split_of(item.task_id, val_fraction)}
        if task == DETECTION:
            record["boxes"] = [b.record() for b in item.boxes]
            record["labels"] = item.label_path
        else:
            if item.label is None:
                raise ValueError(f"task {item.task_id}: classification item without a label")
            record["label"] = item.label
            record["label_id"] = label_ids[item.label]
        records.append(record)
    body = {"task": task, "classes": list(classes), "items": records}
    version = hashlib.sha256(_canonical(body)).hexdigest()[:VERSION_LENGTH]
    splits = {name: sum(r["split"] == name for r in records) for name in ("train", "val")}
    return {"version": version, "project": project, **body, "counts": {"items": len(records), **splits}}


def yolo_label_text(boxes: Sequence[Mapping[str, Any]]) -> str:
    """YOLO txt: one ``<class id> <cx> <cy> <w> <h>`` line per box."""
    return "".join(f"{b['label_id']} {b['x']:.6f} {b['y']:.6f} {b['w']:.6f} {b['h']:.6f}\n" for b in boxes)


def coco_document(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """COCO detection JSON (absolute pixel ``[x, y, w, h]`` boxes) built from a detection manifest."""
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for image_id, record in enumerate(manifest["items"], start=1):
        width, height = record["width"], record["height"]
        images.append({"id": image_id, "file_name": record["image"], "width": width, "height": height,
                       "task_id": record["id"], "split": record["split"]})
        for box in record["boxes"]:
            w, h = box["w"] * width, box["h"] * height
            x, y = box["x"] * width - w / 2, box["y"] * height - h / 2
            annotations.append({"id": len(annotations) + 1, "image_id": image_id, "category_id": box["label_id"],
                                "bbox": [round(x, 3), round(y, 3), round(w, 3), round(h, 3)],
                                "area": round(w * h, 3), "iscrowd": 0})
    categories = [{"id": i, "name": name} for i, name in enumerate(manifest["classes"])]
    return {"images": images, "annotations": annotations, "categories": categories}


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def version_files(manifest: Mapping[str, Any]) -> dict[str, bytes]:
    """The small generated files of a version, in upload order (manifest last)."""
    files: dict[str, bytes] = {}
    if manifest["task"] == DETECTION:
        for record in manifest["items"]:
            files[record["labels"]] = yolo_label_text(record["boxes"]).encode()
        files["coco.json"] = _json_bytes(coco_document(manifest))
    files[CLASSES_FILE] = _json_bytes(manifest["classes"])
    files[DATASET_MANIFEST] = _json_bytes(manifest)
    return files


@dataclass
class PublishResult:
    """What a publish did: the version's URI, whether it differs from the previous export, uploads."""

    uri: str
    version: str
    changed: bool
    num_new: int
    uploaded: int
    already_complete: bool
    previous_version: str | None = None


def read_latest(storage: Storage, project_uri: str) -> dict[str, Any] | None:
    """The project's ``latest.json`` pointer, or None before the first export."""
    try:
        return json.loads(storage.get_text(join(project_uri, LATEST_POINTER)))
    except NotFoundError:
        return None


def count_new(previous: Mapping[str, Any] | None, annotation_keys: Mapping[int, str]) -> int:
    """Annotations not in the previous export (new tasks, or a changed annotation on a task)."""
    before = (previous or {}).get("annotations", {})
    return sum(before.get(str(task_id)) != key for task_id, key in annotation_keys.items())


def publish(storage: Storage, dataset_root: str, project_slug: str, manifest: Mapping[str, Any],
            staging: Path, annotation_keys: Mapping[int, str] | None = None,
            progress: Callable[[int, int], None] | None = None,
            extra_files: Callable[[], Mapping[str, bytes]] | None = None) -> PublishResult:
    """Upload a version (missing objects only, ``_SUCCESS`` last) and move ``latest.json`` to it.

    ``staging`` holds ``images/<sha256>.<ext>`` for every item. ``annotation_keys`` maps a task id to
    a key that changes when its annotation changes (id + update time); it feeds ``num_new``.
    ``extra_files`` gives more files (path in the version → bytes), asked for only when the version is not
    complete yet; they are uploaded with the images, before the manifest.
    """
    keys = dict(annotation_keys or {})
    project_uri = join(dataset_root, project_slug)
    version = manifest["version"]
    version_uri = join(project_uri, version)
    previous = read_latest(storage, project_uri)
    previous_version = previous.get("version") if previous else None
    uploads_before = storage.stats.uploads
    already_complete = storage.exists(join(version_uri, SUCCESS_MARKER))
    if not already_complete:
        base = parse_uri(version_uri).key.rstrip("/")
        present = {parse_uri(uri).key[len(base) + 1:] for uri in storage.list(version_uri + "/")}
        images = sorted({record["image"] for record in manifest["items"]})
        generated = {**(extra_files() if extra_files else {}), **version_files(manifest)}
        todo = [name for name in [*images, *generated] if name not in present]
        for done, name in enumerate(todo, start=1):
            if name in generated:
                storage.put_bytes(join(version_uri, name), generated[name])
            else:
                storage.put_file(join(version_uri, name), staging / name)
            if progress is not None:
                progress(done, len(todo))
        storage.put_text(join(version_uri, SUCCESS_MARKER), version + "\n")
    pointer = {"version": version, "annotations": {str(k): v for k, v in sorted(keys.items())}}
    if previous != pointer:
        storage.put_bytes(join(project_uri, LATEST_POINTER), _json_bytes(pointer))
    return PublishResult(uri=version_uri, version=version, changed=version != previous_version,
                         num_new=count_new(previous, keys), uploaded=storage.stats.uploads - uploads_before,
                         already_complete=already_complete, previous_version=previous_version)
