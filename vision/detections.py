"""Detections: parallel numpy arrays, validated when built, and the geometry of their boxes.

Box geometry (centres, sizes, overlaps, non-maximum suppression, merging) is written once, here;
the grouping and the photo passes call it instead of each writing its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.tiles import FLOWERS, TILE_CODES

# Measured on whole-table renders (seeds 200–229, not those it was chosen on): recall of every
# tile 0.881 → 0.912 at precision 0.999 → 0.998 (models/README.md).
SURE_TILE = 0.6
# A box a surer box covers this much of is a second reading of that tile (``suppress_contained``).
SECOND_READING_COVERED = 0.6
# Readings kept besides each tile's first, most likely first. The whole-hand repair searches the first
# SEARCHED_READINGS when the first readings make no legal hand: real-tile scenes read exactly
# (bench/real_scenes.py, seeds 0–59 / 1000–1059) with the runner-up alone 27 / 30 of 60, with 2 readings
# 30 / 30, 3 31 / 30, 5 32 / 30; searching all twelve read 351 of 600 other scenes (seeds 0–599), five
# 359. The rest rank the codes the other tiles of a hand wait on, each likelier than an unlisted code.
OTHER_READINGS = 12
SEARCHED_READINGS = 5
FLOWER_CLASSES = np.array([TILE_CODES.index(code) for code in FLOWERS])  # class ids of 1f–8f


@dataclass(frozen=True)
class Detections:
    """Boxes in source-image pixels (``xyxy``), with a confidence and a tile class each."""

    xyxy: np.ndarray  # (n, 4) float32
    confidence: np.ndarray  # (n,) float32
    class_id: np.ndarray  # (n,) int64
    # The other readings and their scores, when the model's output gives them: (n, k), most likely
    # first (a runner-up alone may be given as (n,)). The pipeline may use them when the first
    # readings make no legal hand; a score of 0 marks no reading.
    other_class_ids: np.ndarray | None = None
    other_confidences: np.ndarray | None = None
    # (n,) what the detector's own flower classes scored at each box in its first look at the whole
    # photo, its reading and other readings together (``vision.photo.detect_and_read``); the readers'
    # later codes leave it as it was. None where no first look measured it (a frame of live video).
    flower_scores: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.confidence)
        if self.xyxy.shape != (n, 4):
            raise ValueError(f"xyxy must have shape ({n}, 4), got {self.xyxy.shape}")
        if self.class_id.shape != (n,):
            raise ValueError(f"class_id must have shape ({n},), got {self.class_id.shape}")
        if (self.other_class_ids is None) != (self.other_confidences is None):
            raise ValueError("other_class_ids and other_confidences come together")
        if self.other_class_ids is not None and self.other_confidences is not None:
            for name in ("other_class_ids", "other_confidences"):
                value = getattr(self, name)
                if value.ndim == 1:
                    value = value[:, None]
                    object.__setattr__(self, name, value)  # frozen: set once, while being built
                if value.ndim != 2 or value.shape[0] != n:
                    raise ValueError(f"{name} must have shape ({n}, k), got {value.shape}")
            if self.other_class_ids.shape != self.other_confidences.shape:
                raise ValueError("other_class_ids and other_confidences must have the same shape")
        if self.flower_scores is not None and self.flower_scores.shape != (n,):
            raise ValueError(f"flower_scores must have shape ({n},), got {self.flower_scores.shape}")
        if n and (self.class_id.min() < 0 or self.class_id.max() >= len(TILE_CODES)):
            raise ValueError(f"class_id must lie in 0..{len(TILE_CODES) - 1}")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.confidence)

    def __getitem__(self, index: np.ndarray | slice) -> Detections:
        other_classes = None if self.other_class_ids is None else self.other_class_ids[index]
        other_scores = None if self.other_confidences is None else self.other_confidences[index]
        flower_scores = None if self.flower_scores is None else self.flower_scores[index]
        return Detections(
            self.xyxy[index], self.confidence[index], self.class_id[index], other_classes, other_scores, flower_scores
        )

    def at(self, xyxy: np.ndarray) -> Detections:
        """The same readings with the boxes moved to ``xyxy`` (another frame's pixels)."""
        return replace(self, xyxy=xyxy)

    def with_class(self, index: int, class_id: int) -> Detections:
        """A copy where detection ``index`` reads as ``class_id``."""
        classes = self.class_id.copy()
        classes[index] = class_id
        return replace(self, class_id=classes)

    def as_chosen(self, index: int, class_id: int) -> Detections:
        """A copy where a person has said detection ``index`` is ``class_id``: sure, with no other reading
        left to doubt it (no warning of a low confidence or of another flower it could be)."""
        confidence = self.confidence.copy()
        confidence[index] = 1.0
        other_classes, other_scores = self.other_class_ids, self.other_confidences
        if other_classes is not None and other_scores is not None:
            other_classes, other_scores = other_classes.copy(), other_scores.copy()
            other_classes[index], other_scores[index] = class_id, 0.0
        chosen = replace(self, confidence=confidence, other_class_ids=other_classes, other_confidences=other_scores)
        return chosen.with_class(index, class_id)

    def as_other_reading(self, index: int, column: int) -> Detections:
        """A copy where detection ``index`` reads as its other reading in ``column``, at that reading's
        score; its first reading becomes its likeliest other one, so no reading is lost."""
        if self.other_class_ids is None or self.other_confidences is None:
            raise ValueError("these detections carry no other readings")
        classes, scores = self.other_class_ids.copy(), self.other_confidences.copy()
        chosen, chosen_score = int(classes[index, column]), float(scores[index, column])
        rest = [c for c in range(classes.shape[1]) if c != column]
        classes[index] = [int(self.class_id[index]), *classes[index, rest]]
        scores[index] = [float(self.confidence[index]), *scores[index, rest]]
        confidence = self.confidence.copy()
        confidence[index] = chosen_score
        moved = replace(self, confidence=confidence, other_class_ids=classes, other_confidences=scores)
        return moved.with_class(index, chosen)

    def mirrored(self, width: float) -> Detections:
        """The same readings with every box mirrored left to right in a picture ``width`` pixels wide."""
        xyxy = self.xyxy.copy()
        xyxy[:, [0, 2]] = width - self.xyxy[:, [2, 0]]
        return self.at(xyxy)

    def scored_with(self, second: Detections, same_iou: float, apart_iou: float) -> Detections:
        """These boxes and a second look's at the same picture as one set, each scored by the mean of the
        two looks' scores (a look without a box at ``same_iou`` or more scores 0); a box's other readings
        are scaled with it.

        A box seen twice keeps this look's box and readings. The second look's boxes overlapping no box
        here by ``apart_iou`` or more join at half their score; the rest were already counted or straddle
        tiles. A joining box may lie inside a loose box of this look: on real-hk-v4 val such boxes were
        tiles the loose box had not matched (dropping them, by ``suppress_contained`` or by the overlap of
        the smaller box, found 6–8 fewer of 1,726 tiles).
        """
        overlap = box_iou(self.xyxy, second.xyxy)
        second_scores = np.zeros(len(self), np.float64)
        taken = np.zeros(len(second), bool)
        for i in np.argsort(-self.confidence, kind="stable"):
            free = np.flatnonzero(~taken & (overlap[i] >= same_iou))
            if len(free):
                j = free[overlap[i, free].argmax()]
                taken[j], second_scores[i] = True, second.confidence[j]
        rescored = self._scaled((self.confidence + second_scores) / 2)
        apart = overlap.max(axis=0, initial=0.0) < apart_iou
        alone = second[~taken & apart]
        merged = Detections.concat([rescored, alone._scaled(alone.confidence / 2)])
        return merged[np.argsort(-merged.confidence, kind="stable")]

    def _scaled(self, confidence: np.ndarray) -> Detections:
        """A copy scored ``confidence``, each box's other readings scaled as its own score is."""
        confidence = confidence.astype(np.float32)
        if self.other_confidences is None:
            return replace(self, confidence=confidence)
        gain = np.divide(confidence, self.confidence, out=np.zeros_like(confidence), where=self.confidence > 0)
        others = (self.other_confidences * gain[:, None]).astype(np.float32)
        return replace(self, confidence=confidence, other_confidences=others)

    @property
    def other_count(self) -> int:
        """How many other readings each detection carries (0: none)."""
        return 0 if self.other_class_ids is None else int(self.other_class_ids.shape[1])

    def padded_others(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the other readings in ``k`` columns: cut to ``k``, or filled with no reading (score 0)."""
        classes = np.repeat(self.class_id[:, None], k, axis=1)
        scores = np.zeros((len(self), k), np.float32)
        if self.other_class_ids is not None and self.other_confidences is not None:
            given = min(k, self.other_class_ids.shape[1])
            classes[:, :given] = self.other_class_ids[:, :given]
            scores[:, :given] = self.other_confidences[:, :given]
        return classes, scores

    def shifted(self, dx: float, dy: float) -> Detections:
        """The same readings with every box moved by (``dx``, ``dy``): a window's pixels → its view's."""
        return self.at(self.xyxy + np.array([dx, dy, dx, dy], np.float32))

    @property
    def centres(self) -> np.ndarray:
        """(n, 2) box centres, float64."""
        return box_centres(self.xyxy.astype(np.float64))

    @property
    def sizes(self) -> np.ndarray:
        """(n,) the square root of each box's area, float64: a tile's size however it is turned."""
        return box_sizes(self.xyxy)

    @property
    def narrow_sides(self) -> np.ndarray:
        """(n,) each box's shorter side: a tile's width whichever way it stands."""
        return narrow_sides(self.xyxy)

    @classmethod
    def concat(cls, parts: Sequence[Detections]) -> Detections:
        """All the parts' detections, in order; the other readings only if every part has them (as many
        as the part with fewest); flower scores if any part has them (0 for the boxes of those without)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        k = min(p.other_count for p in parts)
        others = [p.padded_others(k) for p in parts] if k else None
        scored = any(p.flower_scores is not None for p in parts)
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.class_id for p in parts]),
            np.concatenate([classes for classes, _ in others]) if others else None,
            np.concatenate([scores for _, scores in others]) if others else None,
            np.concatenate([_flower_scores_of(p) for p in parts]) if scored else None,
        )

    @classmethod
    def merge(cls, parts: Sequence[Detections], iou: float, covered: float = SECOND_READING_COVERED) -> Detections:
        """Overlapping looks at one picture (windows of a view) as one set: where two read the same
        tile, the surer box stays (NMS at ``iou``, then ``suppress_contained`` at ``covered``), surest first."""
        merged = cls.concat(parts)
        if len(merged) == 0:
            return merged
        keep = non_max_suppression(xyxy_to_xywh(merged.xyxy), merged.confidence, iou)
        return suppress_contained(merged[keep[np.argsort(-merged.confidence[keep], kind="stable")]], covered)

    @property
    def codes(self) -> list[str]:
        return [TILE_CODES[int(i)] for i in self.class_id]

    def to_json(self) -> list[dict]:
        """The contract shape: ``{"code", "box": [x1, y1, x2, y2], "confidence"}`` per tile."""
        return [
            {"code": code, "box": [round(float(v), 1) for v in box], "confidence": round(float(conf), 4)}
            for code, box, conf in zip(self.codes, self.xyxy, self.confidence, strict=True)
        ]


