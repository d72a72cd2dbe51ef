"""Live scoring: one frame at a time, a stable hand is scored once."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from vision.detector import TileDetector
from vision.grouping import group_tiles
from vision.live import HandFollower, Signature, StableHandVoter

from .messages import EN
from .pipeline import Recognition, repair, score_layout


def hand_signature(fields: dict[str, Any]) -> Signature | None:
    """What must stay the same across frames: the tiles of each role, order-free."""
    if not fields["concealed"]:
        return None
    melds = tuple(sorted(f"{m['kind']}:{''.join(sorted(m['tiles']))}" for m in fields["melds"]))
    return (tuple(sorted(fields["concealed"])), melds, tuple(sorted(fields["flowers"])), (fields["winning_tile"] or "",))


class LiveScorer:
    def __init__(
        self,
        detector: TileDetector,
        context: dict[str, Any],
        preset: str = "taiwan",
        conf: float = 0.25,
        frames_needed: int = 5,
        lang: str = EN,
    ):
        self.context = context
        self.lang = lang
        self.preset = preset
        self.voter = StableHandVoter(frames_needed=frames_needed)
        self.follower = HandFollower(detector, conf)

    def process(self, frame: np.ndarray) -> tuple[Recognition, dict[str, Any] | None]:
        """Recognise the frame; return the scored hand only when it has just become stable."""
        start = time.perf_counter()
        detections = self.follower.detect(frame)
        recognition = Recognition(detections, group_tiles(detections), (time.perf_counter() - start) * 1000)
        stable = self.voter.update(hand_signature(recognition.layout.hand_fields()), frame)
        if stable is None:
            return recognition, None
        recognition = repair(recognition, self.context, self.preset)
        return recognition, score_layout(recognition.layout, self.context, self.preset, lang=self.lang)
