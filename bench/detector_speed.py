"""Detector: accuracy and latency of the bundled model against the peer `mahjong-detector`.

Both run on the same real-hk-v4 val photos in the same process, taicam's detector alone and
with its crop classifier re-reading each box. The peer is a riichi
YOLO11n with 34 classes and no flowers, so accuracy is compared on those 34 classes only.
Run: ``python -m bench detector`` (``pip install mahjong-detector`` for the peer).
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.layout import list_images, read_labels

from models.evaluate import match
from scoring.tiles import PLAYING_TILES, TILE_CODES
from vision.detections import Detections
from vision.detector import TileDetector

REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-hk-v4"
PEER_NAMES = {"chun": "7z", "haku": "5z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}
PLAYING = {TILE_CODES.index(t) for t in PLAYING_TILES}


def _peer():
    import mahjong_detector
    from mahjong_detector.predict import CLASS_NAMES, predict
    from PIL import Image

    classes = [TILE_CODES.index(PEER_NAMES.get(name, name)) for name in CLASS_NAMES]

    def detect(image: np.ndarray) -> Detections:
        pil = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
        prepared, padding = mahjong_detector.preprocess_image(pil)
        found = predict(prepared, padding)
        if not found:
            return Detections.empty()
        boxes = np.array([[d.x1, d.y1, d.x2, d.y2] for d in found], np.float32)
        return Detections(
            boxes, np.array([d.confidence for d in found], np.float32), np.array([classes[d.class_id] for d in found], np.int64)
        )

    return detect


def _score(detect, images: list[Path]) -> dict:
    matched = correct = truth_total = 0
    times = []
    for path in images:
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        rows = [r for r in read_labels(REAL / "labels" / "val" / f"{path.stem}.txt") if r[0] in PLAYING]
        truth = np.array(
            [[(x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h] for _, x, y, bw, bh in rows], np.float32
        ).reshape(-1, 4)
        start = time.perf_counter()
        found = detect(image)
        times.append((time.perf_counter() - start) * 1000)
        found = found[np.isin(found.class_id, list(PLAYING))]
        pairs = match(truth, found)
        matched += len(pairs)
        correct += sum(found.class_id[p] == rows[t][0] for p, t in pairs)
        truth_total += len(rows)
    return {
        "tile_recall": round(matched / max(truth_total, 1), 4),
        "class_accuracy": round(correct / max(matched, 1), 4),
        "ms_median": round(float(np.median(times)), 1),
    }


def run() -> dict:
    if not REAL.exists():
        return {"skipped": f"{REAL} not found"}
    images = list_images(REAL / "images" / "val")
    detector = TileDetector()
    detector.detect(cv2.imread(str(images[0])))  # warm-up
    ours = _score(lambda image: detector.detect(image, conf=0.25), images)
    with_classifier = _score(lambda image: detector.reread(image, detector.detect(image, conf=0.25)), images)
    figures = {"images": len(images), "classes_compared": 34, "taicam": ours, "taicam_with_classifier": with_classifier}
    try:
        peer_detect = _peer()
    except ImportError:
        figures["peer"] = "mahjong-detector not installed"
        return figures
    peer_detect(cv2.imread(str(images[0])))
    peer = _score(peer_detect, images)
    figures["mahjong_detector"] = peer
    figures["latency_ratio_taicam_over_peer"] = round(ours["ms_median"] / peer["ms_median"], 2)
    figures["latency_ratio_with_classifier_over_peer"] = round(with_classifier["ms_median"] / peer["ms_median"], 2)
    return figures


if __name__ == "__main__":
    print(run())
