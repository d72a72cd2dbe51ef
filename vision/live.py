"""Live mode: report a hand only once it has held still for N frames, and once per change."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from .detections import Detections
from .detector import DEFAULT_CONF, TileDetector
from .photo import View, first_pass, follow_view, read_view

Signature = tuple[tuple[str, ...], ...]
LIVE_VIEW_BUDGET = 0.6  # of a 640 × 640 pass: what the whole 16:9 frame costs (640 × 384)
LOST_SHARE = 0.7  # fewer tiles than this share of the first look: the camera moved, look again
# The whole-frame look at 1280 px (``first_pass``'s finer look, 4 × a 640 pass) runs when the
# frame shows fewer tiles than a hand (unless they are ``TARGET_TILE_PX`` wide already): on an empty
# or half-laid table, every frame. Live, it runs at most once a second, or at once when the scene has
# changed since it last ran; so does the mirrored second look that a frame under 960 px takes instead
# (a webcam's 640 × 480).
FINE_LOOK_INTERVAL_S = 1.0
SCENE_CHANGE = 12.0  # mean absolute change (0–255) of the 160 × 90 grey thumbnail: a new scene
THUMBNAIL = (160, 90)


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """A small grey copy of the frame, for cheap change measures."""
    return cv2.cvtColor(cv2.resize(frame, THUMBNAIL, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY).astype(np.int16)


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
    conf: float = DEFAULT_CONF
    refresh_frames: int = 30
    clock: Callable[[], float] = time.monotonic
    _view: View | None = None  # None until a whole-frame look has found tiles
    _age: int = 0  # frames since the last whole-frame look
    _expected: int = 0
    _fine_at: float = -math.inf  # when the last 1280-px look was allowed
    _fine_scene: np.ndarray | None = None  # and the thumbnail of the frame it was allowed on

    def detect(self, frame: np.ndarray) -> Detections:
        if self._view is not None and self._age < self.refresh_frames:
            self._age += 1
            found = read_view(self.detector, frame, self._view, self.conf, second_look=False)
            if len(found) >= LOST_SHARE * self._expected:
                return found
        return self._look(frame)

    def _look(self, frame: np.ndarray) -> Detections:
        first = first_pass(self.detector, frame, self.conf, fine=self._fine_look_due(frame))
        if not len(first):  # nothing on the table yet: look again next frame
            self._view = None
            return first
        self._view = follow_view(self.detector, frame, first, LIVE_VIEW_BUDGET)
        self._age = 0
        found = read_view(self.detector, frame, self._view, self.conf, second_look=False)
        self._expected = len(found)
        return found

    def _fine_look_due(self, frame: np.ndarray) -> bool:
        """Whether a whole-frame look may also look at 1280 px, or mirrored in a small frame: a second since
        the last one, or a new scene."""
        now, scene = self.clock(), thumbnail(frame)
        changed = self._fine_scene is None or float(np.abs(scene - self._fine_scene).mean()) > SCENE_CHANGE
        if not changed and now - self._fine_at < FINE_LOOK_INTERVAL_S:
            return False
        self._fine_at, self._fine_scene = now, scene
        return True


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
        small = thumbnail(frame)
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
