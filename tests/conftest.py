"""Shared fixtures: a fake detector, app clients, and fixture photos made by the generator."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.tiles import TILE_CODES
from service.app import create_app
from service.settings import Settings
from vision.detections import Detections
from vision.detector import ModelInfo

REAL_VAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-hk-v4"


class FakeDetector:
    """Returns fixed detections: a legal 17-tile hand laid in a row, the winner set apart."""

    info = ModelInfo(TILE_CODES, (640, 640), 32, False)
    stride = 32  # takes any input shape, as the bundled export does
    path = Path("fake.onnx")
    classifier = None  # the fixed codes stand
    HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5p", "5p", "6s", "7s")
    WINNING = "8s"

    def detect(self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None) -> Detections:
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


@pytest.fixture
def settings(tmp_path) -> Settings:
    # The TestClient's requests carry "Host: testserver"; the production check stays as it is.
    return Settings(data_dir=tmp_path / "data", max_upload_mb=2, allowed_hosts=["testserver"])


@pytest.fixture
def fake_app(settings):
    return create_app(settings, detector_factory=lambda s: FakeDetector())


@pytest.fixture
def jpeg_bytes() -> bytes:
    image = np.full((240, 800, 3), 90, np.uint8)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()
