"""Labeling configs, annotation parsing, image decoding and the retry policy, without servers."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import pytest

from aipipe.errors import AuthError, NotFoundError, ServiceUnavailable, UserError
from steps.export_annotations import seed
from steps.export_annotations.annotations import BadLabel, LabelSpec, choose_annotation
from steps.export_annotations.client import Retry, call_with_retries
from steps.export_annotations.images import ImageProblem, decode, decode_data_url


def test_label_map_follows_the_config_order() -> None:
    spec = LabelSpec.from_config(seed.classification_config(["zebra", "ant", "moose"]))
    assert (spec.task, spec.control, spec.image_key, spec.classes) == (
        "classification", "label", "image", ("zebra", "ant", "moose"))
    detection = LabelSpec.from_config(seed.detection_config(["b", "a"]))
    assert (detection.task, detection.classes) == ("detection", ("b", "a"))


def test_configs_without_an_image_control_are_refused() -> None:
    with pytest.raises(UserError, match="Choices or RectangleLabels"):
        LabelSpec.from_config('<View><Text name="t" value="$text"/><Choices name="c" toName="t">'
                              '<Choice value="x"/></Choices></View>')


def test_boxes_become_clipped_yolo_centres() -> None:
    spec = LabelSpec.from_config(seed.detection_config(["cat", "dog"]))
    annotation = {"result": seed.box_result([("dog", 10, 20, 30, 40), ("cat", 90, 90, 20, 20)], 200, 100)}
    dog, cat = spec.boxes_of(annotation)
    assert (dog.label_id, dog.x, dog.y, dog.w, dog.h) == pytest.approx((1, 0.25, 0.4, 0.3, 0.4))
    assert (cat.label_id, cat.x, cat.w) == pytest.approx((0, 0.95, 0.1))  # clipped at the right edge
    rotated = seed.box_result([("dog", 10, 10, 10, 10)], 100, 100)
    rotated[0]["value"]["rotation"] = 30
    with pytest.raises(BadLabel) as info:
        spec.boxes_of({"result": rotated})
    assert info.value.reason == "rotated_box"
    with pytest.raises(BadLabel) as info:
        spec.boxes_of({"result": seed.box_result([("bird", 1, 1, 5, 5)], 10, 10)})
    assert info.value.reason == "unknown_label"


def test_policy_prefers_ground_truth_then_latest() -> None:
    spec = LabelSpec.from_config(seed.classification_config(["a", "b"]))

    def ann(i: int, label: str | None, updated: str, **flags: bool) -> dict[str, object]:
        return {"id": i, "updated_at": updated, "result": seed.choice_result(label) if label else [], **flags}

    older_gt = ann(1, "a", "2024-01-01", ground_truth=True)
    newer = ann(2, "b", "2024-06-01")
    newest_cancelled = ann(3, "a", "2024-07-01", was_cancelled=True)
    newest_empty = ann(4, None, "2024-08-01")
    assert choose_annotation([newer, older_gt], spec).annotation is older_gt
    choice = choose_annotation([newer, newest_cancelled, newest_empty], spec)
    assert (choice.annotation, choice.cancelled, choice.empty) == (newer, 1, 1)
    assert choice.key == "2@2024-06-01"
    assert choose_annotation([newest_cancelled], spec).annotation is None
    with pytest.raises(BadLabel) as info:
        spec.label_of({"result": seed.choice_result("a") + seed.choice_result("b")})
    assert info.value.reason == "multiple_labels"


def test_images_decode_or_are_reported_corrupt() -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (7, 5)).save(buf, format="JPEG")
    assert decode(buf.getvalue()) == decode(decode_data_url(
        "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()))
    assert (decode(buf.getvalue()).ext, decode(buf.getvalue()).width) == ("jpg", 7)
    for corrupt in (b"", b"GIF89a" + b"\0" * 5, buf.getvalue()[: len(buf.getvalue()) // 2]):
        with pytest.raises(ImageProblem) as info:
            decode(corrupt)
        assert info.value.reason == "corrupt_image"


class HTTPFailure(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


def test_retry_policy_maps_statuses() -> None:
    waits: list[float] = []
    attempts: list[int] = []

    def failing(status: int) -> Callable[[], None]:
        def call() -> None:
            attempts.append(status)
            raise HTTPFailure(status)
        return call

    with pytest.raises(ServiceUnavailable, match=r"http://ls.*HTTP 502.*4 attempts"):
        call_with_retries(failing(502), url="http://ls", what="x", retry=Retry(4, 0.5), sleep=waits.append)
    assert waits == [0.5, 1.0, 2.0] and len(attempts) == 4
    attempts.clear()
    with pytest.raises(AuthError, match="401"):
        call_with_retries(failing(401), url="http://ls", what="x", retry=Retry(4, 0.5), sleep=waits.append)
    assert len(attempts) == 1
    with pytest.raises(NotFoundError):
        call_with_retries(failing(404), url="http://ls", what="x", retry=Retry(4, 0.5), sleep=waits.append)
    flaky = iter([ConnectionError("reset"), None])

    def recovers() -> str:
        error = next(flaky)
        if error:
            raise error
        return "ok"

    assert call_with_retries(recovers, url="http://ls", what="x", retry=Retry(3, 0.1), sleep=waits.append) == "ok"
