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

from scoring.tiles import FLOWERS, TILE_CODES

from .detections import FLOWER_CLASSES, OTHER_READINGS, SEARCHED_READINGS, Detections
from .onnx_session import PAD_VALUE, ModelError, open_session
from .pips import BUNDLED_PIP_COUNTS, PipCounts

BUNDLED_CLASSIFIER = Path(__file__).resolve().parent.parent / "models" / "taicam-tile-classifier.onnx"  # INT8 beside it
BUNDLED_FLOWER_READER = BUNDLED_CLASSIFIER.with_name("taicam-flower-reader.onnx")
CROP_MARGIN = 0.08  # of the box size on each side: detector boxes are a little loose or tight
# Detector readings this confident stand; only the others are read again. The detector fine-tuned
# on real tiles is sure of more of them, wrongly too: at 0.85 real-tile scenes (bench/real_scenes.py)
# read 18 and 16 of 60 exactly, at 0.95 20 and 17, with real val and renders as good or better
# (models/README.md); asking the classifier about every tile read 21 and 17 for more crops a frame.
DETECTOR_SURE = 0.95
# The classifier overrules the detector when it finds its own pick at least this many times as
# likely as the detector's reading; otherwise the detector's reading stands.
OVERRULE_RATIO = 2.0
LOOK_AGAIN_BELOW = 0.9  # a crop read less surely than this is read again: turned, and cut tighter and looser
MARGIN_STEP = 0.05  # of the box size per side, for those two extra cuts
# A crop read six ways at under this is read mirrored too. Real-tile scenes (seeds 0–599) read 374
# hands exactly without the mirrored look, 382 with it from 0.6 and 383 from 0.9, which runs 22
# crops a scene more than 0.6 does (models/README.md, fifteenth round).
MIRROR_BELOW = 0.6
# A flower crop read at its four quarter turns at under this is read eight ways more, cut tighter and
# looser, and then mirrored if still unsure. Real-tile scenes (1,080 seeds) read 675 hands exactly at
# four turns alone, 688 from 0.6, and 687 from 0.9 or with every crop read twelve ways, which takes
# 3.8 times the four turns' time, against 2.7 times from 0.6 (models/README.md, eighteenth round).
FLOWER_CUTS_BELOW = 0.6
QUARTER_TURNS = (1, 2, 3)  # the classifier trained on crops at every quarter turn: each turn is another view
# Every maker draws its own 1s bird, so a face the classifier cannot place is most often the bird: in
# real-tile scenes a 1s read as 6z, 4m or 9s at 0.14–0.32 had the bird outside its other readings. A
# tile read at under BIRD_UNSURE keeps the bird among them at BIRD_FLOOR or more, for the whole-hand
# repair to try. Real-tile scenes (bench/real_scenes.py, seeds 0–59 / 1000–1059) read 36 / 32 hands
# exactly without it, 38 / 34 with it; a floor of 0.2 lost a hand that 0.05 keeps (models/README.md).
BIRD = TILE_CODES.index("1s")
BIRD_UNSURE = 0.35
BIRD_FLOOR = 0.05


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


def _at_four_turns(crops: np.ndarray) -> list[np.ndarray]:
    """The crops, then at their three other quarter turns."""
    return [crops, *(np.rot90(crops, turns, axes=(1, 2)) for turns in QUARTER_TURNS)]


