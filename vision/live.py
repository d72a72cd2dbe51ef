"""Live mode: follow the hand frame by frame, read a frame in full once the table holds still, report each new hand once."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

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
    classifier reads each crop once: the frame rate matters more here, and the frame the table
    settles on is read in full (``taicam.pipeline.LiveScorer``).
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
    """When a live frame is worth a full read, and whether the hand that read gives is new.

    Each frame's quick reading (``HandFollower``, one look at each crop) steadies the picture on
    screen; it is no reading to score. Over a still table it can flicker: a tile read one way in one
    frame and another way when the camera shakes by a pixel, so that no hand ever holds for
    ``frames_needed`` frames (20 of 60 real-tile scenes in 1280 × 720 frames, ``python -m bench
    accuracy``). A frame is due a full read (``due``) once the picture has held still for
    ``frames_needed`` frames with a hand in it: once a still spell, and again when the quick readings
    agree on another hand for ``frames_needed`` still frames (a tile swapped without much motion). The
    hand the full read gives is reported (``is_new``) unless it is the one reported last.
    """

    frames_needed: int = 5
    motion_limit: float = 6.0  # mean absolute pixel change (0–255) above which the table is moving
    _last_small: np.ndarray | None = None
    _still: int = 0  # still frames with a hand in a row
    _read_this_spell: bool = False
    _agreeing: int = 0  # still frames in a row whose quick reading is the last one's
    _last_quick: Signature | None = None
    _quick_at_read: Signature | None = None  # the quick reading of the frame read last
    _reported: Signature | None = None

    def motion(self, frame: np.ndarray) -> float:
        small = thumbnail(frame)
        change = 0.0 if self._last_small is None else float(np.abs(small - self._last_small).mean())
        self._last_small = small
        return change

    def due(self, quick: Signature | None, frame: np.ndarray | None = None) -> bool:
        """Feed one frame and its quick reading's signature; True when this frame is to be read in full."""
        moving = frame is not None and self.motion(frame) > self.motion_limit
        if moving:
            self._read_this_spell = False
        if moving or quick is None:
            self._still = self._agreeing = 0
            self._last_quick = quick
            return False
        self._still += 1
        self._agreeing = self._agreeing + 1 if quick == self._last_quick else 1
        self._last_quick = quick
        settled = self._still >= self.frames_needed and not self._read_this_spell
        swapped = self._agreeing >= self.frames_needed and quick != self._quick_at_read
        if not (settled or swapped):
            return False
        self._read_this_spell, self._quick_at_read = True, quick
        return True

    def is_new(self, read: Signature | None) -> bool:
        """Whether the full read's hand is to be reported: one with tiles, other than the last reported."""
        if read is None or read == self._reported:
            return False
        self._reported = read
        return True
