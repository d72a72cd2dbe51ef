"""INT8 models: onnxruntime static quantization (QDQ, per-channel weights) calibrated on real photos.

The detector's head stays in float. Its convolutions quantize well, but the rest of
``/model.23/`` (DFL, concat, sigmoid, reshape) mixes box distances in pixels with class
probabilities in one tensor; one INT8 scale for both reads nothing (recall 0 measured).
Its first convolution stays in float too, which is faster (``STEM``).
Calibrate on train photos only, never val: val is where the loss is measured.

    python -m models.quantize --data ../shared/datasets/real-hk-v4
        → models/taicam-tiles.int8.onnx and models/taicam-tile-classifier.int8.onnx

``taicam train`` runs the detector step after each export (models/train.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from .fast_head import DFL_SCOPE

MODELS_DIR = Path(__file__).resolve().parent
DETECTION_HEAD = "/model.23/"
DFL = DETECTION_HEAD.rstrip("/") + DFL_SCOPE  # /model.23/dfl/
# The first convolution reads the 3 colour channels at full resolution: INT8 has little to gain on 3
# input channels and its input must be quantized first, so in float it ran faster (models/README.md).
STEM = "/model.0/"
CALIBRATION_PHOTOS = 64  # the measured recipe; more changed no figure in the third decimal
CLASSIFIER_CALIBRATION_CROPS = 512
CALIBRATION_PERCENTILE = 99.9999
CROP_BATCH = 32
# 7-bit weights for the classifier. On a CPU without VNNI (AVX2 only, as the AMD EPYC of 2026-12-02)
# onnxruntime's INT8 kernels add pairs of products in 16 bits, which saturate: the classifier's INT8
# copy then read 0.35 of real val tiles right (float 0.965); with 7-bit weights 0.965, as float. The
# detector's INT8 copy reads as its float model there with 8 bits (models/README.md).
CLASSIFIER_REDUCE_RANGE = True


def int8_path(float_path: Path) -> Path:
    """``taicam-tiles.onnx`` → ``taicam-tiles.int8.onnx``."""
    return float_path.with_name(f"{float_path.stem}.int8{float_path.suffix}")


def calibration_photos(dataset: Path, count: int = CALIBRATION_PHOTOS) -> list[Path]:
    """``count`` train photos spread evenly over the sorted list (sessions differ along it)."""
    from taicam_datasets.layout import list_images

    photos = list_images(dataset / "images" / "train")
    if not photos:
        raise FileNotFoundError(f"{dataset} has no images/train photos to calibrate on")
    step = max(1, len(photos) // count)
    return photos[::step][:count]


def float_nodes(model_path: Path) -> list[str]:
    """The nodes that stay in float: the stem, and the detection head but for its convolution branches.

    The DFL's own nodes (its 1 × 1 convolution, or the MatMul ``models.fast_head`` puts in its place)
    stay float with the rest of the DFL: they turn 16 bin probabilities into a box side in pixels,
    where one INT8 step is a visible shift.
    """
    import onnx

    graph = onnx.load(str(model_path)).graph
    return [
        node.name
        for node in graph.node
        if node.name.startswith(STEM)
        or (node.name.startswith(DETECTION_HEAD) and (node.op_type != "Conv" or node.name.startswith(DFL)))
    ]


def _quantize(source: Path, target: Path, reader, exclude: list[str], reduce_range: bool = False) -> Path:
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    quantize_static(
        str(source),
        str(target),
        reader,
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        # The range holding 99.9999 % of each activation's values, not MinMax's whole range: a few
        # extreme values no longer set the scale. 99.999 % clipped what rendered tables need
        # (models/README.md has both, and MinMax).
        calibrate_method=CalibrationMethod.Percentile,
        extra_options={"CalibPercentile": CALIBRATION_PERCENTILE},
        nodes_to_exclude=exclude,
        reduce_range=reduce_range,
    )
    # The metadata (class names, stride, crop side) is what the runtime reads the model by.
    quantized = onnx.load(str(target))
    original = {p.key: p.value for p in onnx.load(str(source)).metadata_props}
    present = {p.key for p in quantized.metadata_props}
    for key, value in original.items():
        if key not in present:
            quantized.metadata_props.add(key=key, value=value)
    onnx.save(quantized, str(target))
    return target


class _Feed:
    """onnxruntime's CalibrationDataReader protocol over a generator of input dicts."""

    def __init__(self, feeds: Iterator[dict[str, np.ndarray]]):
        self._feeds = feeds

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._feeds, None)


def quantize_detector(source: Path, dataset: Path, target: Path | None = None) -> Path:
    """INT8 copy of the detector at ``target`` (default ``<name>.int8.onnx``), checked to load."""
    from vision.detector import TileDetector, letterbox
    from vision.frames import read_image

    target = target or int8_path(source)
    detector = TileDetector(source, classifier_path=None)

    def feeds() -> Iterator[dict[str, np.ndarray]]:
        for path in calibration_photos(dataset):
            image = read_image(path)
            # Square, as the model's own size: the percentile calibrator stacks every run's
            # outputs, so they must share one shape (a dynamic export's rectangles would not).
            boxed, _, _ = letterbox(image, detector.info.imgsz)
            yield {detector.input_name: cv2.dnn.blobFromImage(boxed, 1 / 255.0, swapRB=True)}

    _quantize(source, target, _Feed(feeds()), float_nodes(source))
    TileDetector(target, classifier_path=None)  # raises if onnxruntime cannot load it or the classes differ
    return target


def quantize_classifier(source: Path, dataset: Path, target: Path | None = None) -> Path:
    """INT8 copy of the crop classifier, calibrated on crops of labelled train tiles."""
    from taicam_datasets.layout import pixel_boxes, read_labels

    from vision.classifier import TileClassifier, crop_tiles, to_blob
    from vision.frames import read_image

    target = target or int8_path(source)
    classifier = TileClassifier(source)

    def feeds() -> Iterator[dict[str, np.ndarray]]:
        crops: list[np.ndarray] = []
        for path in calibration_photos(dataset):
            image = read_image(path)
            h, w = image.shape[:2]
            rows = read_labels(dataset / "labels" / "train" / f"{path.stem}.txt")
            if rows:
                crops.extend(crop_tiles(image, pixel_boxes(rows, w, h), classifier.side, classifier.margin))
        # Batches of one size: the percentile calibrator stacks them.
        for start in range(0, min(len(crops), CLASSIFIER_CALIBRATION_CROPS) - CROP_BATCH + 1, CROP_BATCH):
            yield {classifier.input_name: to_blob(np.stack(crops[start : start + CROP_BATCH]))}

    _quantize(source, target, _Feed(feeds()), [], reduce_range=CLASSIFIER_REDUCE_RANGE)
    TileClassifier(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="YOLO-layout folder; its images/train calibrate")
    parser.add_argument("--detector", type=Path, default=MODELS_DIR / "taicam-tiles.onnx")
    parser.add_argument("--classifier", type=Path, default=MODELS_DIR / "taicam-tile-classifier.onnx")
    parser.add_argument("--skip-classifier", action="store_true")
    args = parser.parse_args()
    print(quantize_detector(args.detector, args.data))
    if not args.skip_classifier:
        print(quantize_classifier(args.classifier, args.data))


if __name__ == "__main__":
    main()
