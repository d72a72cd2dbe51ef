"""Drawing: boxes, codes and group roles on a copy of the image."""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections
from .grouping import Layout

ROLE_COLOURS = {
    "concealed": (40, 40, 230),
    "winning": (0, 215, 255),
    "meld": (230, 120, 30),
    "flower": (200, 60, 200),
    "background": (140, 140, 140),
}


class Annotator:
    def annotate(self, image: np.ndarray, detections: Detections, layout: Layout | None = None) -> np.ndarray:
        """A new image with each detection boxed, labelled with its code and coloured by role."""
        out = image.copy()
        roles = {}
        if layout is not None:
            for group in layout.groups:
                for i in group.ids:
                    roles[i] = group.role
        thickness = max(1, round(max(image.shape[:2]) / 600))
        scale = max(0.4, max(image.shape[:2]) / 1600)
        for i, (box, code) in enumerate(zip(detections.xyxy, detections.codes, strict=True)):
            colour = ROLE_COLOURS.get(roles.get(i, "concealed"), (40, 40, 230))
            x1, y1, x2, y2 = (int(v) for v in box)
            cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
            cv2.putText(out, code, (x1, max(y1 - 3, 10)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)
        return out
