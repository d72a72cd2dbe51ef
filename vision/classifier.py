"""Second look at each tile: a small classifier reads full-resolution crops of the detector's boxes.

The detector sees the whole photo at 640 px, where a flower's glyph (梅 or 菊) is a few pixels
wide. Cutting each box from the original pixels and classifying it at ``side`` px reads the
face at the resolution the camera gave. The detector still decides where tiles are.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import TILE_CODES

from .detections import Detections
from .onnx_session import PAD_VALUE, ModelError, open_session

BUNDLED_CLASSIFIER = Path(__file__).resolve().parent.parent / "models" / "taicam-tile-classifier.onnx"  # INT8 beside it
CROP_MARGIN = 0.08  # of the box size on each side: detector boxes are a little loose or tight
# Detector readings this confident stand; only the others are read again. The detector fine-tuned
# on real tiles is sure of more of them, wrongly too: at 0.85 real-tile scenes (bench/real_scenes.py)
# read 18 and 16 of 60 exactly, at 0.95 20 and 17, with real val and renders as good or better
# (models/README.md); asking the classifier about every tile read 21 and 17 for more crops a frame.
DETECTOR_SURE = 0.95
# The classifier overrules the detector when it finds its own pick at least this many times as
# likely as the detector's reading; otherwise the detector's reading stands.
OVERRULE_RATIO = 2.0
LOOK_AGAIN_BELOW = 0.9  # a crop read less surely than this is read again, cut tighter and looser
MARGIN_STEP = 0.05  # of the box size per side, for those two extra cuts


def crop_tiles(image: np.ndarray, xyxy: np.ndarray, side: int, margin: float = CROP_MARGIN) -> np.ndarray:
    """(n, side, side, 3) uint8 BGR crops of the boxes, each widened by ``margin`` and squashed square."""
    h, w = image.shape[:2]
    crops = np.empty((len(xyxy), side, side, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(xyxy, np.float64)):
        dx, dy = (x2 - x1) * margin, (y2 - y1) * margin
        left, top = int(max(0, np.floor(x1 - dx))), int(max(0, np.floor(y1 - dy)))
        right, bottom = int(min(w, np.ceil(x2 + dx))), int(min(h, np.ceil(y2 + dy)))
        if right <= left or bottom <= top:
            crops[i] = PAD_VALUE
            continue
        patch = image[top:bottom, left:right]
        shrink = patch.shape[0] > side or patch.shape[1] > side
        crops[i] = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    return crops


def to_blob(crops: np.ndarray) -> np.ndarray:
    """BGR uint8 crops → float32 NCHW RGB in 0..1, as the classifier was trained."""
    return np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class TileClassifier:
    """ONNX crop classifier; ``refine(image, detections)`` re-reads the boxes the detector was unsure of."""

    def __init__(self, model_path: Path | str = BUNDLED_CLASSIFIER, gate: threading.Semaphore | None = None):
        path = Path(model_path)
        self.session = open_session(path, spinning=False)
        metadata = self.session.get_modelmeta().custom_metadata_map
        try:
            names = tuple(ast.literal_eval(metadata["names"]))
            self.side = int(metadata["side"])
            self.margin = float(metadata.get("margin", CROP_MARGIN))  # crop as the training did
        except (KeyError, ValueError, SyntaxError) as error:
            raise ModelError(f"{path}: no readable 'names' and 'side' in the ONNX metadata ({error})") from error
        if names != TILE_CODES:
            raise ModelError(f"{path}: its {len(names)} classes are not the {len(TILE_CODES)} tile codes in order")
        self.input_name = self.session.get_inputs()[0].name
        self.path = path
        # Shares the detector's cap on simultaneous runs: both compete for the same cores.
        self._gate = gate or threading.Semaphore(1)

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, second_look: bool = True) -> np.ndarray:
        """(n, classes) softmax probabilities for the boxes.

        With ``second_look``, a crop read at less than ``LOOK_AGAIN_BELOW`` is cut twice more,
        tighter and looser by ``MARGIN_STEP``, and the three readings are averaged: a box that
        strays by a few pixels no longer decides a flower's glyph (models/README.md has the gain).
        """
        if len(xyxy) == 0:
            return np.zeros((0, len(TILE_CODES)), np.float32)
        probabilities = self._run(crop_tiles(image, xyxy, self.side, self.margin))
        unsure = np.flatnonzero(probabilities.max(axis=1) < LOOK_AGAIN_BELOW)
        if second_look and len(unsure):
            crops = [crop_tiles(image, xyxy[unsure], self.side, self.margin + step) for step in (-MARGIN_STEP, MARGIN_STEP)]
            tighter, looser = np.split(self._run(np.concatenate(crops)), 2)
            probabilities[unsure] = (probabilities[unsure] + tighter + looser) / 3
        return probabilities

    def _run(self, crops: np.ndarray) -> np.ndarray:
        with self._gate:
            logits = self.session.run(None, {self.input_name: to_blob(crops)})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)

    def refine(self, image: np.ndarray, detections: Detections, second_look: bool = True) -> Detections:
        """The same boxes, with the tiles the detector was unsure of read again from their crops.

        A detector reading at ``DETECTOR_SURE`` or above stands. Below it, the classifier's code
        replaces the detector's unless it finds the detector's reading at least half as likely
        (``OVERRULE_RATIO``); the most likely other code becomes the second reading. Measured on
        held-out boxes, this beats either reader alone (models/README.md).
        """
        unsure = np.flatnonzero(detections.confidence < DETECTOR_SURE)
        if len(unsure) == 0:
            return detections
        probs = self.probabilities(image, detections.xyxy[unsure], second_look)
        rows = np.arange(len(unsure))
        order = np.argsort(-probs, axis=1)
        best, runner_up = order[:, 0], order[:, 1]
        first = detections.class_id[unsure]
        overrule = probs[rows, best] >= OVERRULE_RATIO * probs[rows, first]
        chosen = np.where(overrule, best, first)
        alt = np.where(~overrule & (best != first), best, runner_up)
        classes, confidence = detections.class_id.copy(), detections.confidence.copy()
        classes[unsure] = chosen
        confidence[unsure] = np.where(overrule, probs[rows, best], confidence[unsure])
        alt_classes, alt_confidence = classes.copy(), np.zeros_like(confidence)  # no second reading (end2end models)
        if detections.alt_class_id is not None and detections.alt_confidence is not None:
            alt_classes, alt_confidence = detections.alt_class_id.copy(), detections.alt_confidence.copy()
        alt_classes[unsure], alt_confidence[unsure] = alt, probs[rows, alt]
        return Detections(detections.xyxy, confidence, classes, alt_classes, alt_confidence)