class _CropReader:
    """An ONNX network that reads tile crops; its metadata names the ``codes`` it reads and its crop side."""

    codes: tuple[str, ...] = TILE_CODES
    role = "crop classifier"

    def __init__(self, model_path: Path | str, gate: threading.Semaphore | None = None):
        path = Path(model_path)
        self.session = open_session(path, spinning=False)
        metadata = self.session.get_modelmeta().custom_metadata_map
        try:
            names = tuple(ast.literal_eval(metadata["names"]))
            self.side = int(metadata["side"])
            self.margin = float(metadata.get("margin", CROP_MARGIN))  # crop as the training did
        except (KeyError, ValueError, SyntaxError) as error:
            raise ModelError(f"{path}: no readable 'names' and 'side' in the ONNX metadata ({error})") from error
        if names != self.codes:
            raise ModelError(f"{path}: its {len(names)} classes are not the {self.role}'s {len(self.codes)} codes in order")
        self.input_name = self.session.get_inputs()[0].name
        self.path = path
        # Shares the detector's cap on simultaneous runs: both compete for the same cores.
        self._gate = gate or threading.Semaphore(1)

    def _run(self, crops: np.ndarray) -> np.ndarray:
        with self._gate:
            logits = self.session.run(None, {self.input_name: to_blob(crops)})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)

    def _mean_reading(self, views: list[np.ndarray]) -> np.ndarray:
        """(n, codes): the mean of the readings of ``views`` (each n crops), run as one batch."""
        return self._run(np.concatenate(views)).reshape(len(views), len(views[0]), -1).mean(axis=0)

    def _other_cuts(self, image: np.ndarray, xyxy: np.ndarray) -> list[np.ndarray]:
        """The boxes cut tighter and looser than trained, by ``MARGIN_STEP``."""
        return [crop_tiles(image, xyxy, self.side, self.margin + step) for step in (-MARGIN_STEP, MARGIN_STEP)]

    def _surer_mirrored(self, probabilities: np.ndarray, views: list[np.ndarray]) -> np.ndarray:
        """``probabilities`` of ``views``, with each crop still read at under ``MIRROR_BELOW`` read
        the same ways mirrored, where that reading is surer.

        Some real photos are mirror images (a front camera's; real-hk-v4's flipped copies, whose
        crops the real-tile scenes lay out).
        """
        unsure = np.flatnonzero(probabilities.max(axis=1) < MIRROR_BELOW)
        if len(unsure):
            mirrored = self._mean_reading([view[unsure][:, :, ::-1] for view in views])
            surer = mirrored.max(axis=1) > probabilities[unsure].max(axis=1)
            probabilities[unsure[surer]] = mirrored[surer]
        return probabilities


