"""``taicam eval``: score any ONNX tile detector on a YOLO-layout folder."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.layout import list_images, pixel_boxes, read_labels
from tqdm import tqdm

from scoring.tiles import TILE_CODES
from vision.defaults import DEFAULT_CONF
from vision.detections import Detections, box_iou
from vision.detector import TileDetector
from vision.photo import ROW_FLOOR, beside_sure_tiles, whole_photo_boxes, with_level_look, within_one_set

# mAP50 ranks the detector's own readings down to this score.
MAP_FLOOR = 0.01

IOU_MATCH = 0.5
# A missed label that a box no label took overlaps this much is reported as beside a box: Roboflow's
# turned copies of real-hk-v4 carry loose boxes that a tight box on the same tile misses (IoU 0.29–0.48).
BESIDE_A_BOX_IOU = 0.1


def match(truth: np.ndarray, predicted: Detections) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by IoU ≥ 0.5, highest confidence first, ignoring class."""
    ious = box_iou(predicted.xyxy, truth)
    pairs, used = [], set()
    for p in np.argsort(-predicted.confidence, kind="stable"):
        if ious.shape[1] == 0:
            break
        candidates = [(ious[p, t], t) for t in range(len(truth)) if t not in used and ious[p, t] >= IOU_MATCH]
        if candidates:
            _, t = max(candidates)
            used.add(t)
            pairs.append((int(p), int(t)))
    return pairs


def same_hand(found: dict, expected: dict) -> bool:
    """Whether hand fields (concealed, melds, flowers, winning tile) match the layout laid out."""

    def melds(fields: dict) -> list:
        return sorted((m["kind"], tuple(sorted(m["tiles"]))) for m in fields["melds"])

    return (
        Counter(found["concealed"]) == Counter(expected["concealed"])
        and found["winning_tile"] == expected["winning_tile"]
        and sorted(found["flowers"]) == sorted(expected["flowers"])
        and melds(found) == melds(expected)
    )


def in_frame(image: np.ndarray, width: int = 1280, height: int = 720) -> np.ndarray:
    """The picture shrunk into a ``width`` × ``height`` frame, as a camera beside the table would see it."""
    h, w = image.shape[:2]
    gain = min(width / w, height / h)
    small = cv2.resize(image, (round(w * gain), round(h * gain)), interpolation=cv2.INTER_AREA)
    return cv2.copyMakeBorder(small, 0, height - small.shape[0], 0, width - small.shape[1], cv2.BORDER_REPLICATE)


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the interpolated precision-recall curve (COCO-style 101 points)."""
    if len(recall) == 0:
        return 0.0
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.flip(np.maximum.accumulate(np.flip(p)))
    points = np.linspace(0, 1, 101)
    return float(np.mean(np.interp(points, r, p)))


@dataclass(frozen=True)
class PhotoErrors:
    """What one photo's reading got wrong against its labels: a person checks these photos first."""

    name: str
    missed: tuple[str, ...]  # labeled tiles no box found, by their label
    missed_beside_a_box: int  # of those, labels a box no label took overlaps: a loose or shifted label, often
    misread: tuple[tuple[str, str, float], ...]  # (label, reading, its confidence), surest first
    strays: int  # boxes on no labeled tile: a false box, or a tile the labels leave out

    @property
    def errors(self) -> int:
        return len(self.missed) + len(self.misread)

    def as_dict(self) -> dict:
        return {
            "photo": self.name,
            "missed": list(self.missed),
            "missed_beside_a_box": self.missed_beside_a_box,
            "misread": [{"truth": truth, "read": read, "confidence": round(conf, 3)} for truth, read, conf in self.misread],
            "strays": self.strays,
        }


