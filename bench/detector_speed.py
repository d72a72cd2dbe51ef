"""Detector: accuracy and latency of taicam's float and INT8 models against the peer `mahjong-detector`.

All run on the same real-hk-v4 val photos in the same process, taking turns photo by photo,
taicam's detector alone and with its crop classifier re-reading each box. The peer is a riichi
YOLO11n with 34 classes and no flowers, so accuracy is compared on those 34 classes only.
Run: ``python -m bench detector`` (``pip install mahjong-detector`` for the peer).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.layout import list_images, pixel_boxes, read_labels

from models.evaluate import match
from models.quantize import int8_path
from scoring.tiles import PLAYING_TILES, TILE_CODES
from vision.detections import Detections
from vision.detector import TileDetector

# Beside the checkout by default; TAICAM_REAL_DATA names it elsewhere (a git worktree, say).
REAL = Path(os.environ.get("TAICAM_REAL_DATA", Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-hk-v4"))
PEER_NAMES = {"chun": "7z", "haku": "5z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}
PLAYING = {TILE_CODES.index(t) for t in PLAYING_TILES}
MODELS = Path(__file__).resolve().parents[1] / "models"
FLOAT_MODEL, FLOAT_CLASSIFIER = MODELS / "taicam-tiles.onnx", MODELS / "taicam-tile-classifier.onnx"
INT8_MODEL, INT8_CLASSIFIER = int8_path(FLOAT_MODEL), int8_path(FLOAT_CLASSIFIER)


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


def _score_all(detectors: dict[str, Callable[[np.ndarray], Detections]], images: list[Path]) -> dict[str, dict]:
    """Accuracy and latency of each detector, taking turns on each photo so that load from other
    processes falls on all of them alike."""
    tallies = {name: {"matched": 0, "correct": 0, "times": []} for name in detectors}
    truth_total = 0
    for path in images:
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        rows = [r for r in read_labels(REAL / "labels" / "val" / f"{path.stem}.txt") if r[0] in PLAYING]
        truth = pixel_boxes(rows, w, h)
        truth_total += len(rows)
        for name, detect in detectors.items():
            start = time.perf_counter()
            found = detect(image)
            tallies[name]["times"].append((time.perf_counter() - start) * 1000)
            found = found[np.isin(found.class_id, list(PLAYING))]
            pairs = match(truth, found)
            tallies[name]["matched"] += len(pairs)
            tallies[name]["correct"] += sum(found.class_id[p] == rows[t][0] for p, t in pairs)
    return {
        name: {
            "tile_recall": round(t["matched"] / max(truth_total, 1), 4),
            "class_accuracy": round(t["correct"] / max(t["matched"], 1), 4),
            "ms_median": round(float(np.median(t["times"])), 1),
        }
        for name, t in tallies.items()
    }


def run() -> dict:
    if not REAL.exists():
        return {"skipped": f"{REAL} not found"}
    images = list_images(REAL / "images" / "val")
    floating = TileDetector(FLOAT_MODEL, classifier_path=FLOAT_CLASSIFIER)
    detectors: dict[str, Callable[[np.ndarray], Detections]] = {
        "taicam_float": lambda image: floating.detect(image, conf=0.25),
        "taicam_float_with_classifier": lambda image: floating.reread(image, floating.detect(image, conf=0.25)),
    }
    if INT8_MODEL.exists():
        int8 = TileDetector(INT8_MODEL, classifier_path=INT8_CLASSIFIER if INT8_CLASSIFIER.exists() else FLOAT_CLASSIFIER)
        detectors["taicam_int8"] = lambda image: int8.detect(image, conf=0.25)
        detectors["taicam_int8_with_classifier"] = lambda image: int8.reread(image, int8.detect(image, conf=0.25))
    figures: dict = {"images": len(images), "classes_compared": 34}
    try:
        detectors["mahjong_detector"] = _peer()
    except ImportError:
        figures["peer"] = "mahjong-detector not installed"
    warm = cv2.imread(str(images[0]))
    for detect in detectors.values():
        detect(warm)
    results = _score_all(detectors, images)
    figures.update(results)
    base = results.get("mahjong_detector", results["taicam_float"])
    base_name = "peer" if "mahjong_detector" in results else "float"
    for name, result in results.items():
        if name != "mahjong_detector":
            figures[f"latency_ratio_{name}_over_{base_name}"] = round(result["ms_median"] / base["ms_median"], 2)
    if "taicam_int8" in results:
        int8_ms, float_ms = results["taicam_int8"]["ms_median"], results["taicam_float"]["ms_median"]
        figures["latency_ratio_int8_over_float"] = round(int8_ms / float_ms, 2)
    return figures


if __name__ == "__main__":
    print(run())