def _flower_scores_of(detections: Detections) -> np.ndarray:
    """The detections' flower scores, 0 where none were measured."""
    if detections.flower_scores is None:
        return np.zeros(len(detections), np.float32)
    return detections.flower_scores.astype(np.float32)


def box_centres(xyxy: np.ndarray) -> np.ndarray:
    """(n, 2) centres of the boxes ``xyxy``, in their own dtype."""
    return (xyxy[:, :2] + xyxy[:, 2:]) / 2


def box_corners(xyxy: np.ndarray) -> np.ndarray:
    """(n, 4, 2) the corners of each box, float64: top-left, top-right, bottom-right, bottom-left."""
    return xyxy[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2).astype(np.float64)


def box_sizes(xyxy: np.ndarray, min_area: float = 0.0) -> np.ndarray:
    """(n,) the square root of each box's area (at least ``min_area``), float64."""
    area = areas(np.asarray(xyxy, np.float64))
    return np.sqrt(np.maximum(area, min_area) if min_area else area)


def narrow_sides(xyxy: np.ndarray) -> np.ndarray:
    """(n,) each box's shorter side, in the boxes' own dtype."""
    return np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])


def xyxy_to_xywh(xyxy: np.ndarray) -> np.ndarray:
    """Corner boxes → (left, top, width, height), the form OpenCV's NMS takes."""
    return np.stack([xyxy[:, 0], xyxy[:, 1], xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]], axis=1)


