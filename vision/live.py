"""Live mode: report a hand only once it has held still for N frames, and once per change."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from .detections import Detections
from .detector import TileDetector
from .photo import View, first_pass, follow_view, read_view

Signature = tuple[tuple[str, ...], ...]
LIVE_VIEW_BUDGET = 0.6  # of a 640 × 640 pass: what the whole 16:9 frame costs (640 × 384)
LOST_SHARE = 0.7  # fewer tiles than this share of the first look: the camera moved, look again


@dataclass
class HandFollower:
    """Live frames from a camera that stays put: find the winner's tiles once, then read their region.

    Seen from beside the table, the hand's tiles are small and often at an angle. Reading only
    their region, turned level (``vision.photo.follow_view``) at about the cost of a whole-frame
    pass, sees them larger and loses none to overlapping boxes. When the whole frame already shows
    them well, the region alone at the same scale still costs fewer pixels. The region is found
    again every ``refresh_frames`` frames, and at once when the tiles in it thin out. The
    classifier reads each crop once: the frames' vote steadies the readings, and the frame rate
    matters more.
    """

    detector: TileDetector
    conf: float = 0.25
    refresh_frames: int = 30
    _view: View | None = None  # None until a whole-frame look has found tiles
    _age: int = 0  # frames since the last whole-frame look
    _expected: int = 0

    def detect(self, frame: np.ndarray) -> Detections:
        if self._view is not None and self._age < self.refresh_frames:
            self._age += 1
            found = read_view(self.detector, frame, self._view, self.conf, second_look=False)
            if len(found) >= LOST_SHARE * self._expected:
                return found
        return self._look(frame)

    def _look(self, frame: np.ndarray) -> Detections:
        first = first_pass(self.detector, frame, self.conf)
        if not len(first):  # nothing on the table yet: look again next frame
            self._view = None
            return first
        self._view = follow_view(self.detector, frame, first, LIVE_VIEW_BUDGET)
        self._age = 0
        found = read_view(self.detector, frame, self._view, self.conf, second_look=False)
        self._expected = len(found)
        return found


@dataclass
class StableHandVoter:
    """Temporal voting over per-frame hand signatures.

    A signature is reported when it is the same in ``frames_needed`` consecutive frames and
    the picture is not moving (hands still placing tiles). It is not reported again until a
    different stable signature has appeared in between.
    """

    frames_needed: int = 5
    motion_limit: float = 6.0  # mean absolute pixel change (0–255) above which the table is moving
    _history: deque = field(default_factory=lambda: deque(maxlen=64))
    _last_small: np.ndarray | None = None
    _reported: Signature | None = None

    def motion(self, frame: np.ndarray) -> float:
        small = cv2.cvtColor(cv2.resize(frame, (160, 90), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        small = small.astype(np.int16)
        change = 0.0 if self._last_small is None else float(np.abs(small - self._last_small).mean())
        self._last_small = small
        return change

    def update(self, signature: Signature | None, frame: np.ndarray | None = None) -> Signature | None:
        """Feed one frame's signature; returns it when it has just become stable and is new."""
        moving = frame is not None and self.motion(frame) > self.motion_limit
        self._history.append(None if moving else signature)
        recent = list(self._history)[-self.frames_needed :]
        if len(recent) < self.frames_needed or signature is None:
            return None
        if any(s != signature for s in recent):
            return None
        if signature == self._reported:
            return None
        self._reported = signature
        return signature