class TileClassifier(_CropReader):
    """ONNX crop classifier; ``refine(image, detections)`` re-reads the boxes the detector was unsure of.

    In its careful read (``second_look``), its reading of a crop that shows 2–6 circles laid out as
    a tile's are is weighed by how often each code shows that count (``vision.pips``;
    ``pip_counts_path`` None leaves it out).
    """

    def __init__(
        self,
        model_path: Path | str = BUNDLED_CLASSIFIER,
        gate: threading.Semaphore | None = None,
        pip_counts_path: Path | str | None = BUNDLED_PIP_COUNTS,
    ):
        super().__init__(model_path, gate)
        self.pip_counts = PipCounts.load(pip_counts_path) if pip_counts_path is not None else None

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, second_look: bool = True) -> np.ndarray:
        """(n, classes) softmax probabilities for the boxes.

        With ``second_look``, a crop read at less than ``LOOK_AGAIN_BELOW`` is read again at its
        other three quarter turns, and cut twice more, tighter and looser by ``MARGIN_STEP``; the
        six readings are averaged. A box that strays by a few pixels no longer decides a flower's
        glyph, and one view's mistake is outvoted (models/README.md has the gain of each). A crop
        still read at under ``MIRROR_BELOW`` is read the same six ways mirrored, and the surer
        reading stands. Then, with ``second_look``, the circles each crop shows, counted, weigh its
        reading (``vision.pips``).
        """
        if len(xyxy) == 0:
            return np.zeros((0, len(self.codes)), np.float32)
        crops = crop_tiles(image, xyxy, self.side, self.margin)
        probabilities = self._run(crops)
        unsure = np.flatnonzero(probabilities.max(axis=1) < LOOK_AGAIN_BELOW)
        if second_look and len(unsure):
            views = self._six_views(image, xyxy[unsure], crops[unsure])
            readings = self._run(np.concatenate(views[1:])).reshape(len(views) - 1, len(unsure), -1)
            probabilities[unsure] = self._surer_mirrored((probabilities[unsure] + readings.sum(axis=0)) / len(views), views)
        # Counting is part of the careful read: live video's quick one-look reads of every frame skip it
        # (15 % fewer whole-table frames a second with it); the frame a table settles on is read in full.
        if not second_look or self.pip_counts is None:
            return probabilities
        return self.pip_counts.weigh(probabilities, image, xyxy)

    def _six_views(self, image: np.ndarray, xyxy: np.ndarray, crops: np.ndarray) -> list[np.ndarray]:
        """The boxes' ``crops``, then at their three other quarter turns, then cut tighter and looser."""
        return [*_at_four_turns(crops), *self._other_cuts(image, xyxy)]

    def read(self, image: np.ndarray, xyxy: np.ndarray, second_look: bool = True) -> Detections:
        """The boxes as the classifier alone reads them: its likeliest code, then its next ``OTHER_READINGS``."""
        probabilities = self.probabilities(image, xyxy, second_look)
        order = np.argsort(-probabilities, axis=1)[:, : OTHER_READINGS + 1]
        readings = np.take_along_axis(probabilities, order, axis=1)
        return Detections(np.asarray(xyxy, np.float32), readings[:, 0], order[:, 0], order[:, 1:], readings[:, 1:])

    def refine(self, image: np.ndarray, detections: Detections, second_look: bool = True) -> Detections:
        """The same boxes, with the tiles the detector was unsure of read again from their crops.

        A detector reading at ``DETECTOR_SURE`` or above stands. Below it, the classifier's code
        replaces the detector's unless it finds the detector's reading at least half as likely
        (``OVERRULE_RATIO``); the classifier's likeliest other codes become the other readings.
        Measured on held-out boxes, this beats either reader alone (models/README.md).
        """
        unsure = np.flatnonzero(detections.confidence < DETECTOR_SURE)
        if len(unsure) == 0:
            return detections
        probs = self.probabilities(image, detections.xyxy[unsure], second_look)
        rows = np.arange(len(unsure))
        order = np.argsort(-probs, axis=1)
        best = order[:, 0]
        first = detections.class_id[unsure]
        overrule = probs[rows, best] >= OVERRULE_RATIO * probs[rows, first]
        chosen = np.where(overrule, best, first)
        # Every code but the chosen one, likeliest first: the detector's reading when it stands over
        # the classifier's pick, the classifier's runner-up otherwise.
        others = order[order != chosen[:, None]].reshape(len(unsure), -1)[:, :OTHER_READINGS]
        classes, confidence = detections.class_id.copy(), detections.confidence.copy()
        classes[unsure] = chosen
        confidence[unsure] = np.where(overrule, probs[rows, best], confidence[unsure])
        scores = np.take_along_axis(probs, others, axis=1)
        others, scores = keep_the_bird(confidence[unsure], chosen, others, scores, probs[:, BIRD])
        other_classes, other_confidences = detections.padded_others(OTHER_READINGS)  # none from end2end models
        other_classes[unsure], other_confidences[unsure] = others, scores
        return Detections(detections.xyxy, confidence, classes, other_classes, other_confidences)


