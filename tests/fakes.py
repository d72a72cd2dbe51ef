"""A fake detector for the service and labeling tests: no model, fixed detections."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scoring.tiles import TILE_CODES
from vision.detections import Detections
from vision.detector import ModelInfo


class FakeDetector:
    """Returns fixed detections: a legal 17-tile hand laid in a row, the winner set apart."""

    info = ModelInfo(TILE_CODES, (640, 640), 32, False)
    stride = 32  # takes any input shape, as the bundled export does
    path = Path("fake.onnx")
    classifier = None  # the fixed codes stand
    mirrored_look = False  # its boxes do not follow the picture, so a mirrored look would see another table
    HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5p", "5p", "6s", "7s")
    WINNING = "8s"

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        """The hand laid out on an 800 × 240 picture, stretched to the one given: live mode reads
        a region of the frame as a picture of its own."""
        boxes = [[20 + 40 * i, 100, 56 + 40 * i, 148] for i in range(len(self.HAND))]
        boxes.append([20 + 40 * len(self.HAND) + 40, 100, 56 + 40 * len(self.HAND) + 40, 148])
        h, w = image.shape[:2]
        stretched = np.array(boxes, np.float32) * np.array([w / 800, h / 240, w / 800, h / 240], np.float32)
        codes = [*self.HAND, self.WINNING]
        classes = np.array([TILE_CODES.index(c) for c in codes], np.int64)
        return Detections(stretched, np.full(len(codes), 0.95, np.float32), classes)

    def reread(self, image: np.ndarray, detections: Detections, second_look: bool = True) -> Detections:
        return detections