@dataclass
class EvalReport:
    images: int = 0
    truth_tiles: int = 0
    predicted_tiles: int = 0
    matched: int = 0
    correct_class: int = 0
    exact_hands: int = 0
    per_class_truth: Counter = field(default_factory=Counter)
    per_class_found: Counter = field(default_factory=Counter)
    confusions: Counter = field(default_factory=Counter)
    map50: float = 0.0
    ms_per_image: float = 0.0
    photos: list[PhotoErrors] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / max(self.truth_tiles, 1)

    @property
    def precision(self) -> float:
        return self.matched / max(self.predicted_tiles, 1)

    @property
    def class_accuracy(self) -> float:
        return self.correct_class / max(self.matched, 1)

    @property
    def hand_exact(self) -> float:
        return self.exact_hands / max(self.images, 1)

    @property
    def flower_recall(self) -> float:
        flowers = [c for c, code in enumerate(TILE_CODES) if code.endswith("f")]
        truth = sum(self.per_class_truth[c] for c in flowers)
        return sum(self.per_class_found[c] for c in flowers) / max(truth, 1)

    def as_dict(self) -> dict:
        return {
            "images": self.images,
            "tiles": self.truth_tiles,
            "tile_recall": round(self.recall, 4),
            "tile_precision": round(self.precision, 4),
            "class_accuracy": round(self.class_accuracy, 4),
            "map50": round(self.map50, 4),
            "hand_exact_match": round(self.hand_exact, 4),
            "flower_recall": round(self.flower_recall, 4),
            "ms_per_image": round(self.ms_per_image, 1),
            "per_class_recall": {
                TILE_CODES[c]: round(self.per_class_found[c] / n, 3) for c, n in sorted(self.per_class_truth.items())
            },
            "top_confusions": [
                {"truth": TILE_CODES[t], "predicted": TILE_CODES[p], "count": n}
                for (t, p), n in self.confusions.most_common(10)
            ],
        }

    def worst_photos(self, count: int) -> list[PhotoErrors]:
        """The ``count`` photos with the most tiles missed or misread, most first (ties: most strays),
        leaving out photos read without an error."""
        wrong = [photo for photo in self.photos if photo.errors]
        return sorted(wrong, key=lambda photo: (-photo.errors, -photo.strays, photo.name))[:count]


def evaluate(
    detector: TileDetector, root: Path, split: str = "val", conf: float = DEFAULT_CONF, progress: bool = True
) -> EvalReport:
    images_dir = root / "images" / split
    if not images_dir.is_dir():
        images_dir = root / "images"  # a flat folder of images/ and labels/
        labels_dir = root / "labels"
    else:
        labels_dir = root / "labels" / split
    if not images_dir.is_dir():
        raise FileNotFoundError(f"{root}: expected images/{split}/ or images/ (YOLO layout)")
    report = EvalReport()
    # For mAP50 every prediction down to a low threshold is ranked per class.
    ranked: dict[int, list[tuple[float, bool]]] = {c: [] for c in range(len(TILE_CODES))}
    elapsed = 0.0
    floor = min(conf, MAP_FLOOR)

    def read(picture: np.ndarray) -> Detections:
        return _kept_and_read(detector, picture, whole_photo_boxes(detector, picture, floor), conf)

    for path in tqdm(list_images(images_dir), disable=not progress, desc="eval"):
        image = cv2.imread(str(path))
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        h, w = image.shape[:2]
        rows = read_labels(labels_dir / f"{path.stem}.txt")
        truth_cls = np.array([r[0] for r in rows], np.int64)
        truth = pixel_boxes(rows, w, h)
        start = time.perf_counter()
        low = whole_photo_boxes(detector, image, floor)
        as_read = with_level_look(detector, image, _kept_and_read(detector, image, low, conf), conf, read)
        predicted = within_one_set(as_read)
        elapsed += time.perf_counter() - start
        report.images += 1
        report.truth_tiles += len(rows)
        report.predicted_tiles += len(predicted)
        report.per_class_truth.update(truth_cls.tolist())
        pairs = match(truth, predicted)
        for p, t in pairs:
            report.matched += 1
            report.per_class_found[int(truth_cls[t])] += 1
            if predicted.class_id[p] == truth_cls[t]:
                report.correct_class += 1
            else:
                report.confusions[(int(truth_cls[t]), int(predicted.class_id[p]))] += 1
        report.photos.append(_photo_errors(path.name, truth, truth_cls, predicted, pairs))
        if Counter(predicted.class_id.tolist()) == Counter(truth_cls.tolist()):
            report.exact_hands += 1
        # mAP50 ranks the detector's own readings down to a low threshold (no crop classifier).
        for c in range(len(TILE_CODES)):
            mask_p, mask_t = low.class_id == c, truth_cls == c
            if not mask_p.any():
                continue
            sub = low[mask_p]
            hits = {p for p, _ in match(truth[mask_t], sub)}
            ranked[c].extend((float(sub.confidence[i]), i in hits) for i in range(len(sub)))
    aps = []
    for c, n_truth in report.per_class_truth.items():
        entries = sorted(ranked[c], key=lambda e: -e[0])
        found_so_far = np.cumsum([hit for _, hit in entries]) if entries else np.zeros(0)
        recall = found_so_far / n_truth
        precision = found_so_far / np.arange(1, len(entries) + 1) if entries else np.zeros(0)
        aps.append(average_precision(recall, precision))
    report.map50 = float(np.mean(aps)) if aps else 0.0
    report.ms_per_image = 1000 * elapsed / max(report.images, 1)
    return report


