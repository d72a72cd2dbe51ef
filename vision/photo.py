"""Large photos: a first pass finds the tiles, a second pass reads them at full resolution.

A 12 MP phone shot letterboxed to 640 px leaves 40 px tiles about 10 px wide, too small to
read. When the first pass sees small tiles, the region holding them is cut from the original
pixels in overlapping windows sized so each tile reaches ``TARGET_TILE_PX`` at model scale.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections, suppress_contained
from .detector import TileDetector

TARGET_TILE_PX = 44  # tile width at model scale that the detector reads reliably
SMALL_TILE_PX = 26  # below this, a second pass is worth its cost
MAX_WINDOWS = 4


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
    detector: TileDetector, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, second_pass: bool = True
) -> Detections:
    """Detections in original pixels, with a full-resolution second pass when tiles are small.

    Live video skips the second pass (``second_pass=False``): frame rate matters more there,
    and the camera is usually close enough.
    """
    first = detector.detect(image, conf=conf, iou=iou)
    if not second_pass:
        return first
    h, w = image.shape[:2]
    model_side = max(detector.info.imgsz)
    gain = model_side / max(h, w)
    if len(first) == 0:
        return first
    widths = np.minimum(first.xyxy[:, 2] - first.xyxy[:, 0], first.xyxy[:, 3] - first.xyxy[:, 1])
    tile = float(np.median(widths))
    if tile * gain >= SMALL_TILE_PX:
        return first
    # Cut the region that holds tiles, with a margin, and read it at a scale that suits tiles.
    margin = 2.5 * tile
    x0 = int(max(0, first.xyxy[:, 0].min() - margin))
    y0 = int(max(0, first.xyxy[:, 1].min() - margin))
    x1 = int(min(w, first.xyxy[:, 2].max() + margin))
    y1 = int(min(h, first.xyxy[:, 3].max() + margin))
    size = int(min(max(x1 - x0, y1 - y0), model_side * tile / TARGET_TILE_PX))
    size = max(size, model_side)
    windows = _windows(x0, y0, x1, y1, min(size, max(x1 - x0, y1 - y0)))
    if len(windows) > MAX_WINDOWS:  # bound the cost: grow windows rather than multiply them
        size = int(np.ceil(max(x1 - x0, y1 - y0) / np.sqrt(MAX_WINDOWS) * 1.2))
        windows = _windows(x0, y0, x1, y1, size)
    parts = []
    for wx0, wy0, wx1, wy1 in windows:
        crop = image[wy0 : min(wy1, h), wx0 : min(wx1, w)]
        found = detector.detect(crop, conf=conf, iou=iou)
        if len(found):
            shifted = found.xyxy + np.array([wx0, wy0, wx0, wy0], np.float32)
            parts.append(Detections(shifted, found.confidence, found.class_id, found.alt_class_id, found.alt_confidence))
    merged = _merge(parts, iou)
    return merged if len(merged) >= len(first) * 0.5 else first
