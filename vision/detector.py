"""Tile detector on onnxruntime: letterbox as ultralytics exports declare, decode by metadata."""

from __future__ import annotations

import ast
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import TILE_CODES

from .classifier import BIRD, BUNDLED_CLASSIFIER, BUNDLED_FLOWER_READER, FlowerReader, TileClassifier, keep_the_bird
from .defaults import DEFAULT_CONF, DEFAULT_IOU
from .detections import (
    FLOWER_CLASSES,
    OTHER_READINGS,
    SECOND_READING_COVERED,
    Detections,
    non_max_suppression,
    suppress_contained,
)
from .onnx_session import PAD_VALUE, ModelError, open_session

# The float model. INT8 beside it (models/quantize.py, ``--model models/taicam-tiles.int8.onnx``) runs
# in 0.71–0.72 × the time (`bench detector`, on two CPUs), but reads 54 of 120 real-tile scenes
# exactly against 57: not the default while that is more than half a point (models/README.md).
BUNDLED_MODEL = Path(__file__).resolve().parent.parent / "models" / "taicam-tiles.onnx"


@dataclass(frozen=True)
class ModelInfo:
    """What the exporter wrote into the ONNX metadata, parsed and checked."""

    names: tuple[str, ...]
    imgsz: tuple[int, int]
    stride: int
    end2end: bool

    @classmethod
    def from_metadata(cls, metadata: dict[str, str], source: str = "model") -> ModelInfo:
        """Parse ultralytics' metadata strings (Python literals) and check the class list."""
        try:
            raw_names = ast.literal_eval(metadata["names"])
        except (KeyError, ValueError, SyntaxError) as error:
            raise ModelError(f"{source}: no readable 'names' in the ONNX metadata ({error})") from error
        names = tuple(raw_names[i] for i in sorted(raw_names)) if isinstance(raw_names, dict) else tuple(raw_names)
        if names != TILE_CODES:
            differ = [f"{i}: {a!r}≠{b!r}" for i, (a, b) in enumerate(zip(names, TILE_CODES, strict=False)) if a != b]
            raise ModelError(
                f"{source}: its {len(names)} classes do not match the {len(TILE_CODES)} tile codes "
                f"in order (first differences: {', '.join(differ[:5]) or 'count only'})"
            )
        imgsz = ast.literal_eval(metadata.get("imgsz", "[640, 640]"))
        if isinstance(imgsz, int):
            imgsz = [imgsz, imgsz]
        end2end = str(metadata.get("end2end", "False")).strip() == "True"
        return cls(names, (int(imgsz[0]), int(imgsz[1])), int(metadata.get("stride", "32")), end2end)