def _photo_errors(
    name: str,
    truth: np.ndarray,
    truth_cls: np.ndarray,
    predicted: Detections,
    pairs: list[tuple[int, int]],
) -> PhotoErrors:
    """One photo's missed tiles, its misread ones (surest first) and its boxes on no label."""
    misread = [
        (TILE_CODES[truth_cls[t]], TILE_CODES[predicted.class_id[p]], float(predicted.confidence[p]))
        for p, t in pairs
        if predicted.class_id[p] != truth_cls[t]
    ]
    found, taken = {t for _, t in pairs}, {p for p, _ in pairs}
    missed = [t for t in range(len(truth)) if t not in found]
    strays = [p for p in range(len(predicted)) if p not in taken]
    overlaps = box_iou(truth[missed], predicted.xyxy[strays]) if missed and strays else np.zeros((len(missed), 0))
    return PhotoErrors(
        name,
        tuple(TILE_CODES[truth_cls[t]] for t in missed),
        int((overlaps >= BESIDE_A_BOX_IOU).any(axis=1).sum()),
        tuple(sorted(misread, key=lambda reading: -reading[2])),
        len(strays),
    )


def _kept_and_read(detector: TileDetector, image: np.ndarray, low: Detections, conf: float) -> Detections:
    """As the pipeline keeps them: sure boxes, and unsure ones beside a sure tile of their size, read again."""
    return detector.reread(image, beside_sure_tiles(low[low.confidence >= min(conf, ROW_FLOOR)], conf))


COMPARED = ("tile_recall", "tile_precision", "class_accuracy", "map50", "hand_exact_match", "flower_recall", "ms_per_image")


def comparison_table(reports: list[tuple[str, EvalReport]]) -> list[str]:
    """One row per model on the same data, then the second minus the first, then per-class changes."""
    rows = [(name, report.as_dict()) for name, report in reports]
    name_width = max(len("difference"), *(len(name) for name, _ in rows))
    lines = [f"{'model':{name_width}s} " + " ".join(f"{key:>16s}" for key in COMPARED)]
    lines += [f"{name:{name_width}s} " + " ".join(f"{row[key]:>16}" for key in COMPARED) for name, row in rows]
    (_, first), (_, second) = rows[0], rows[-1]
    lines.append(f"{'difference':{name_width}s} " + " ".join(f"{second[key] - first[key]:>+16.4f}" for key in COMPARED))
    changes = {
        code: round(second["per_class_recall"].get(code, 0.0) - recall, 3)
        for code, recall in first["per_class_recall"].items()
        if second["per_class_recall"].get(code, 0.0) != recall
    }
    lines.append("per-class recall change: " + (" ".join(f"{code}={delta:+}" for code, delta in changes.items()) or "none"))
    return lines
