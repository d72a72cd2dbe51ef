"""Live mode: report a hand only once it has held still for N frames, and once per change."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

Signature = tuple[tuple[str, ...], ...]


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
