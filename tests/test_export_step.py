"""export-annotations against a real Label Studio and a real S3 endpoint (moto_server)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from aipipe.config import load_config
from aipipe.contract import CLASSES_FILE, DATASET_MANIFEST, SUCCESS_MARKER
from aipipe.errors import AuthError, ServiceUnavailable
from aipipe.storage import Storage, join
from steps.export_annotations import seed
from steps.export_annotations.client import Retry
from steps.export_annotations.dataset import split_of
from steps.export_annotations.export import ExportOptions, ZeroUsable, run_export
from steps.export_annotations.fixtures import digit_images
from tests.fixtures_labelstudio import LabelStudioServer
from tests.fixtures_s3 import S3Server

VAL_FRACTION = 0.25
FAST_RETRY = Retry(2, 0.05)


def export(ls: LabelStudioServer, project: int, root: str, storage: Storage | None = None, *,
           api_key: str | None = None, url: str | None = None, tmp_home: Path | None = None,
           retry: Retry = FAST_RETRY) -> tuple[dict[str, Any], dict[str, Any]]:
    env = {**ls.env(api_key), "AIPIPE_HOME": str(tmp_home or "/nonexistent-aipipe-home")}
    if url:
        env["LABEL_STUDIO_URL"] = url
    opts = ExportOptions(project=str(project), dataset_root=root, val_fraction=VAL_FRACTION, retry=retry, workers=4)
    return run_export(load_config(env=env), opts, storage or Storage())


def read_json(storage: Storage, uri: str) -> Any:
    return json.loads(storage.get_text(uri))


@pytest.fixture(scope="module")
def digits_project(label_studio: LabelStudioServer) -> seed.SeededProject:
    return seed.seed_project(label_studio.source(), images=24, title="digits export test", size=32, seed=1)


def test_classification_export_writes_the_dataset_to_s3(label_studio: LabelStudioServer, s3_server: S3Server,
                                                        digits_project: seed.SeededProject) -> None:
    storage = s3_server.storage()
    root = join(s3_server.fresh_root(), "datasets")
    outputs, report = export(label_studio, digits_project.id, root, storage)
    uri = outputs["dataset_uri"]
    assert uri == join(root, f"{digits_project.id}-digits-export-test", outputs["dataset_version"])
    assert (outputs["num_items"], outputs["num_new"], outputs["changed"]) == (24, 24, True)
    assert outputs["classes"] == list(seed.DIGITS)
    manifest = read_json(storage, join(uri, DATASET_MANIFEST))
    assert manifest["version"] == outputs["dataset_version"] and manifest["task"] == "classification"
    assert read_json(storage, join(uri, CLASSES_FILE)) == list(seed.DIGITS)
    truth = dict(zip(digits_project.task_ids, digits_project.labels, strict=True))
    assert {r["id"]: r["label"] for r in manifest["items"]} == truth
    for record in manifest["items"]:
        assert record["label_id"] == int(record["label"])
        assert record["split"] == split_of(record["id"], VAL_FRACTION)
    objects = storage.list(uri + "/")
    images = {o.rsplit("/", 1)[1] for o in objects if "/images/" in o}
    assert images == {r["image"].split("/")[1] for r in manifest["items"]}
    assert storage.exists(join(uri, SUCCESS_MARKER))
    assert not any(o.endswith("coco.json") or "/labelstudio/" in o for o in objects)
    assert report["splits"]["train"] + report["splits"]["val"] == 24 and report["skipped_total"] == 0


def test_same_annotations_again_upload_nothing_then_three_new_are_counted(
        label_studio: LabelStudioServer, s3_server: S3Server, digits_project: seed.SeededProject) -> None:
    storage = s3_server.storage()
    root = join(s3_server.fresh_root(), "datasets")
    first, _ = export(label_studio, digits_project.id, root, storage)
    objects = storage.list(first["dataset_uri"] + "/")
    etags = {o: storage.etag(o) for o in objects}
    uploads = storage.stats.uploads
    second, report = export(label_studio, digits_project.id, root, storage)
    assert storage.stats.uploads == uploads, "the second export uploaded objects"
    assert second["dataset_version"] == first["dataset_version"]
    assert (second["changed"], second["num_new"], report["uploaded_objects"]) == (False, 0, 0)
    assert {o: storage.etag(o) for o in storage.list(first["dataset_uri"] + "/")} == etags

    pngs, targets = digit_images(32)
    new_ids = label_studio.upload_images(digits_project.id, [(f"new_{i}.png", pngs[500 + i]) for i in range(3)])
    for i, task_id in enumerate(new_ids):
        label_studio.annotate(task_id, seed.choice_result(str(targets[500 + i])))
    third, _ = export(label_studio, digits_project.id, root, storage)
    assert (third["num_new"], third["changed"], third["num_items"]) == (3, True, 27)
    assert third["dataset_version"] != first["dataset_version"]
    before = {r["id"]: r["split"] for r in read_json(storage, join(first["dataset_uri"], DATASET_MANIFEST))["items"]}
    after = {r["id"]: r["split"] for r in read_json(storage, join(third["dataset_uri"], DATASET_MANIFEST))["items"]}
    assert {k: after[k] for k in before} == before, "a task moved between splits"
    assert storage.exists(join(first["dataset_uri"], SUCCESS_MARKER)), "the previous version must stay readable"


def test_view_restricts_the_export(label_studio: LabelStudioServer, digits_project: seed.SeededProject,
                                   tmp_path: Path) -> None:
    first_five = sorted(digits_project.task_ids)[:5]
    view = label_studio.create_view(digits_project.id, "first five", [
        {"filter": "filter:tasks:id", "operator": "less_or_equal", "type": "Number", "value": first_five[-1]}])
    env = {**label_studio.env(), "AIPIPE_HOME": str(tmp_path)}
    opts = ExportOptions(project=str(digits_project.id), dataset_root=(tmp_path / "d").as_uri(), view=view,
                         retry=FAST_RETRY)
    outputs, _ = run_export(load_config(env=env), opts, Storage())
    manifest = json.loads(Path(outputs["dataset_uri"].removeprefix("file://"), DATASET_MANIFEST).read_text())
    assert sorted(r["id"] for r in manifest["items"]) == first_five


def test_detection_export_has_yolo_labels_and_coco(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    seeded = seed.seed_project(label_studio.source(), images=8, title="digits detection test", detection=True,
                               seed=2)
    outputs, report = export(label_studio, seeded.id, (tmp_path / "datasets").as_uri())
    folder = tmp_path / "datasets" / f"{seeded.id}-digits-detection-test" / outputs["dataset_version"]
    manifest = json.loads((folder / DATASET_MANIFEST).read_text())
    assert manifest["task"] == "detection" and outputs["num_items"] == 8 and report["task"] == "detection"
    truth = dict(zip(seeded.task_ids, seeded.labels, strict=True))
    coco = json.loads((folder / "coco.json").read_text())
    assert [c["name"] for c in coco["categories"]] == list(seed.DIGITS)
    assert len(coco["images"]) == 8
    assert len(coco["annotations"]) == sum(len(r["boxes"]) for r in manifest["items"])
    for record in manifest["items"]:
        assert sorted(b["label"] for b in record["boxes"]) == sorted(truth[record["id"]].split())
        lines = (folder / record["labels"]).read_text().splitlines()
        assert [int(line.split()[0]) for line in lines] == [b["label_id"] for b in record["boxes"]]
        for box in record["boxes"]:
            assert 0 < box["w"] <= 1 and 0 < box["h"] <= 1 and 0 <= box["x"] <= 1
    with zipfile.ZipFile(folder / "labelstudio" / "yolo.zip") as archive:
        assert archive.read("classes.txt").decode().split() == list(seed.DIGITS)
    with zipfile.ZipFile(folder / "labelstudio" / "coco.zip") as archive:
        assert len(json.loads(archive.read("result.json"))["images"]) == 8
    assert (folder / SUCCESS_MARKER).is_file()
    again, again_report = export(label_studio, seeded.id, (tmp_path / "datasets").as_uri())
    assert again["dataset_version"] == outputs["dataset_version"] and again_report["uploaded_objects"] == 0


def _png(index: int) -> bytes:
    return digit_images(16)[0][index]


def test_annotation_policy_ground_truth_then_latest(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    project = label_studio.create_project("policy test", seed.classification_config(["a", "b", "c"]))
    data = [{"image": "data:image/png;base64," + base64.b64encode(_png(i)).decode()} for i in range(5)]
    gt, latest, cancelled_then_ok, only_cancelled, empty = label_studio.import_tasks(project, data)
    label_studio.annotate(gt, seed.choice_result("a"), ground_truth=True)
    label_studio.annotate(gt, seed.choice_result("b"))  # newer, but not ground truth
    label_studio.annotate(latest, seed.choice_result("a"))
    time.sleep(0.01)
    label_studio.annotate(latest, seed.choice_result("c"))
    label_studio.annotate(cancelled_then_ok, seed.choice_result("a"), was_cancelled=True)
    label_studio.annotate(cancelled_then_ok, seed.choice_result("b"))
    label_studio.annotate(only_cancelled, [], was_cancelled=True)
    label_studio.annotate(empty, [])
    outputs, report = export(label_studio, project, (tmp_path / "d").as_uri())
    manifest = json.loads(Path(outputs["dataset_uri"].removeprefix("file://"), DATASET_MANIFEST).read_text())
    assert {r["id"]: r["label"] for r in manifest["items"]} == {gt: "a", latest: "c", cancelled_then_ok: "b"}
    assert report["skipped"] == {"no_usable_annotation": 2}
    assert report["dropped_annotations"] == {"cancelled": 2, "empty": 1, "ground_truth_used": 1}
    assert {e["task"] for e in report["examples"]["no_usable_annotation"]} == {only_cancelled, empty}


def test_bad_inputs_are_counted_and_never_crash(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    project = label_studio.create_project("bad inputs test", seed.classification_config(["a", "b"]))
    folder = label_studio.files_root / f"p{project}"
    folder.mkdir()
    (folder / "good.png").write_bytes(_png(1))
    (folder / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really a png" * 8)
    label_studio.add_local_storage(project, folder)
    rel = folder.relative_to(label_studio.files_root)
    good_upload, deleted_upload = label_studio.upload_images(project, [("ok.png", _png(2)), ("gone.png", _png(3))])
    data = [
        {"image": f"/data/local-files/?d={rel}/good.png"},  # fine
        {"image": f"/data/local-files/?d={rel}/corrupt.png"},  # corrupt bytes
        {"image": f"/data/local-files/?d={rel}/absent.png"},  # missing file
        {"image": "http://127.0.0.1:9/nothing-listens-here.png"},  # unreachable host
        {"image": "data:image/png;base64," + base64.b64encode(b"garbage").decode()},  # corrupt bytes
        {"image": "data:image/png;base64," + base64.b64encode(_png(4)).decode()},  # fine, but label not in config
        {"image": ""},  # no image at all
        {"image": "file:///etc/hostname"},  # a file of the step's own machine: refused
    ]
    ids = label_studio.import_tasks(project, data)
    for task_id in [good_upload, deleted_upload, *ids]:
        label_studio.annotate(task_id, seed.choice_result("zebra" if task_id == ids[5] else "a"))
    gone = next((label_studio.data_dir / "media" / "upload").rglob("*gone.png"))
    gone.unlink()
    outputs, report = export(label_studio, project, (tmp_path / "d").as_uri())
    assert outputs["num_items"] == 2
    assert report["skipped"] == {"corrupt_image": 2, "missing_image": 5, "unknown_label": 1}
    examples = {reason: {e["task"] for e in items} for reason, items in report["examples"].items()}
    assert examples == {"corrupt_image": {ids[1], ids[4]}, "unknown_label": {ids[5]},
                        "missing_image": {deleted_upload, ids[2], ids[3], ids[6], ids[7]}}
    assert "zebra" in report["examples"]["unknown_label"][0]["detail"]


def test_images_come_from_every_kind_of_url(label_studio: LabelStudioServer, s3_server: S3Server,
                                            tmp_path: Path) -> None:
    import http.server
    import threading

    web_root = tmp_path / "web"
    web_root.mkdir()
    (web_root / "seven.png").write_bytes(_png(7))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(web_root), **kwargs)

        def log_message(self, *args: object) -> None:
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    storage = s3_server.storage()
    s3_image = join(s3_server.fresh_root(), "raw", "eight.png")
    storage.put_bytes(s3_image, _png(8))
    project = label_studio.create_project("url kinds test", seed.classification_config(["a"]))
    folder = label_studio.files_root / f"p{project}"
    folder.mkdir()
    (folder / "nine.png").write_bytes(_png(9))
    label_studio.add_local_storage(project, folder)
    (upload,) = label_studio.upload_images(project, [("six.png", _png(6))])
    base = f"http://127.0.0.1:{web.server_address[1]}"
    sources = [f"{base}/seven.png", s3_image, f"/data/local-files/?d={folder.name}/nine.png",
               "data:image/png;base64," + base64.b64encode(_png(5)).decode(), f"{base}/missing.png"]
    ids = label_studio.import_tasks(project, [{"image": url} for url in sources])
    for task_id in [upload, *ids]:
        label_studio.annotate(task_id, seed.choice_result("a"))
    try:
        outputs, report = export(label_studio, project, (tmp_path / "d").as_uri(), storage)
    finally:
        web.shutdown()
    manifest = json.loads(Path(outputs["dataset_uri"].removeprefix("file://"), DATASET_MANIFEST).read_text())
    assert sorted(r["id"] for r in manifest["items"]) == sorted([upload, *ids[:4]])
    assert report["skipped"] == {"missing_image": 1} and report["examples"]["missing_image"][0]["task"] == ids[4]
    digests = {r["id"]: r["sha256"] for r in manifest["items"]}
    assert [digests[i] for i in ids[:4]] == [hashlib.sha256(_png(n)).hexdigest() for n in (7, 8, 9, 5)]


def test_zero_usable_annotations_fail_clearly(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    project = label_studio.create_project("nothing usable test", seed.classification_config(["a"]))
    (task,) = label_studio.import_tasks(project, [{"image": "http://127.0.0.1:9/x.png"}])
    label_studio.annotate(task, seed.choice_result("a"))
    with pytest.raises(ZeroUsable, match="zero usable annotations") as info:
        export(label_studio, project, (tmp_path / "d").as_uri())
    assert info.value.report["skipped"] == {"missing_image": 1}
    assert not (tmp_path / "d").exists()


def test_personal_access_token_works_and_wrong_token_is_refused_at_once(
        label_studio: LabelStudioServer, digits_project: seed.SeededProject, tmp_path: Path) -> None:
    pat = label_studio.personal_access_token()
    assert pat.count(".") == 2  # a JWT refresh token, not the legacy token
    outputs, _ = export(label_studio, digits_project.id, (tmp_path / "d").as_uri(), api_key=pat)
    assert outputs["num_items"] >= 24
    started = time.monotonic()
    with pytest.raises(AuthError, match="401"):
        export(label_studio, digits_project.id, (tmp_path / "d").as_uri(), api_key="0" * 40,
               retry=Retry(5, 1.0))
    assert time.monotonic() - started < 5, "a refused token must not be retried"


def test_unreachable_label_studio_is_retried_then_named(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    from tests.fixtures_labelstudio import free_port

    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(ServiceUnavailable, match=f"{url}.*after 3 attempts"):
        export(label_studio, 1, (tmp_path / "d").as_uri(), url=url, retry=Retry(3, 0.2))
    assert time.monotonic() - started >= 0.6  # backoff 0.2 + 0.4


def test_label_studio_5xx_is_retried_with_backoff(label_studio: LabelStudioServer, tmp_path: Path) -> None:
    import http.server
    import threading

    hits: list[float] = []

    class Failing(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(time.monotonic())
            self.send_response(503)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"detail": "maintenance"}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with pytest.raises(ServiceUnavailable, match="HTTP 503"):
            export(label_studio, 1, (tmp_path / "d").as_uri(), url=url, retry=Retry(4, 0.1))
    finally:
        server.shutdown()
    gaps = [b - a for a, b in itertools.pairwise(hits)]
    assert len(hits) == 4 and gaps[0] >= 0.09 and gaps[2] >= 0.39  # 0.1, 0.2, 0.4
