"""Live mode rations its costly looks: the 1280-px whole-frame look, and decoding frames it drops."""

from __future__ import annotations

import numpy as np

from tests.fakes import FakeDetector
from vision.detections import Detections
from vision.live import FINE_LOOK_INTERVAL_S, HandFollower


class EmptyTable(FakeDetector):
    """Sees no tile, and counts its runs at the 1280-px long side."""

    def __init__(self) -> None:
        self.fine_looks = 0

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        self.fine_looks += side == 1280
        return Detections.empty()


def test_an_empty_table_is_looked_at_finely_once_a_second_not_every_frame():
    detector = EmptyTable()
    now = [0.0]
    follower = HandFollower(detector, clock=lambda: now[0])  # type: ignore[arg-type]
    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame_gap = FINE_LOOK_INTERVAL_S / 20  # 20 frames a second
    for _ in range(40):
        assert len(follower.detect(frame)) == 0
        now[0] += frame_gap
    assert detector.fine_looks == 2  # at 0 s and at 1 s; every frame (40) before


def test_a_new_scene_is_looked_at_finely_at_once():
    detector = EmptyTable()
    follower = HandFollower(detector, clock=lambda: 0.0)  # type: ignore[arg-type]
    empty = np.full((720, 1280, 3), 90, np.uint8)
    follower.detect(empty)
    follower.detect(empty)
    assert detector.fine_looks == 1
    laid = empty.copy()
    laid[200:520, 100:1180] = 230  # tiles laid on the table
    follower.detect(laid)
    assert detector.fine_looks == 2