def letterbox(
    image: np.ndarray, size: tuple[int, int], stride: int | None = None
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect, pad with ``PAD_VALUE`` to ``size`` (h, w); returns image, gain and padding.

    With ``stride`` (models exported with a dynamic shape) the padding stops at the next
    multiple of the stride, as ultralytics' own rectangular inference does: a 16:9 frame
    then costs 640×384 instead of 640×640.
    """
    h, w = image.shape[:2]
    gain = min(size[0] / h, size[1] / w)
    new_w, new_h = round(w * gain), round(h * gain)
    if stride:
        size = (-(-new_h // stride) * stride, -(-new_w // stride) * stride)
    pad_x, pad_y = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    if (new_w, new_h) != (w, h):
        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if gain < 1 else cv2.INTER_LINEAR)
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    bottom, right = size[0] - new_h - top, size[1] - new_w - left
    image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    return image, gain, (left, top)


# A tile lying among the flowers is a flower more likely than the tile it was read as: its old
# reading stays one of its others at this share of its confidence, so the whole-hand repair tries
# going back to it only after changes that cost less (never as a free extra to another change).
FLOWER_ROW_ODDS = 0.5
# A tile read as a flower inside a run of other tiles is most likely one of them: its flower reading
# stays one of its others at this share of its new confidence, for the whole-hand repair to try last.
FLOWER_IN_A_RUN_ODDS = 0.1


class TileDetector:
    """One ONNX session; ``detect(bgr_image)`` returns boxes in the image's own pixels.

    With a crop classifier (the bundled one unless ``classifier_path`` is None), ``reread``
    gives each box the code read from its full-resolution crop, and the flower reader (the
    bundled one unless ``flower_reader_path`` is None) names each flower among the eight.
    """

    # The model reads what the pixels show, so a photo mirrored left to right shows it the same tiles
    # mirrored: a second look at a small photo (``vision.photo.looked_both_ways``).
    mirrored_look = True

    def __init__(
        self,
        model_path: Path | str = BUNDLED_MODEL,
        threads: int | None = None,
        max_concurrent: int | None = None,
        classifier_path: Path | str | None = BUNDLED_CLASSIFIER,
        flower_reader_path: Path | str | None = BUNDLED_FLOWER_READER,
    ):
        path = Path(model_path)
        # No spinning: idle onnxruntime threads that spin take the cores from OpenCV's warp and
        # the frame reader; measured in one process, 0.64–0.99 × the spinning session's time.
        self.session = open_session(path, threads, spinning=False)
        self.info = ModelInfo.from_metadata(self.session.get_modelmeta().custom_metadata_map, str(path))
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        # A dynamic export (height and width named, not fixed) takes any stride-multiple shape.
        self.stride = None if all(isinstance(d, int) for d in model_input.shape[2:]) else self.info.stride
        self.path = path
        # More simultaneous runs than cores only add memory (one arena each) and contention.
        self._gate = threading.Semaphore(max_concurrent or os.cpu_count() or 1)
        self.classifier = TileClassifier(classifier_path, self._gate) if classifier_path is not None else None
        # The flower reader belongs to the crops' second look: without the classifier, neither runs.
        self.flower_reader = (
            FlowerReader(flower_reader_path, self._gate)
            if classifier_path is not None and flower_reader_path is not None
            else None
        )

    def reread(self, image: np.ndarray, detections: Detections, second_look: bool = True) -> Detections:
        """Codes from the crop classifier and the flower reader when there are; the detector's own otherwise."""
        if self.classifier is not None:
            detections = self.classifier.refine(image, detections, second_look)
        if self.flower_reader is not None:
            detections = self.flower_reader.refine(image, detections, second_look)
        return detections

    def read_as_flowers(
        self, image: np.ndarray, detections: Detections, ids: list[int], second_look: bool = True
    ) -> Detections:
        """``detections`` with the tiles ``ids`` read as flowers, the flower reader naming each; the
        reading each had becomes one of its others, at ``FLOWER_ROW_ODDS`` of its confidence.
        Unchanged without a reader. The crops are cut from ``image`` as the boxes lie: a row tilted
        in the photo gives slanted crops, which the reader's four turns only partly make up for."""
        if self.flower_reader is None or not ids:
            return detections
        chosen = np.asarray(ids)
        subset = detections[chosen]
        others, scores = subset.padded_others(OTHER_READINGS)
        placeholder = np.full(len(chosen), FLOWER_CLASSES[0])  # any flower: the reader names it
        as_flowers = Detections(
            subset.xyxy, subset.confidence, placeholder,
            np.concatenate([subset.class_id[:, None], others], axis=1)[:, :OTHER_READINGS],
            np.concatenate([FLOWER_ROW_ODDS * subset.confidence[:, None], scores], axis=1)[:, :OTHER_READINGS],
        )  # fmt: skip
        named = self.flower_reader.refine(image, as_flowers, second_look)
        assert named.other_class_ids is not None and named.other_confidences is not None
        classes = detections.class_id.copy()
        classes[chosen] = named.class_id
        all_others, all_scores = detections.padded_others(OTHER_READINGS)
        all_others[chosen], all_scores[chosen] = named.other_class_ids, named.other_confidences
        return Detections(detections.xyxy, detections.confidence, classes, all_others, all_scores)

    def read_as_tiles(self, image: np.ndarray, detections: Detections, ids: list[int], second_look: bool = True) -> Detections:
        """``detections`` with the tiles ``ids`` read as no flower: the crop classifier's likeliest code
        that is not a flower, at its probability. Its other readings are the classifier's next codes and
        those the tile had that are no flower (the detector's own reading among them, where the classifier
        had overruled it), each at the higher of its two scores, with the 1s bird kept among them as
        ``TileClassifier.refine`` keeps it, and the flower reading it had at ``FLOWER_IN_A_RUN_ODDS`` of
        its new confidence. Unchanged without a classifier.

        The readings the tile had do not choose its code: on real-tile scenes (``bench.real_scenes``)
        they pick the truth less often than the classifier's fresh look at the crop without its flowers,
        but the whole-hand repair finds it among them when that look makes no legal hand."""
        if self.classifier is None or not ids:
            return detections
        chosen = np.asarray(ids)
        probabilities = self.classifier.probabilities(image, detections.xyxy[chosen], second_look)
        probabilities[:, FLOWER_CLASSES] = 0.0
        best = probabilities.argmax(axis=1)
        rows = np.arange(len(chosen))
        confidence = probabilities[rows, best]
        bird = probabilities[:, BIRD].copy()
        had, had_scores = detections[chosen].padded_others(OTHER_READINGS)
        for row in rows:
            np.maximum.at(probabilities[row], had[row], had_scores[row])
        probabilities[:, FLOWER_CLASSES] = 0.0  # the other flowers it had: the classifier's cut away above
        probabilities[rows, best] = -1.0  # the reading is no other reading of itself
        others = np.argsort(-probabilities, axis=1, kind="stable")[:, :OTHER_READINGS]
        scores = np.take_along_axis(probabilities, others, axis=1)
        others, scores = keep_the_bird(confidence, best, others, scores, bird)
        candidates = np.concatenate([others, detections.class_id[chosen, None]], axis=1)
        candidate_scores = np.concatenate([scores, FLOWER_IN_A_RUN_ODDS * confidence[:, None]], axis=1)
        likeliest = np.argsort(-candidate_scores, axis=1, kind="stable")[:, :OTHER_READINGS]
        classes, all_confidence = detections.class_id.copy(), detections.confidence.copy()
        classes[chosen], all_confidence[chosen] = best, confidence
        all_others, all_scores = detections.padded_others(OTHER_READINGS)
        all_others[chosen] = np.take_along_axis(candidates, likeliest, axis=1)
        all_scores[chosen] = np.take_along_axis(candidate_scores, likeliest, axis=1)
        return replace(
            detections, confidence=all_confidence, class_id=classes, other_class_ids=all_others, other_confidences=all_scores
        )

    def detect(
        self,
        image: np.ndarray,
        conf: float = DEFAULT_CONF,
        iou: float = DEFAULT_IOU,
        side: int | None = None,
        covered: float = SECOND_READING_COVERED,
    ) -> Detections:
        """Tiles in ``image``. ``side`` sets the model input's long side (dynamic exports only); a box a
        surer one covers ``covered`` of is dropped as a second reading (``suppress_contained``)."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"expected a BGR image of shape (h, w, 3), got {image.shape}")
        size = (side, side) if side and self.stride else self.info.imgsz
        boxed, gain, (pad_x, pad_y) = letterbox(image, size, self.stride)
        blob = cv2.dnn.blobFromImage(boxed, 1 / 255.0, swapRB=True)  # BGR→RGB, HWC→NCHW, /255
        with self._gate:
            output = self.session.run(None, {self.input_name: blob})[0][0]
        other_classes = other_scores = None
        if self.info.end2end:
            boxes, scores, classes = output[:, :4], output[:, 4], output[:, 5].astype(np.int64)
            keep = scores >= conf
            boxes, scores, classes = boxes[keep], scores[keep], classes[keep]
        else:
            boxes, scores, classes, other_classes, other_scores = _decode_raw(output, conf, iou)
        boxes = boxes.astype(np.float32)
        boxes[:, [0, 2]] = (boxes[:, [0, 2]] - pad_x) / gain
        boxes[:, [1, 3]] = (boxes[:, [1, 3]] - pad_y) / gain
        h, w = image.shape[:2]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        order = np.argsort(-scores, kind="stable")
        has_others = other_classes is not None and other_scores is not None
        others = (other_classes[order], other_scores[order].astype(np.float32)) if has_others else (None, None)  # type: ignore[index]
        return suppress_contained(Detections(boxes[order], scores[order].astype(np.float32), classes[order], *others), covered)


def _decode_raw(output: np.ndarray, conf: float, iou: float) -> tuple[np.ndarray, ...]:
    """(4 + nc, anchors) → boxes, scores, classes, the other readings' classes and scores, after NMS.

    Class-agnostic because one tile is one box: two codes on the same tile are a confusion,
    and the higher-scoring one should win; the others are kept as other readings, the
    ``OTHER_READINGS`` likeliest.
    """
    predictions = output.T
    class_scores = predictions[:, 4:]
    classes = class_scores.argmax(axis=1)
    scores = class_scores[np.arange(len(classes)), classes]
    keep = scores >= conf
    predictions, scores, classes, class_scores = predictions[keep], scores[keep], classes[keep], class_scores[keep]
    cx, cy, bw, bh = predictions[:, 0], predictions[:, 1], predictions[:, 2], predictions[:, 3]
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
    if len(boxes) == 0:
        empty = np.zeros((0, OTHER_READINGS), np.int64)
        return boxes.reshape(0, 4), scores, classes.astype(np.int64), empty, np.zeros((0, OTHER_READINGS), np.float32)
    kept = non_max_suppression(np.stack([boxes[:, 0], boxes[:, 1], bw, bh], axis=1), scores, iou, min_score=conf)
    others = np.argsort(-class_scores[kept], axis=1)[:, 1 : 1 + OTHER_READINGS]
    other_scores = np.take_along_axis(class_scores[kept], others, axis=1)
    return boxes[kept], scores[kept], classes[kept].astype(np.int64), others.astype(np.int64), other_scores
