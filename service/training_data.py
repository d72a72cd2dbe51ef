"""Photos players opt in to share (``save_for_training``) go to the label store as training examples.

What the player corrected becomes a box marked ``corrected``; what the model read and the player
left alone becomes an ``unchecked`` pre-label. The same store is the one ``taicam label`` and
/label open, so a kept photo is in the review queue at once.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np
from taicam_datasets.labels import Box, Capture, LabelError, LabelStore

from vision.detections import Detections


def capture_boxes(detections: Detections, corrections: dict[int, str]) -> tuple[Box, ...]:
    """One box per detection, in detection order: corrected ones as a person's, the rest as the model's."""
    boxes = []
    readings = zip(detections.codes, detections.xyxy, detections.confidence, strict=True)
    for index, (code, xyxy, confidence) in enumerate(readings):
        x1, y1, x2, y2 = (float(v) for v in xyxy)
        if index in corrections:
            boxes.append(Box(code, x1, y1, x2, y2, "human", None, "corrected"))
        else:
            boxes.append(Box(code, x1, y1, x2, y2, "model", round(float(confidence), 4), "unchecked"))
    return tuple(boxes)


def table_session(source: str) -> str:
    """Photos of one evening at the table share a capture session, so they share a split: near-identical
    frames in both train and val would flatter the val figures."""
    return f"{source}-{time.strftime('%Y%m%d')}"


def keep_for_training(
    store: LabelStore | None,
    frame: np.ndarray,
    upload: bytes,
    source: str,
    detections: Detections,
    corrections: dict[int, str],
    result: dict[str, Any],
) -> dict[str, Any]:
    """``{"image_id": N}``; when the store refuses (full, say), ``{"image_id": null, "error": {…}}``.

    The score is the player's answer and is never lost because the photo could not be kept.
    """
    if store is None:
        return {"image_id": None, "error": {"code": "labeling_off", "message": "this server has no label store", "details": {}}}
    capture = Capture(
        image=frame,
        digest=hashlib.sha1(upload).hexdigest(),
        source=source,
        session=table_session(source),
        preset=str(result["hand"].get("preset", "")),
        hand=result["hand"],
        corrections=corrections,
        unscorable="error" in result["score"],
        boxes=capture_boxes(detections, corrections),
    )
    try:
        return {"image_id": store.add_capture(capture)}
    except LabelError as error:
        return {"image_id": None, **error.to_json()}
