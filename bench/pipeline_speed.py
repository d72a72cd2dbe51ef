"""Photo to score: a 12 MP photo and a 1280×720 frame, and live frames per second from a video.

The frames are rendered whole-table scenes, resized to each size. The peer
`mahjong-detector` runs detection only on the same frames, for the ratio.
Run: ``python -m bench pipeline``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.scenes import render_scene

from service.live import LiveScorer
from service.pipeline import recognise, score_layout
from vision.detector import TileDetector
from vision.frames import CaptureSource, frames

REPEATS = 5


def _median_ms(action, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return round(float(np.median(times)), 1)


def run() -> dict:
    detector = TileDetector()
    scene = render_scene(3, framing="table").image
    sizes = {"12mp": (4000, 3000), "720p": (1280, 720)}
    figures: dict = {}
    for name, (w, h) in sizes.items():
        frame = cv2.resize(scene, (w, h), interpolation=cv2.INTER_CUBIC)
        data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()

        def photo_to_score(data: bytes = data) -> dict:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            recognition = recognise(detector, image)
            return score_layout(recognition.layout, {}, "taiwan")

        photo_to_score()  # warm-up
        figures[f"photo_to_score_ms_{name}"] = _median_ms(photo_to_score)
        try:
            from bench.detector_speed import _peer

            peer = _peer()
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            peer(image)
            figures[f"peer_detect_ms_{name}"] = _median_ms(lambda image=image, peer=peer: peer(image))
        except ImportError:
            figures["peer"] = "mahjong-detector not installed"
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "table.avi"
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 15, (1280, 720))
        base = cv2.resize(scene, (1280, 720))
        for i in range(45):
            writer.write(np.roll(base, i % 3, axis=1))  # a slightly shaking camera
        writer.release()
        scorer = LiveScorer(detector, {}, frames_needed=5)
        start = time.perf_counter()
        count = sum(1 for frame in frames(CaptureSource(str(video))) if scorer.process(frame) is not None)
        figures["live_fps_720p"] = round(count / (time.perf_counter() - start), 1)
    return figures


if __name__ == "__main__":
    print(run())
