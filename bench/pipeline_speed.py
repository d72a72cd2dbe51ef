"""Photo to score: a 12 MP photo and 1280×720 frames, and live frames per second from a video.

The frames are rendered scenes resized to each size: whole tables (small tiles: the second
pass runs) and a hand snap. Timings include JPEG decoding. The peer `mahjong-detector` runs
detection only on the same frames, for the ratio.
Run: ``python -m bench pipeline``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.scenes import render_scene

from taicam.pipeline import LiveScorer, ScoreRequest, recognise, score_recognition
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


def _alternating_ms(ours, theirs, repeats: int = REPEATS) -> tuple[float, float]:
    """Median ms of each, run in turns so that load from other processes falls on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for action, kept in ((ours, times[0]), (theirs, times[1])):
            start = time.perf_counter()
            action()
            kept.append((time.perf_counter() - start) * 1000)
    return round(float(np.median(times[0])), 1), round(float(np.median(times[1])), 1)


FRAMES = {  # name: (framing of the rendered scene, width, height)
    "12mp_table": ("table", 4000, 3000),
    "720p_table": ("table", 1280, 720),
    "720p_hand": ("hand", 1280, 720),
}


def _jpeg(framing: str, w: int, h: int) -> bytes:
    scene = render_scene(3, framing=framing).image
    frame = cv2.resize(scene, (w, h), interpolation=cv2.INTER_CUBIC)
    return cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _video(framing: str, folder: Path) -> Path:
    """45 frames of 1280×720 MJPEG, the camera shaking by a pixel or two."""
    video = folder / f"{framing}.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 15, (1280, 720))
    base = cv2.resize(render_scene(3, framing=framing).image, (1280, 720))
    for i in range(45):
        writer.write(np.roll(base, i % 3, axis=1))
    writer.release()
    return video


def _frames_per_second(process, video: Path) -> float:
    """Frames per second when ``process`` handles every frame of ``video``, decoding included."""
    start = time.perf_counter()
    count = sum(1 for frame in frames(CaptureSource(str(video))) if process(frame) is not None)
    return round(count / (time.perf_counter() - start), 1)


def run() -> dict:
    detector = TileDetector()
    figures: dict = {}
    try:
        from bench.detector_speed import _peer

        peer = _peer()
    except ImportError:
        peer = None
        figures["peer"] = "mahjong-detector not installed"
    for name, (framing, w, h) in FRAMES.items():
        data = _jpeg(framing, w, h)

        def photo_to_score(data: bytes = data) -> dict:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            return score_recognition(recognise(detector, image), ScoreRequest()).to_json()

        photo_to_score()  # warm-up
        if peer is None:
            figures[f"photo_to_score_ms_{name}"] = _median_ms(photo_to_score)
            continue
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        peer(image)
        ours, theirs = _alternating_ms(photo_to_score, lambda image=image: peer(image))
        figures[f"photo_to_score_ms_{name}"] = ours
        figures[f"peer_detect_ms_{name}"] = theirs
        figures[f"ratio_photo_to_score_over_peer_detect_{name}"] = round(ours / theirs, 2)
    with tempfile.TemporaryDirectory() as tmp:
        for framing in ("hand", "table"):
            video = _video(framing, Path(tmp))
            # LiveScorer: detect, classify, group, vote, score; the peer detects only.
            figures[f"live_fps_720p_{framing}"] = _frames_per_second(LiveScorer(detector, frames_needed=5).process, video)
            if peer is not None:
                figures[f"peer_detect_fps_720p_{framing}"] = _frames_per_second(peer, video)
                figures[f"ratio_live_fps_over_peer_{framing}"] = round(
                    figures[f"live_fps_720p_{framing}"] / figures[f"peer_detect_fps_720p_{framing}"], 2
                )
    return figures


if __name__ == "__main__":
    print(run())