def keep_the_bird(
    confidence: np.ndarray, chosen: np.ndarray, others: np.ndarray, scores: np.ndarray, bird: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Other readings with the 1s bird among the ``SEARCHED_READINGS`` of a tile read at under ``BIRD_UNSURE``.

    ``bird`` is the classifier's probability of the bird for each tile; the bird scores that, or
    ``BIRD_FLOOR`` if more, in the last searched place, so that the repair tries it; the readings it
    moves on follow it, scored no higher than it, so that every list stays likeliest first.
    """
    searched = min(SEARCHED_READINGS, others.shape[1])
    lacking = (confidence < BIRD_UNSURE) & (chosen != BIRD) & ~(others[:, :searched] == BIRD).any(axis=1)
    others, scores = others.copy(), scores.copy()
    for row in np.flatnonzero(lacking):
        rest = [(score, code) for code, score in zip(others[row], scores[row], strict=True) if code != BIRD]
        head = sorted([*rest[: searched - 1], (max(float(bird[row]), BIRD_FLOOR), BIRD)], reverse=True)
        last = head[-1][0]
        readings = [*head, *((min(score, last), code) for score, code in rest[searched - 1 :])][: others.shape[1]]
        others[row] = [code for _, code in readings]
        scores[row] = [score for score, _ in readings]
    return others, scores


class FlowerReader(_CropReader):
    """Which flower a tile is: the eight flowers' own network, reading finer crops than the classifier.

    Flowers differ only in a numeral and a character a sixth of the face wide; on held-out real
    flower crops the 43-code classifier (at 48 px) read 0.86 (real photos) and 0.79 (real-tile
    scenes) right, the shipped 96-px reader 0.91 and 0.84, and it reads more real-tile hands
    exactly than the 64-px one (models/README.md).
    """

    codes = FLOWERS
    role = "flower reader"

    def __init__(self, model_path: Path | str = BUNDLED_FLOWER_READER, gate: threading.Semaphore | None = None):
        super().__init__(model_path, gate)

    def probabilities(self, image: np.ndarray, xyxy: np.ndarray, second_look: bool = True) -> np.ndarray:
        """(n, 8) probabilities of the eight flowers for the boxes.

        With ``second_look`` every crop is read at its four quarter turns and the readings averaged.
        A crop read at under ``FLOWER_CUTS_BELOW`` is also read at its four turns cut tighter and
        looser by ``MARGIN_STEP``, and the twelve readings averaged; one still read at under
        ``MIRROR_BELOW`` is read the same twelve ways mirrored, and the surer reading stands. The
        numeral and character that tell flowers apart lie near the face's edge, where a box a few
        pixels off cuts them (real-tile scenes: models/README.md, eighteenth round).
        """
        if len(xyxy) == 0:
            return np.zeros((0, len(self.codes)), np.float32)
        crops = crop_tiles(image, xyxy, self.side, self.margin)
        if not second_look:
            return self._run(crops)
        probabilities = self._mean_reading(_at_four_turns(crops))
        unsure = np.flatnonzero(probabilities.max(axis=1) < FLOWER_CUTS_BELOW)
        if len(unsure):
            other_cuts = [view for cut in self._other_cuts(image, xyxy[unsure]) for view in _at_four_turns(cut)]
            twelve = (probabilities[unsure] + 2 * self._mean_reading(other_cuts)) / 3
            probabilities[unsure] = self._surer_mirrored(twelve, [*_at_four_turns(crops[unsure]), *other_cuts])
        return probabilities

    def refine(self, image: np.ndarray, detections: Detections, second_look: bool = True) -> Detections:
        """The same boxes, with every tile read as a flower given the flower this reader finds likeliest.

        ``second_look`` reads each crop four ways and the unsure ones twelve, or each once (live
        video, whose frames vote): see ``probabilities``. The tile's confidence (that it is a flower
        at all) stays. Its other readings become the reader's other flowers, each at the confidence
        the reader's odds against its pick give it, and those earlier readings that say it is no
        flower at all: the likeliest ``OTHER_READINGS`` of both, so a flower seen twice in one hand
        can still be repaired.
        """
        flowers = np.flatnonzero(np.isin(detections.class_id, FLOWER_CLASSES))
        if len(flowers) == 0:
            return detections
        probabilities = self.probabilities(image, detections.xyxy[flowers], second_look)
        order = np.argsort(-probabilities, axis=1)
        rows = np.arange(len(flowers))
        best = order[:, 0]
        classes, confidence = detections.class_id.copy(), detections.confidence.copy()
        classes[flowers] = FLOWER_CLASSES[best]
        other_classes, other_confidences = detections.padded_others(OTHER_READINGS)
        # The best of eight probabilities is at least 1/8: the odds are finite.
        odds = np.take_along_axis(probabilities, order[:, 1:], axis=1) / probabilities[rows, best, None]
        no_flower = ~np.isin(other_classes[flowers], FLOWER_CLASSES)
        candidates = np.concatenate([FLOWER_CLASSES[order[:, 1:]], other_classes[flowers]], axis=1)
        # Earlier flower readings are the reader's to give: -1 sorts them after its seven other flowers.
        scores = np.concatenate(
            [confidence[flowers, None] * odds, np.where(no_flower, other_confidences[flowers], -1.0)], axis=1
        )
        likeliest = np.argsort(-scores, axis=1, kind="stable")[:, :OTHER_READINGS]
        chosen_scores = np.take_along_axis(scores, likeliest, axis=1)
        # Fewer readings than places: the rest are no reading, the tile's own code at 0, as padded.
        none = chosen_scores < 0
        other_classes[flowers] = np.where(none, classes[flowers, None], np.take_along_axis(candidates, likeliest, axis=1))
        other_confidences[flowers] = np.where(none, 0.0, chosen_scores)
        return Detections(detections.xyxy, confidence, classes, other_classes, other_confidences)
