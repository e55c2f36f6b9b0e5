"""Reading a labeling config and the annotations of exported tasks.

The label map comes from the config, in the config's order, so class ids never drift when labels
are used in a different order. Annotation policy for a task with several annotations: a
ground-truth one first, else the latest non-cancelled; cancelled and empty ones are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aipipe.errors import UserError

from .dataset import CLASSIFICATION, DETECTION, Box
from .skips import SkippedTask

CONTROL_KINDS = {"RectangleLabels": DETECTION, "Choices": CLASSIFICATION}


class BadLabel(SkippedTask):
    """An annotation that cannot become a training label."""


@dataclass(frozen=True)
class LabelSpec:
    """What the labeling config says: task kind, the control, the image field and ordered classes."""

    task: str
    control: str
    image_key: str
    classes: tuple[str, ...]

    @classmethod
    def from_config(cls, label_config: str) -> LabelSpec:
        """Use the first RectangleLabels control, else the first Choices control, over an Image tag."""
        from label_studio_sdk.label_interface import LabelInterface

        try:
            interface = LabelInterface(label_config)
        except Exception as exc:
            raise UserError(f"cannot parse the labeling config: {exc}", field="project") from exc
        images = {obj.name: obj.value for obj in interface.objects if obj.tag == "Image"}
        for tag in CONTROL_KINDS:
            for control in interface.controls:
                targets = [name for name in control.to_name if name in images]
                if control.tag != tag or not targets:
                    continue
                classes = tuple(dict.fromkeys(control.labels))
                if not classes:
                    raise UserError(f"control {control.name!r} lists no labels", field="project")
                return cls(CONTROL_KINDS[tag], control.name, images[targets[0]].lstrip("$"), classes)
        raise UserError("the labeling config has no Choices or RectangleLabels control over an Image: "
                        "only image classification and object detection projects can be exported",
                        field="project")

    def label_of(self, annotation: Mapping[str, Any]) -> str:
        """The class of a classification annotation."""
        choices = [c for r in self._results(annotation) for c in r.get("value", {}).get("choices", [])]
        if len(set(choices)) != 1:
            raise BadLabel("multiple_labels", f"{len(set(choices))} choices, expected one")
        self._check(choices[0])
        return choices[0]

    def boxes_of(self, annotation: Mapping[str, Any]) -> tuple[Box, ...]:
        """The boxes of a detection annotation, in relative YOLO centre form clipped to the image."""
        boxes = []
        for result in self._results(annotation):
            value = result.get("value", {})
            labels = value.get("rectanglelabels") or []
            if len(labels) != 1:
                raise BadLabel("multiple_labels", f"a box with {len(labels)} labels, expected one")
            self._check(labels[0])
            if abs(float(value.get("rotation") or 0.0)) > 1e-6:
                raise BadLabel("rotated_box", "rotated boxes cannot be written as YOLO/COCO boxes")
            x0, y0 = _clip(value["x"] / 100), _clip(value["y"] / 100)
            x1, y1 = _clip((value["x"] + value["width"]) / 100), _clip((value["y"] + value["height"]) / 100)
            if x1 <= x0 or y1 <= y0:
                raise BadLabel("empty_box", "a box of zero area")
            boxes.append(Box(labels[0], self.classes.index(labels[0]), (x0 + x1) / 2, (y0 + y1) / 2,
                             x1 - x0, y1 - y0))
        return tuple(boxes)

    def is_empty(self, annotation: Mapping[str, Any]) -> bool:
        return not self._results(annotation)

    def _results(self, annotation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return [r for r in annotation.get("result") or [] if r.get("from_name") == self.control]

    def _check(self, label: str) -> None:
        if label not in self.classes:
            raise BadLabel("unknown_label", f"label {label!r} is not in the labeling config")


def _clip(value: float) -> float:
    return min(max(float(value), 0.0), 1.0)


@dataclass(frozen=True)
class Choice:
    """The annotation picked for a task, and how many of its annotations were dropped and why."""

    annotation: Mapping[str, Any] | None
    cancelled: int
    empty: int

    @property
    def key(self) -> str:
        """Changes whenever the picked annotation changes: feeds ``num_new``."""
        if self.annotation is None:
            return ""
        return f"{self.annotation.get('id')}@{self.annotation.get('updated_at') or self.annotation.get('created_at')}"


def choose_annotation(annotations: Sequence[Mapping[str, Any]], spec: LabelSpec) -> Choice:
    """Ground truth first, else the latest (by update time, then id) non-cancelled, non-empty one."""
    cancelled = [a for a in annotations if a.get("was_cancelled")]
    kept = [a for a in annotations if not a.get("was_cancelled")]
    usable = [a for a in kept if not spec.is_empty(a)]
    if not usable:
        return Choice(None, len(cancelled), len(kept))

    def recency(a: Mapping[str, Any]) -> tuple[bool, str, int]:
        return (bool(a.get("ground_truth")), str(a.get("updated_at") or a.get("created_at") or ""), int(a.get("id", 0)))

    return Choice(max(usable, key=recency), len(cancelled), len(kept) - len(usable))
