"""Live scoring: one frame at a time, a stable hand is scored once."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from vision import notices
from vision.detector import TileDetector
from vision.grouping import group_tiles
from vision.live import HandFollower, Signature, StableHandVoter

from .contract import PhotoScore, Recognition, ScoreRequest
from .photo import DEFAULT_CONF, read_suspected_flowers, repair, score_recognition

DEFAULT_STABLE_FRAMES = 5


def hand_signature(fields: dict[str, Any]) -> Signature | None:
    """What must stay the same across frames: the tiles of each role, order-free."""
    if not fields["concealed"]:
        return None
    melds = tuple(sorted(f"{m['kind']}:{''.join(sorted(m['tiles']))}" for m in fields["melds"]))
    return (tuple(sorted(fields["concealed"])), melds, tuple(sorted(fields["flowers"])), (fields["winning_tile"] or "",))


class LiveScorer:
    """Frames in; a ``PhotoScore`` out on the frame a hand has held still for ``frames_needed`` frames."""

    def __init__(
        self,
        detector: TileDetector,
        request: ScoreRequest | None = None,
        conf: float = DEFAULT_CONF,
        frames_needed: int = DEFAULT_STABLE_FRAMES,
    ):
        self.request = request or ScoreRequest()
        self.detector = detector
        self.voter = StableHandVoter(frames_needed=frames_needed)
        self.follower = HandFollower(detector, conf)

    def process(self, frame: np.ndarray) -> tuple[Recognition, PhotoScore | None]:
        """Recognise the frame; the scored hand too, only when it has just become stable."""
        start = time.perf_counter()
        detections = self.follower.detect(frame)
        layout = group_tiles(detections)
        if layout.flower_strays:
            strays = dict.fromkeys(layout.flower_strays, notices.READ_AS_FLOWER)
            detections, layout = read_suspected_flowers(self.detector, frame, detections, strays, False)
        recognition = Recognition(detections, layout, (time.perf_counter() - start) * 1000)
        stable = self.voter.update(hand_signature(recognition.layout.hand_fields()), frame)
        if stable is None:
            return recognition, None
        scored = score_recognition(repair(recognition, self.request), self.request)
        return Recognition(scored.detections, scored.layout, scored.ms), scored