def non_max_suppression(xywh: np.ndarray, scores: np.ndarray, iou: float, min_score: float = 0.0) -> np.ndarray:
    """Indices of the boxes kept by class-agnostic NMS (OpenCV's): one tile is one box."""
    kept = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), min_score, iou)
    return np.asarray(kept, dtype=np.int64).reshape(-1)


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) overlap areas of the boxes ``a`` (n, 4) with the boxes ``b`` (m, 4), xyxy."""
    a, b = a[:, None, :].astype(np.float64), b[None, :, :].astype(np.float64)
    w = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    h = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    return w * h


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) intersection over union of the boxes ``a`` with the boxes ``b``; 0 where both are empty."""
    inter = intersections(a, b)
    union = areas(np.asarray(a, np.float64))[:, None] + areas(np.asarray(b, np.float64))[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def areas(boxes: np.ndarray) -> np.ndarray:
    return (boxes[:, 2] - boxes[:, 0]).astype(np.float64) * (boxes[:, 3] - boxes[:, 1])


def overlap_of_smaller(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) share of the smaller box that each pair of ``a`` (n, 4) and ``b`` (m, 4) holds in common:
    1 when one box lies wholly inside the other, whatever their sizes (IoU would not say so)."""
    smaller = np.minimum(areas(a)[:, None], areas(b)[None, :])
    return intersections(a, b) / np.maximum(smaller, 1e-6)


def suppress_contained(detections: Detections, ratio: float = SECOND_READING_COVERED, sure: float = SURE_TILE) -> Detections:
    """Drop a box whose area is mostly (≥ ``ratio``) covered by more confident boxes.

    Tiles touch but never overlap, so a box lying inside another, or straddling two
    neighbours, is a second reading of tiles already found; IoU-based NMS lets it through.
    A box covered only by several others stays when it is read at ``sure`` or more: the
    axis-aligned boxes of a tilted row's tiles cover their neighbours by nature, and those
    readings are sure, where a box straddling two tiles seldom is.
    """
    n = len(detections)
    if n < 2:
        return detections
    order = np.argsort(-detections.confidence, kind="stable")
    boxes = detections.xyxy[order].astype(np.float64)
    sizes = np.maximum(areas(boxes), 1e-6)
    kept: list[int] = []
    for i in range(n):
        if kept:
            covered = intersections(boxes[i : i + 1], boxes[kept])[0] / sizes[i]
            if covered.max() >= ratio or (covered.sum() >= ratio and detections.confidence[order[i]] < sure):
                continue
        kept.append(i)
    return detections[np.sort(order[kept])]
