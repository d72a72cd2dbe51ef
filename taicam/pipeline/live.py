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
from .photo import DEFAULT_CONF, read_suspected_flowers, read_suspected_tiles, score_photo

DEFAULT_STABLE_FRAMES = 5


def hand_signature(fields: dict[str, Any]) -> Signature | None:
    """What must stay the same across frames: the tiles of each role, order-free."""
    if not fields["concealed"]:
        return None
    melds = tuple(sorted(f"{m['kind']}:{''.join(sorted(m['tiles']))}" for m in fields["melds"]))
    return (tuple(sorted(fields["concealed"])), melds, tuple(sorted(fields["flowers"])), (fields["winning_tile"] or "",))


class LiveScorer:
    """Frames in; a ``PhotoScore`` out when the table has held still for ``frames_needed`` frames on a new hand."""

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
        """Recognise the frame; the scored hand too, only when the table has just settled on a new one.

        Each frame is read quickly (``HandFollower``); the frame the voter finds due is read as
        ``taicam score`` reads a photo (``score_photo``: the finer views, each unsure crop looked at
        again, the row's gaps and the lone flowers, the whole-hand repair), and its recognition is
        the one returned. A quick reading scored in its place read 26 of 60 real-tile scenes in
        1280 × 720 frames exactly, the full read 39, as many as a snap of the same frames.
        """
        start = time.perf_counter()
        detections = self.follower.detect(frame)
        layout = group_tiles(detections)
        if layout.flowers_in_runs:
            detections, layout = read_suspected_tiles(self.detector, frame, detections, layout.flowers_in_runs, False)
        if layout.flower_strays:
            strays = dict.fromkeys(layout.flower_strays, notices.READ_AS_FLOWER)
            detections, layout = read_suspected_flowers(self.detector, frame, detections, strays, False)
        recognition = Recognition(detections, layout, (time.perf_counter() - start) * 1000)
        if not self.voter.due(hand_signature(layout.hand_fields()), frame):
            return recognition, None
        scored = score_photo(self.detector, frame, self.request, self.follower.conf)
        read = Recognition(scored.detections, scored.layout, scored.ms)
        return read, scored if self.voter.is_new(hand_signature(scored.tiles.to_json())) else None
