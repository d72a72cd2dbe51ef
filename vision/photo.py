"""Large photos: a first pass finds the tiles, a second pass reads them at full resolution.

A 12 MP phone shot letterboxed to 640 px leaves 40 px tiles about 6 px wide, too small to
find or read. When the first pass sees small tiles, the region holding them (the player's own
tiles when scoring, every tile when detecting) is cut from the original pixels and read again
at a scale where each tile reaches ``TARGET_TILE_PX``: in one rectangular run for dynamic-shape
models, in overlapping windows otherwise. The pixels read are capped, so is the cost.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections, suppress_contained
from .detector import TileDetector
from .grouping import group_tiles

TARGET_TILE_PX = 44  # tile width at model scale that the detector reads reliably
SMALL_TILE_PX = 26  # below this, a second pass is worth its cost
# Pixels the second pass may read, in first passes at 640 × 640: the player's own tiles lie close
# together; every tile of a whole table spreads over the photo and needs more.
SECOND_PASS_BUDGET = {"hand": 2, "all": 4}


def _merge(parts: list[Detections], iou: float) -> Detections:
    if not parts:
        return Detections.empty()
    boxes = np.concatenate([p.xyxy for p in parts])
    scores = np.concatenate([p.confidence for p in parts])
    classes = np.concatenate([p.class_id for p in parts])
    has_alt = all(p.alt_class_id is not None for p in parts)
    alt_classes = np.concatenate([p.alt_class_id for p in parts if p.alt_class_id is not None]) if has_alt else None
    alt_scores = np.concatenate([p.alt_confidence for p in parts if p.alt_confidence is not None]) if has_alt else None
    if len(boxes) == 0:
        return Detections.empty()
    xywh = np.stack([boxes[:, 0], boxes[:, 1], boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    keep = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), 0.0, iou), dtype=np.int64).reshape(-1)
    keep = keep[np.argsort(-scores[keep], kind="stable")]
    alt = (alt_classes[keep], alt_scores[keep]) if alt_classes is not None and alt_scores is not None else (None, None)
    return suppress_contained(Detections(boxes[keep], scores[keep], classes[keep], *alt))


def _windows(x0: int, y0: int, x1: int, y1: int, size: int) -> list[tuple[int, int, int, int]]:
    """Overlapping square windows of ``size`` covering the region."""

    def starts(low: int, high: int) -> list[int]:
        if high - low <= size:
            return [low]
        count = int(np.ceil((high - low - size) / (size * 0.75))) + 1
        return [round(v) for v in np.linspace(low, high - size, count)]

    return [(x, y, x + size, y + size) for y in starts(y0, y1) for x in starts(x0, x1)]


def detect_photo(
    detector: TileDetector,
    image: np.ndarray,
    conf: float = 0.25,
    iou: float = 0.6,
    second_pass: bool = True,
    focus: str = "all",
) -> Detections:
    """Detections in original pixels, with a full-resolution second pass when tiles are small,
    and each box's code read again from its full-resolution crop (``TileDetector.reread``).

    ``focus="hand"`` spends the second pass on the player's own tiles only, which is all that
    scoring needs; other players' discards keep their first-pass boxes. Live video skips the
    second pass (``second_pass=False``): frame rate matters more there, and the camera is close.
    """
    if focus not in SECOND_PASS_BUDGET:
        raise ValueError(f"focus must be 'all' or 'hand', not {focus!r}")
    return detector.reread(image, _locate(detector, image, conf, iou, second_pass, focus))


def _locate(detector: TileDetector, image: np.ndarray, conf: float, iou: float, second_pass: bool, focus: str) -> Detections:
    first = detector.detect(image, conf=conf, iou=iou)
    if not second_pass or len(first) == 0:
        return first
    h, w = image.shape[:2]
    model_side = max(detector.info.imgsz)
    widths = np.minimum(first.xyxy[:, 2] - first.xyxy[:, 0], first.xyxy[:, 3] - first.xyxy[:, 1])
    tile = float(np.median(widths))
    if tile * model_side / max(h, w) >= SMALL_TILE_PX:
        return first
    chosen = first
    if focus == "hand":
        own = sorted(i for g in group_tiles(first).groups if g.role != "background" for i in g.ids)
        chosen = first[np.array(own, np.int64)] if own else first
    margin = 3 * tile  # flowers and melds lie a little apart from the row
    x0, y0 = int(max(0, chosen.xyxy[:, 0].min() - margin)), int(max(0, chosen.xyxy[:, 1].min() - margin))
    x1, y1 = int(min(w, chosen.xyxy[:, 2].max() + margin)), int(min(h, chosen.xyxy[:, 3].max() + margin))
    budget = SECOND_PASS_BUDGET[focus] * model_side**2
    scale = min(TARGET_TILE_PX / tile, np.sqrt(budget / ((x1 - x0) * (y1 - y0))))
    if detector.stride:
        found = detector.detect(image[y0:y1, x0:x1], conf=conf, iou=iou, side=round(max(x1 - x0, y1 - y0) * scale))
        parts = [_shifted(found, x0, y0)]
    else:
        size = min(int(model_side / scale), max(x1 - x0, y1 - y0))
        parts = [
            _shifted(detector.detect(image[wy0 : min(wy1, h), wx0 : min(wx1, w)], conf=conf, iou=iou), wx0, wy0)
            for wx0, wy0, wx1, wy1 in _windows(x0, y0, x1, y1, size)
        ]
    second = _merge(parts, iou)
    inside = _centres_within(first, (x0, y0, x1, y1))
    if len(second) < 0.5 * inside.sum():
        return first  # the second look went wrong (blur, a hand over the tiles): keep the first
    return _merge([second, first[~inside]], iou)


def _shifted(found: Detections, dx: int, dy: int) -> Detections:
    boxes = found.xyxy + np.array([dx, dy, dx, dy], np.float32)
    return Detections(boxes, found.confidence, found.class_id, found.alt_class_id, found.alt_confidence)


def _centres_within(detections: Detections, region: tuple[int, int, int, int]) -> np.ndarray:
    cx = (detections.xyxy[:, 0] + detections.xyxy[:, 2]) / 2
    cy = (detections.xyxy[:, 1] + detections.xyxy[:, 3]) / 2
    return (cx >= region[0]) & (cx < region[2]) & (cy >= region[1]) & (cy < region[3])
