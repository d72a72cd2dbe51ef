"""Large and tilted photos: a first pass finds the tiles, a second pass reads them level, at the right scale.

A 12 MP phone shot letterboxed to 640 px leaves 40 px tiles about 6 px wide, too small to
find or read. When the first pass sees small tiles, the region holding them (the player's own
tiles when scoring; when detecting, those and then every tile) is cut from the original pixels and
read again at a scale where each tile reaches ``TARGET_TILE_PX``. The pixels read are capped, so is the cost.

A hand photographed from the side of the table, or with the phone turned, lies at an angle;
the axis-aligned boxes of neighbouring tilted tiles then overlap, and a box covered by its two
neighbours looks like a duplicate reading and is dropped. So the second pass also turns the
player's region until the hand row runs level, with the table's centre above it, which is how
the tiles stand in the photos the detector reads best. When every tile of a small photo (under 1.5
model sides) is read (`taicam detect`) and its tiles stand turned, it is read again from a level view
of the whole photo (``with_level_look``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from scoring.tiles import BACK, TILE_CODES, is_flower

from .detections import (
    FLOWER_CLASSES,
    SEARCHED_READINGS,
    SECOND_READING_COVERED,
    Detections,
    areas,
    box_centres,
    box_corners,
    box_iou,
    box_sizes,
    overlap_of_smaller,
)
from .detector import DEFAULT_CONF, DEFAULT_IOU, PAD_VALUE, TileDetector
from .grouping import ALIGNED, WINNING_HAND_TILES, group_tiles, hand_tiles_seen, row_gaps

TARGET_TILE_PX = 34  # tile width at model scale that the detector reads reliably
SMALL_TILE_PX = 26  # below this, a second pass is worth its cost
READ_TILE_PX = 96  # the classifier read 48 px crops when chosen (64 now): finer pixels added nothing
TILTED_DEGREES = 10.0  # a hand row tilted more than this is read again, level
FEWEST_TILES_TO_TURN = 3  # a row's direction is fitted through at least this many tiles; fewer stay as they are
# Pixels the second pass may read, in first passes at 640 × 640: the player's own tiles lie close
# together; every tile of a whole table spreads over the photo and needs more.
SECOND_PASS_BUDGET = {"hand": 2, "all": 4}
# The second views each focus reads, the first one's boxes first: every focus reads the player's tiles
# level, in a view of their own, where that view reads finer pixels than the first pass did (a photo
# larger than the model's input). On real-hk-v4's 640-px photos of racks, turning alone read fewer
# tiles (recall 0.950 → 0.943: a pile of discards taken for the hand row); there each focus reads its own view.
FOCUS_VIEWS = {"hand": ("hand",), "all": ("hand", "all")}
# The view of every tile, read after the player's own, keeps a box from this threshold, whatever the
# caller's, as a flower's from ``FLOWER_CONF``: its boxes count where the player's view has none, so it
# adds discards and walls, which lie alone or half under one another and which no hand is read from.
# A photo too small for the player's view reads its tiles through this view alone, at the caller's.
# `taicam detect` on the real-tile scenes (seeds 0–59 / 1000–1059 / 3000–3059 / 100–399) found 0.967 /
# 0.964 / 0.960 / 0.970 of every tile at the caller's 0.45 and 0.972 / 0.966 / 0.962 / 0.972 from 0.25,
# with 52 / 69 / 47 / 268 and 52 / 73 / 48 / 271 boxes that match no tile (models/README.md,
# twenty-seventh round).
TABLE_VIEW_CONF = 0.25
# The view of every tile takes in every box the whole photo shows from this score, and looks at the
# scale its smaller tiles need (this percentile of their widths), not the kept tiles' median: far
# discards and walls, smaller than the player's tiles and seen faintly, are the boxes the first look
# keeps least, and a view sized and placed on the kept ones left them out, or was skipped as seen well.
# `taicam detect` on the real-tile scenes (seeds 0–59 / 1000–1059 / 3000–3059) found 0.975 / 0.982 /
# 0.981 of every tile with 48 / 54 / 26 boxes on no tile, against 0.972 / 0.966 / 0.962 and 51 / 73 / 48;
# unseen seeds 4000–4299 0.980 and 277, against 0.966 and 294 (models/README.md, twenty-ninth round).
FAINT_TILE_FLOOR = 0.1
FAINT_TILE_PERCENTILE = 10
# In that view a box is dropped as a second reading of a surer one only when it lies this much under it,
# not ``SECOND_READING_COVERED``: discards lie half under one another, and no hand is read from this view.
# `taicam detect` on the real-tile scenes (seeds 0–59 / 1000–1059 / 3000–3059): every tile found 0.987 /
# 0.990 / 0.991 with 58 / 77 / 41 boxes on no tile, against 0.975 / 0.982 / 0.981 and 48 / 54 / 26 at 0.6;
# seeds 4000–4299 0.990 and 346, against 0.980 and 277 (models/README.md, twenty-ninth round).
TABLE_VIEW_COVERED = 0.9
# A set holds four of each tile and one of each flower, so a photo of one table shows no more. Sets
# come with blank spares, which look like 白: real-hk-v4 labels five to eight 白 in 11 of its photos.
# `taicam eval` on real-hk-v4 val: 1,612 → 1,616 of 1,657 tiles found read right; `taicam detect` on
# the real-tile scenes (seeds 0–59 / 1000–1059 / 3000–3059): 2 tiles changed, 1 more right.
COPIES_IN_A_SET = 4
COPIES_OF_A_FLOWER = 1
UNCOUNTED_CODES = frozenset({"5z", BACK})
# A reading is not given up for one this many times less likely: a sixth sure 四萬 is likelier a stray
# box than a misread tile. The changes on real-hk-v4 val gave up at most 3.9 times.
MOST_LOST_FOR_ROOM = 20.0
FEWEST_HAND_TILES = 14  # a winning hand has at least 13 + 1 tiles (Hong Kong; Taiwan 16 + 1)
FINE_FIRST_SIDE = 1280  # a first pass that saw fewer, or small ones, looks again at this long side (4 × the pixels)
# ... small: its sure tiles' median width at model scale is under this. On the real-tile scenes
# (bench/real_scenes.py) 14–15 px reads as the count alone, 17 px one scene more of 120 but makes
# the 720p whole table of `bench pipeline` (16 px tiles) take 2.25 × as long.
FINE_FIRST_BELOW_PX = 15.0
NEIGHBOUR_REACH = 1.5  # tiles this close (in tile sizes) to the player's are looked at again too
NEIGHBOUR_SIZE = 0.8  # ... if they are about as big: smaller ones are further off, other players'
# Tiles of a hand lie in rows of equal size: a box near a surely read tile of its own size is a
# tile seen unsurely, not a stain on the cloth, and is kept down to ``ROW_FLOOR``; the box alone on
# the cloth still needs the caller's threshold. On real tiles laid out on a table (bench/real_scenes.py,
# seeds 0–59) the winner's tiles found go 0.694 → 0.916 and flowers 0.512 → 0.928; a reach of 2.2
# tile sizes found 0.881 and 0.819 (flowers lie a few tiles from the row), any distance 0.938 and 0.916.
ROW_FLOOR = 0.02
ROW_REACH = 4.0  # centre distance, in tile sizes
ROW_SIZE_RATIO = 0.75  # "its own size": smaller or larger by no more than this ratio
FLOWER_CONF = 0.25  # a box read as a flower is kept from here, whatever the caller's threshold
# A player may lay a flower far from the hand, alone on the cloth, where the detector reads it as
# another tile at a low score (the 1s bird, a 5p). A box alone whose flower classes score this much in
# all is cut out and read by the classifier, and kept if it reads a flower there: real-tile scenes
# (bench/real_scenes.py) 40 / 38 → 41 / 39 of 60 exactly, flower recall 0.964 / 0.989 → 0.988 / 1.000;
# 0.05 reads the same, 0.2 loses a 5f scored 0.12.
LONE_FLOWER_SCORE = 0.1
# A box found counts the flower score of the first look's box it overlaps most, at this IoU or more.
FIRST_LOOK_IOU = 0.3
AREA_SHRINK_BELOW = 0.75  # a view scaled below this is shrunk by area first: sampling alone aliases fine strokes
# A box of the first look inside a second view that no box of the view covers is kept, read again, from
# this confidence: the view can lose a tile the whole photo showed (a flower read 1s at 0.86, seed 204 of
# bench/real_scenes.py). 1,080 real-tile scenes (seeds 0–59, 100–999, 1000–1059, 3000–3059): 688 → 689
# hands exactly, none lost, 6 more of the winner's tiles found; real-hk-v4 val and the renders as they were.
LOST_BY_THE_VIEW_KEPT_FROM = 0.5
# ... when it shares less than this of the smaller box with every box of the view: more is the same tile
# boxed across a gap (a render's winning tile, 0.59), not a tile lost beside a neighbour's edge (seed 204's flower, 0.26).
LOST_BY_THE_VIEW_COVERED_BELOW = 0.4
# A second pass that finds fewer than this share of the first pass's tiles inside its view went
# wrong (blur, a hand over the tiles): the first pass's reading stands.
SECOND_PASS_MIN_SHARE = 0.5
# A photo whose long side is under this many model sides is small: it takes a finer first look only when
# its tiles are small, enlarged to ``FINE_FIRST_SIDE``. Shrunk to 640 or 896 px, the real-tile scenes'
# winner's tiles were found 0.983 and 0.982 of the time without it, 0.993 and 0.998 with it; real-hk-v4
# val's racks (few tiles, large) read as before, where a finer look for few tiles too kept more strays.
FINE_FIRST_FROM = 1.5
# ... and is read once more, mirrored, each box scored by the mean of its two looks: the one look such a
# photo gets is cheap to double. On real-hk-v4 val's 640-px photos of racks (threshold 0.45) recall went
# 0.950 → 0.958 and precision 0.837 → 0.861 (the lone stray boxes one look saw score half); a look turned
# upside down or mirrored top to bottom found about as many tiles but kept more strays (precision 0.82–0.83).
MIRRORED_LOOK_SAME_IOU = 0.5  # a box of each look at this IoU or more is one tile seen twice
MIRRORED_LOOK_APART_IOU = 0.3  # a box the mirrored look alone saw counts if it overlaps every box less
# Each look runs down to this score (or to half the floor asked, if lower): a box both looks saw reaches
# the floor when one of them scored it under it, and what is kept does not hang on the floor asked
# (`taicam eval` asks 0.01 for mAP50, the pipeline ``ROW_FLOOR``).
MIRRORED_LOOK_FLOOR = ROW_FLOOR / 4
# A small photo whose tiles stand turned (by more than ``TILTED_DEGREES``) is read once more, from a
# level view of the whole photo (``with_level_look``). Rows and the columns across them meet at right
# angles, and the crop classifier reads the four quarter turns, so the tiles' turn is taken four-fold.
# A tile keeps the level view's reading when its box there is at most this share of its box in the
# photo: it stands upright in the view, and its crop no longer holds parts of its neighbours. A rack
# photographed from its side slants its row, not its tiles, whose boxes the level view makes larger.
# On real-hk-v4 val any share from 0.7 to 0.95 read the same tiles.
LEVEL_LOOK_TIGHTER = 0.85
LEVEL_LOOK_SAME_IOU = MIRRORED_LOOK_SAME_IOU  # a photo box and a level one at this IoU or more are one tile
LEVEL_LOOK_APART_IOU = MIRRORED_LOOK_APART_IOU  # a level box overlapping every photo box less is a tile more
FINER_RENDER_FROM = 1.05  # a level view less than 5 % coarser than the pixels worth reading is read as it is
REGION_MARGIN = 3.0  # tile widths around the chosen tiles: flowers and melds lie a little apart from the row
# A tile the detector missed in the hand row leaves its neighbours about two pitches apart; a box
# is cut there when its pixels have the neighbours' face colour, and the classifier reads it. The
# gap that sets the winning tile apart, or a meld, shows the cloth instead.
GAP_PITCHES = (1.7, 2.35)  # centre spacing of two neighbours, in pitches, that holds one tile
FACE_INNER = 0.5  # the central share of a box (each way) whose colour is the tile's face
# The face colour is this percentile of those pixels, each channel: the ivory around the glyph. On
# real-tile scenes (bench/real_scenes.py, 120) it tells a missed tile from the cloth in the winning
# tile's gap better than the median (which a big glyph moves) or a higher percentile.
FACE_QUANTILE = 75
FACE_COLOUR_TOLERANCE = 25.0  # most a gap's face colour may differ from its neighbours' (any channel, 0–255)
GAP_READ_SURE = 0.6  # the classifier's least confidence in a tile read in a gap
# Windows step by this share of their side: the overlap (a quarter) holds a whole tile that one
# window's edge cuts, and the merge keeps one box of the two readings.
WINDOW_STEP = 0.75


@dataclass(frozen=True)
class View:
    """A region of the photo, turned and scaled: ``matrix`` maps photo pixels to view pixels."""

    matrix: np.ndarray  # 2 × 3 affine
    size: tuple[int, int]  # (width, height) of the view
    scale: float

    def render(self, image: np.ndarray) -> np.ndarray:
        matrix, source = self.matrix, image
        if self.scale < AREA_SHRINK_BELOW:
            x0, y0, x1, y1 = self._photo_bounds(image.shape)
            source = cv2.resize(image[y0:y1, x0:x1], None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
            to_photo = np.array([[1 / self.scale, 0, x0], [0, 1 / self.scale, y0], [0, 0, 1]])
            matrix = self.matrix @ to_photo
        border = (PAD_VALUE,) * 3
        return cv2.warpAffine(source, matrix, self.size, flags=cv2.INTER_LINEAR, borderValue=border)

    @property
    def degrees(self) -> float:
        """How far the view is turned from the photo, in (−180, 180]."""
        return float(np.degrees(np.arctan2(self.matrix[0, 1], self.matrix[0, 0])))

    def scaled(self, factor: float) -> View:
        """The same region, turned the same way, ``factor`` times finer."""
        size = (round(self.size[0] * factor), round(self.size[1] * factor))
        return View(self.matrix * factor, size, self.scale * factor)

    def to_photo(self, xyxy: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Boxes in view pixels → the axis-aligned boxes around them in photo pixels."""
        inverse = cv2.invertAffineTransform(self.matrix)
        corners = box_corners(xyxy)
        mapped = corners @ inverse[:, :2].T + inverse[:, 2]
        boxes = np.concatenate([mapped.min(axis=1), mapped.max(axis=1)], axis=1)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, shape[1])
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, shape[0])
        return boxes.astype(np.float32)

    def contains(self, xyxy: np.ndarray) -> np.ndarray:
        """Which photo boxes have their centre inside the view."""
        inside = box_centres(xyxy) @ self.matrix[:, :2].T + self.matrix[:, 2]
        return (inside[:, 0] >= 0) & (inside[:, 0] < self.size[0]) & (inside[:, 1] >= 0) & (inside[:, 1] < self.size[1])

    def _photo_bounds(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        w, h = self.size
        corners = self.to_photo(np.array([[0, 0, w, h]], np.float32), shape)[0]
        x0, y0 = (int(np.floor(v)) for v in corners[:2])
        x1, y1 = (int(np.ceil(v)) for v in corners[2:])
        return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)


def detect_photo(
    detector: TileDetector,
    image: np.ndarray,
    conf: float = DEFAULT_CONF,
    iou: float = DEFAULT_IOU,
    second_pass: bool = True,
    focus: str = "all",
) -> Detections:
    """Detections in original pixels, with a second pass when tiles are small or the hand is tilted,
    and each box's code read again from its crop (``TileDetector.reread``); with ``focus="all"`` no code
    is read more often than one set holds it (``within_one_set``); ``focus="hand"`` leaves that to
    scoring's whole-hand repair.

    ``focus="hand"`` spends the second pass on the player's own tiles only, which is all that
    scoring needs; other players' discards keep their first-pass boxes, each read again with one look
    (a tile of the player's can lie outside the player's view). Live video uses
    ``vision.live.HandFollower`` instead: a camera that stays put needs the first pass only now and then.
    """
    if focus not in SECOND_PASS_BUDGET:
        raise ValueError(f"focus must be 'all' or 'hand', not {focus!r}")
    found = detect_and_read(detector, image, conf, iou, second_pass, focus)
    return read_row_gaps(detector, image, found, iou) if focus == "hand" else within_one_set(found)


def within_one_set(found: Detections) -> Detections:
    """``found`` with no code read more often than one set holds it (``COPIES_IN_A_SET``, a flower
    ``COPIES_OF_A_FLOWER``). While a code is read too often, the one tile of it whose likeliest other
    face-up reading with room loses least against its first (``MOST_LOST_FOR_ROOM`` at most) takes it.
    A tile moves into room only, so no move makes another code too often read: each ends one excess."""
    if found.other_class_ids is None or found.other_confidences is None:
        return found
    counts = np.bincount(found.class_id, minlength=len(TILE_CODES))
    while True:
        best: tuple[float, int, int] | None = None  # (loss, tile, column of its other reading)
        for i, class_id in enumerate(found.class_id.tolist()):
            if counts[class_id] <= _copies_in_a_set(class_id):
                continue
            readings = zip(found.other_class_ids[i], found.other_confidences[i], strict=True)
            for column, (other, score) in enumerate(readings):
                if score > 0 and TILE_CODES[other] != BACK and counts[other] < _copies_in_a_set(int(other)):
                    loss = float(found.confidence[i]) / float(score)
                    if loss <= MOST_LOST_FOR_ROOM and (best is None or loss < best[0]):
                        best = (loss, i, column)
                    break
        if best is None:
            return found
        _, i, column = best
        counts[found.class_id[i]] -= 1
        counts[found.other_class_ids[i, column]] += 1
        found = found.as_other_reading(i, column)


def _copies_in_a_set(class_id: int) -> float:
    code = TILE_CODES[class_id]
    if code in UNCOUNTED_CODES:
        return float("inf")
    return COPIES_OF_A_FLOWER if is_flower(code) else COPIES_IN_A_SET


def detect_and_read(
    detector: TileDetector, image: np.ndarray, conf: float, iou: float, second_pass: bool, focus: str
) -> Detections:
    """``detect_photo`` before the gap read: the passes' boxes, each read again from its crop.

    Every focus reads the player's tiles level, at the scale they need (``FOCUS_VIEWS``);
    ``focus="all"`` then looks at the rest of the table too, in a second view of every tile, whose
    boxes count where the player's view has none. A view of every tile is not turned: a tilted
    hand row in it loses the boxes its neighbours cover (`taicam detect` found 0.948 of the
    winner's tiles on the real-tile scenes with it alone, 0.996 with the player's view first).
    With ``focus="all"``, a small photo whose tiles stand turned is read level too (``with_level_look``);
    the player's view reads the player's tiles level already, and a level look after it read fewer
    real-tile scenes (shrunk to 640 px) exactly.
    """

    def read(picture: np.ndarray) -> Detections:
        return _detect_and_read_as_it_is(detector, picture, conf, iou, second_pass, focus)

    found = read(image)
    return with_level_look(detector, image, found, conf, read) if focus == "all" else found


def _detect_and_read_as_it_is(
    detector: TileDetector, image: np.ndarray, conf: float, iou: float, second_pass: bool, focus: str
) -> Detections:
    """``detect_and_read`` before the level look."""
    first, lone, faint = first_look(detector, image, conf, iou)
    found = _read_passes(detector, image, first, conf, iou, second_pass, focus, faint)
    # A flower the first look saw may be lost by the view of the player's tiles, which can score it
    # lower: it is looked at again as a lone one is (seed 52 of bench/real_scenes.py).
    first_flowers = _read_as_flowers(first)
    found = _with_lone_flowers(detector, image, found, Detections.concat([lone, first_flowers]), iou)
    return _with_flower_scores(found, Detections.concat([first, lone]))


def _with_flower_scores(found: Detections, looked: Detections) -> Detections:
    """``found`` with the flower scores (``Detections.flower_scores``) of the first look's boxes ``looked``:
    the readers may name a flower another tile, where the detector's own classes still saw a flower."""
    scores = np.zeros(len(found), np.float32)
    if len(found) and len(looked):
        overlap = box_iou(found.xyxy, looked.xyxy)
        best = overlap.argmax(axis=1)
        near = overlap[np.arange(len(found)), best] >= FIRST_LOOK_IOU
        scores[near] = _flower_score(looked)[best[near]]
    return replace(found, flower_scores=scores)


def _read_passes(
    detector: TileDetector,
    image: np.ndarray,
    first: Detections,
    conf: float,
    iou: float,
    second_pass: bool,
    focus: str,
    faint: Detections,
) -> Detections:
    """The first look's tiles read again, through the second pass's views where they are worth it;
    the view of every tile after the player's also takes in the ``faint`` boxes of the whole photo."""
    if not second_pass or not len(first):
        return detector.reread(image, first)
    finer = max(image.shape[:2]) > max(detector.info.imgsz)
    views = FOCUS_VIEWS[focus] if finer else (focus,)
    as_asked = _ViewReading(conf, None, SECOND_READING_COVERED)
    # The player's view takes the faint boxes in only where they continue the hand row (``_row_continued``).
    players = _ViewReading(conf, faint, SECOND_READING_COVERED)
    # The view of every tile keeps more after the player's view only: a photo too small for that view
    # gives a view no finer pixels than the first look had, and what it kept more of there was strays.
    every_tile = _ViewReading(min(conf, TABLE_VIEW_CONF), faint, TABLE_VIEW_COVERED) if "hand" in views else as_asked
    looks = []
    for part in views:
        if look := _look_again(detector, image, first, iou, part, every_tile if part == "all" else players):
            looks.append(look)
    if not looks:
        return detector.reread(image, first)
    # A later view's box counts unless an earlier view's box covers it, inside that view too: on
    # the real-tile scenes that finds 21 more of 4,510 tiles than dropping every box inside an
    # earlier view, for 3 more boxes that match no tile (120 against 117).
    found = looks[0][0]
    for again, _ in looks[1:]:
        found = _add_outside(found, again, iou)
    inside = np.logical_or.reduce([view.contains(first.xyxy) for _, view in looks])
    outside = first[~inside]
    # A tile the first look saw surely that no box of the views covers was lost by them, not wrongly seen.
    lost = _uncovered(first[inside & (first.confidence >= LOST_BY_THE_VIEW_KEPT_FROM)], found, LOST_BY_THE_VIEW_COVERED_BELOW)
    if len(lost):
        found = _by_confidence([found, detector.reread(image, lost)])
    # The player's view can miss some of the player's tiles (a meld or a flower beyond its margin, where the
    # first look's grouping went wrong): the crop classifier reads every tile outside the views too. Scoring
    # gives them one look each (on 1,200 real-tile scenes, 758 hands exact against 748 with the detector's
    # codes, 759 with the second look at a fifth more time a photo against 6 %).
    return _add_outside(found, detector.reread(image, outside, second_look=focus != "hand"), iou)


def _with_lone_flowers(
    detector: TileDetector, image: np.ndarray, found: Detections, lone: Detections, iou: float
) -> Detections:
    """``found``, and those of the ``lone`` boxes (flowers, perhaps) that no box of it covers and that
    the classifier reads as flowers."""
    suspects = _uncovered(lone, found, iou)
    if detector.classifier is None or not len(suspects):
        return found
    # The detector's low score for such a box says little: the classifier alone names it, at its own odds.
    read = detector.classifier.read(image, suspects.xyxy)
    if detector.flower_reader is not None:
        read = detector.flower_reader.refine(image, read)
    flowers = _read_as_flowers(read)
    return _add_outside(found, flowers, iou) if len(flowers) else found


class _ViewReading(NamedTuple):
    """How a second view is read: its threshold, the faint boxes it takes in, and how much a surer box
    covers a box it drops (the view of every tile after the player's keeps more on all three)."""

    conf: float
    faint: Detections | None
    covered: float


def _look_again(
    detector: TileDetector, image: np.ndarray, first: Detections, iou: float, focus: str, settings: _ViewReading
) -> tuple[Detections, View] | None:
    """The second pass over ``focus``'s view and the view; None when the first pass saw well enough
    or the second look went wrong (blur, a hand over the tiles)."""
    view = second_view(detector, image, first, focus, faint=settings.faint)
    if view is None:
        return None
    second = read_view(detector, image, view, settings.conf, iou, covered=settings.covered)
    if len(second) < SECOND_PASS_MIN_SHARE * view.contains(first.xyxy).sum():
        return None
    return second, view


def read_row_gaps(detector: TileDetector, image: np.ndarray, found: Detections, iou: float = DEFAULT_IOU) -> Detections:
    """``found`` and the tiles the detector missed in the hand row, read by the classifier.

    Where two neighbours in the row lie two pitches apart (``GAP_PITCHES``), the box between them
    is a tile when its face has their colour (``FACE_COLOUR_TOLERANCE``), no box already covers
    it, and the classifier reads it at ``GAP_READ_SURE`` or more. Without a classifier, nothing is added.
    """
    if detector.classifier is None:
        return found
    pairs = row_gaps(found, *GAP_PITCHES)
    if not pairs:
        return found
    between = np.array([(found.xyxy[a] + found.xyxy[b]) / 2 for a, b in pairs], np.float32)
    free = box_iou(between, found.xyxy).max(axis=1) < iou
    boxes = [
        box for box, (a, b), empty in zip(between, pairs, free, strict=True)
        if empty and _colour_gap(image, box, found.xyxy[a], found.xyxy[b]) <= FACE_COLOUR_TOLERANCE
    ]  # fmt: skip
    if not boxes:
        return found
    added = detector.classifier.read(image, np.array(boxes, np.float32))
    added = added[added.confidence >= GAP_READ_SURE]
    if len(added) == 0:
        return found
    if detector.flower_reader is not None:
        added = detector.flower_reader.refine(image, added)
    return _by_confidence([found, added])


def _colour_gap(image: np.ndarray, box: np.ndarray, left: np.ndarray, right: np.ndarray) -> float:
    """How far ``box``'s face colour lies from its two neighbours' mean, in the channel furthest off."""
    neighbours = (_face_colour(image, left) + _face_colour(image, right)) / 2
    return float(np.abs(_face_colour(image, box) - neighbours).max())


def _face_colour(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The colour of the box's centre (``FACE_INNER`` of it each way): a face's ivory, or the cloth."""
    x1, y1, x2, y2 = (float(v) for v in box)
    dx, dy = (x2 - x1) * (1 - FACE_INNER) / 2, (y2 - y1) * (1 - FACE_INNER) / 2
    h, w = image.shape[:2]
    left, top = int(np.clip(x1 + dx, 0, w - 1)), int(np.clip(y1 + dy, 0, h - 1))
    right, bottom = max(int(np.clip(x2 - dx, 0, w)), left + 1), max(int(np.clip(y2 - dy, 0, h)), top + 1)
    return np.percentile(image[top:bottom, left:right].reshape(-1, 3), FACE_QUANTILE, axis=0)


def first_pass(
    detector: TileDetector, image: np.ndarray, conf: float = DEFAULT_CONF, iou: float = DEFAULT_IOU, fine: bool = True
) -> Detections:
    """The whole photo at the model's size, looked at again finer when it is sure of fewer tiles than
    any winning hand has (unless they are ``TARGET_TILE_PX`` wide already), or of tiles too small to
    read (``FINE_FIRST_BELOW_PX`` at model scale): a whole table filmed from afar leaves tiles ~12 px
    wide at 640, where the first look misses some, however many discards it found. A small photo
    (``FINE_FIRST_FROM``) is looked at mirrored too (``looked_both_ways``), and finer only when its
    tiles are small, enlarged. ``fine=False`` skips the second looks (live video rations them)."""
    return first_look(detector, image, conf, iou, fine).tiles


class FirstLook(NamedTuple):
    """What the first look saw: the tiles kept, the boxes alone on the cloth that may be flowers
    (``lone_flowers``), and every box of the whole photo from ``FAINT_TILE_FLOOR``, kept or not."""

    tiles: Detections
    lone: Detections
    faint: Detections


def first_look(
    detector: TileDetector, image: np.ndarray, conf: float = DEFAULT_CONF, iou: float = DEFAULT_IOU, fine: bool = True
) -> FirstLook:
    """``first_pass``'s tiles, the boxes that may be flowers, and the faint boxes (``FirstLook``)."""
    raw = whole_photo_boxes(detector, image, min(conf, ROW_FLOOR), iou, mirrored=fine)
    first, lone = _kept_and_lone_flowers(raw, conf)
    # From the whole photo at the model's size, also when a finer look replaces the tiles below: the
    # far discards it adds were seen here already, fainter.
    faint = raw[raw.confidence >= FAINT_TILE_FLOOR]
    if not fine:
        return FirstLook(first, lone, faint)
    long_side = max(image.shape[:2])
    model_side = max(detector.info.imgsz)
    # Sure tiles only: the unsure ones kept beside them may be stains or halves of tiles.
    sure = first.narrow_sides[first.confidence >= conf]
    width = float(np.median(sure)) * model_side / long_side if len(sure) else 0.0
    small_tiles = width < FINE_FIRST_BELOW_PX  # none sure counts as small: nothing was read well
    small_photo = _small_photo(detector, image)
    # A small photo showing few tiles shows a rack or a part of the table: only small tiles call for a
    # finer look. The same holds for a large photo of few tiles whose median width is ``TARGET_TILE_PX``
    # or more, a rack or a hand close up: real-hk-v4 val photos enlarged 3 × kept 384 boxes on no tile
    # with a finer look there, 366 without, and read every tile right in 47 of 97 photos, not 43
    # (models/README.md).
    big_tiles = width >= TARGET_TILE_PX
    if not small_tiles and (small_photo or big_tiles or len(sure) >= FEWEST_HAND_TILES):
        return FirstLook(first, lone, faint)
    # A small photo is enlarged: the detector finds tiles a few pixels wide better at twice their size.
    scale = FINE_FIRST_SIDE / long_side if small_photo else min(1.0, FINE_FIRST_SIDE / long_side)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = image if scale == 1 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=interpolation)
    finer, finer_lone = _kept_and_lone_flowers(_detect_view_raw(detector, resized, conf, iou), conf)
    if len(finer) <= len(first):
        return FirstLook(first, lone, faint)
    finer, finer_lone = finer.at(finer.xyxy / scale), finer_lone.at(finer_lone.xyxy / scale)
    # The finer look can score a flower lower than the whole photo did: where it has no box, the
    # whole photo's flowers stay for the lone flowers' read.
    coarse_flowers = Detections.concat([_read_as_flowers(first), lone])
    lost = _uncovered(coarse_flowers, Detections.concat([finer, finer_lone]), iou)
    return FirstLook(finer, Detections.concat([finer_lone, lost]), faint)


def read_view(
    detector: TileDetector,
    image: np.ndarray,
    view: View,
    conf: float = DEFAULT_CONF,
    iou: float = DEFAULT_IOU,
    second_look: bool = True,
    covered: float = SECOND_READING_COVERED,
) -> Detections:
    """The tiles inside ``view``, detected and read level, with their boxes in photo pixels; a box a
    surer one covers ``covered`` of is a second reading."""
    turned = view.render(image)
    found = _reread_level(detector, image, view, turned, _detect_view(detector, turned, conf, iou, covered), second_look)
    return found.at(view.to_photo(found.xyxy, image.shape))


def _reread_level(
    detector: TileDetector, image: np.ndarray, view: View, turned: np.ndarray, found: Detections, second_look: bool
) -> Detections:
    """Read the view's tiles again, level, from the finest pixels worth having.

    The view shrinks a 12 MP photo until tiles are ``TARGET_TILE_PX`` wide; the classifier reads
    a flower's glyph better from the photo's own pixels, up to ``READ_TILE_PX`` a tile. A view
    turned by no more than ``TILTED_DEGREES`` needs no turning for that: its boxes are cut from
    the photo directly, as the first pass's are, which saves rendering a finer view every frame.
    """
    if detector.classifier is None or len(found) == 0:
        return found
    if abs(view.degrees) <= TILTED_DEGREES:  # near level already: crop the photo itself, no finer render
        return detector.reread(image, found.at(view.to_photo(found.xyxy, image.shape)), second_look).at(found.xyxy)
    factor = min(1 / view.scale, READ_TILE_PX / max(float(np.median(found.narrow_sides)), 1.0))
    if factor <= FINER_RENDER_FROM:
        return detector.reread(turned, found, second_look)
    finer = view.scaled(factor).render(image)
    return detector.reread(finer, found.at(found.xyxy * factor), second_look).at(found.xyxy)


def second_view(
    detector: TileDetector,
    image: np.ndarray,
    first: Detections,
    focus: str,
    budget: float | None = None,
    faint: Detections | None = None,
) -> View | None:
    """Where and how to look again, or None when the first pass saw well enough.

    ``budget`` caps the pixels read, in 640 × 640 passes (``SECOND_PASS_BUDGET[focus]`` unless given);
    ``focus="all"`` also takes in the ``faint`` boxes (``FAINT_TILE_FLOOR``) and sizes its view on them.
    """
    region = _Region.around(detector, image, first, focus, faint)
    if region.seen_well:
        return None
    return region.view(SECOND_PASS_BUDGET[focus] if budget is None else budget)


def follow_view(detector: TileDetector, image: np.ndarray, first: Detections, budget: float) -> View:
    """Live video's view of the player's tiles: ``second_view``'s, or, when the first pass saw them
    well, their region alone at the first pass's own scale, which costs fewer pixels than the frame."""
    region = _Region.around(detector, image, first, "hand")
    return region.view(budget, keep_scale=region.seen_well)


@dataclass(frozen=True)
class _Region:
    """The tiles worth a second look, in coordinates turned so the hand row runs along +x."""

    corners: np.ndarray  # the chosen tiles' box corners, turned
    frame: np.ndarray  # the photo's corners, turned
    rotation: np.ndarray  # 2 × 2, photo → turned
    # Tile width in photo pixels: the kept tiles' median, or the faint boxes' smaller widths; margin and scale follow it.
    tile: float
    first_scale: float  # photo → the first pass's input
    model_side: int
    seen_well: bool  # tiles big enough and the row about level: the first pass read them well

    @classmethod
    def around(
        cls, detector: TileDetector, image: np.ndarray, first: Detections, focus: str, faint: Detections | None = None
    ) -> _Region:
        h, w = image.shape[:2]
        model_side = max(detector.info.imgsz)
        tile = float(np.median(first.narrow_sides))
        chosen, angle = first.xyxy, 0.0
        if focus == "all" and faint is not None and len(faint):
            chosen = np.vstack([first.xyxy, faint.xyxy])
            smaller = float(np.percentile(faint.narrow_sides, FAINT_TILE_PERCENTILE))
            tile = max(min(tile, smaller), 1.0)  # a box the photo's edge cut to nothing has no width
        small = tile * model_side / max(h, w) < SMALL_TILE_PX
        if focus == "hand":
            layout = group_tiles(first)
            own = sorted(i for g in layout.groups if g.role != "background" for i in g.ids)
            chosen = first[_with_neighbours(first, own)].xyxy if own else first.xyxy
            row = next((g.ids for g in layout.groups if g.role == "concealed"), [])
            angle = _upright_angle(first.xyxy[row], (w / 2, h / 2)) if len(row) >= FEWEST_TILES_TO_TURN else 0.0
            # A hand seen short may run on beyond what the first look kept: its faint boxes say how far.
            seen_short = hand_tiles_seen(layout.groups) < WINNING_HAND_TILES
            if faint is not None and len(faint) and len(row) >= FEWEST_TILES_TO_TURN and seen_short:
                continued = _row_continued(first[np.asarray(row)], faint, angle)
                chosen = np.vstack([chosen, continued[_beyond(continued, chosen, angle, tile)]])
        off_level = np.degrees(np.arctan2(np.sin(2 * angle), np.cos(2 * angle)) / 2)  # either way up
        rotation = _row_rotation(angle)
        corners = box_corners(chosen).reshape(-1, 2) @ rotation.T
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ rotation.T
        seen_well = not small and abs(off_level) <= TILTED_DEGREES
        return cls(corners, frame, rotation, tile, model_side / max(h, w), model_side, seen_well)

    def view(self, budget: float, keep_scale: bool = False) -> View:
        """The region with a margin, at ``TARGET_TILE_PX`` a tile within ``budget`` 640 × 640 passes
        of pixels, or at the first pass's scale with ``keep_scale``."""
        margin = REGION_MARGIN * self.tile
        low = np.maximum(self.corners.min(axis=0) - margin, self.frame.min(axis=0))
        high = np.minimum(self.corners.max(axis=0) + margin, self.frame.max(axis=0))
        extent = np.maximum(high - low, 1.0)
        pixels = budget * self.model_side**2
        scale = float(min(TARGET_TILE_PX / self.tile, np.sqrt(pixels / (extent[0] * extent[1]))))
        if keep_scale:
            scale = self.first_scale
        matrix = np.hstack([scale * self.rotation, -scale * low[:, None]])
        size = (max(1, round(extent[0] * scale)), max(1, round(extent[1] * scale)))
        return View(matrix, size, scale)


def _with_neighbours(detections: Detections, own: list[int]) -> np.ndarray:
    """The player's tiles and the hand-sized tiles lying next to them.

    A misread tile can break a row or a meld in the first pass and leave part of the hand
    outside the player's groups; the tiles beside them belong in the second look all the same.
    """
    centres, sizes = detections.centres, detections.sizes
    own_size = float(np.median(sizes[own]))
    distance = np.hypot(*(centres[:, None, :] - centres[None, own, :]).transpose(2, 0, 1)).min(axis=1)
    near = (distance <= NEIGHBOUR_REACH * own_size) & (sizes >= NEIGHBOUR_SIZE * own_size)
    return np.union1d(own, np.flatnonzero(near)).astype(np.int64)


def _row_rotation(angle: float) -> np.ndarray:
    """2 × 2, photo → turned so that a row at ``angle`` (radians) runs along +x."""
    return np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])


def _beyond(boxes: np.ndarray, chosen: np.ndarray, angle: float, tile: float) -> np.ndarray:
    """(n,) which ``boxes`` reach past the region ``chosen`` would give, margin and all, along the row
    turned by ``angle``: the others leave the view as it was."""
    rotation = _row_rotation(angle)
    along = (box_corners(chosen).reshape(-1, 2) @ rotation.T)[:, 0]
    ends = (box_corners(boxes) @ rotation.T)[..., 0]
    margin = REGION_MARGIN * tile
    return (ends.min(axis=1) < along.min() - margin) | (ends.max(axis=1) > along.max() + margin)


def _row_continued(row: Detections, faint: Detections, angle: float) -> np.ndarray:
    """The boxes of ``faint`` that continue the hand ``row`` (turned by ``angle`` to run along +x) at
    either end: about its tiles' size, in line with it, each within ``NEIGHBOUR_REACH`` of the row or
    of another such box.

    A row turned far from level has the axis-aligned boxes of neighbouring tiles overlapping so much
    that the first look keeps part of it faintly or not at all, and a view placed on the rest cut
    the hand short (seeds 849 and 884 of bench/real_scenes.py lost four and eight of their tiles).
    """
    rotation = _row_rotation(angle)
    along, across = (row.centres @ rotation.T).T
    size = float(np.median(row.sizes))
    centres = faint.centres @ rotation.T
    in_line = (np.abs(centres[:, 1] - np.median(across)) <= ALIGNED * size) & (faint.sizes >= NEIGHBOUR_SIZE * size)
    low, high = float(along.min()), float(along.max())
    for x in np.sort(centres[in_line, 0])[::-1]:  # walking out from the row's near end, one box at a time
        if low - NEIGHBOUR_REACH * size <= x < low:
            low = x
    for x in np.sort(centres[in_line, 0]):
        if high < x <= high + NEIGHBOUR_REACH * size:
            high = x
    return faint.xyxy[in_line & (centres[:, 0] >= low) & (centres[:, 0] <= high)]


def _upright_angle(row_boxes: np.ndarray, centre: tuple[float, float]) -> float:
    """The angle (radians) to turn the photo by so the hand row runs level with the table above it.

    The players sit round the table, so the picture's centre lies on the far side of the row
    (in a hand snap, the table beyond the hand; in a whole-table photo, the middle of the table).
    """
    points = box_centres(row_boxes)
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    angle = float(np.arctan2(vy, vx))
    # Across the row, "up" in the turned view is the direction (sin, -cos) in the photo.
    towards_centre = (centre[0] - x0) * np.sin(angle) - (centre[1] - y0) * np.cos(angle)
    return angle if towards_centre >= 0 else angle + np.pi


def _detect_view(
    detector: TileDetector, view: np.ndarray, conf: float, iou: float, covered: float = SECOND_READING_COVERED
) -> Detections:
    """One rectangular run for dynamic-shape models; overlapping model-sized windows otherwise."""
    return beside_sure_tiles(_detect_view_raw(detector, view, conf, iou, covered), conf)


def _detect_view_raw(
    detector: TileDetector, view: np.ndarray, conf: float, iou: float, covered: float = SECOND_READING_COVERED
) -> Detections:
    """``_detect_view``'s boxes before ``beside_sure_tiles``: down to ``ROW_FLOOR``, wherever they lie."""
    h, w = view.shape[:2]
    if detector.stride:
        return _detect_raw(detector, view, conf, iou, side=max(h, w), covered=covered)
    size = max(detector.info.imgsz)
    floor = min(conf, ROW_FLOOR)
    parts = [
        detector.detect(view[y0:y1, x0:x1], conf=floor, iou=iou, covered=covered).shifted(x0, y0)
        for x0, y0, x1, y1 in _windows(w, h, size)
    ]
    return Detections.merge(parts, iou, covered)


def whole_photo_boxes(
    detector: TileDetector, image: np.ndarray, floor: float, iou: float = DEFAULT_IOU, mirrored: bool = True
) -> Detections:
    """The detector's boxes in the whole photo at the model's size, down to ``floor``: a small photo
    (``FINE_FIRST_FROM``) is looked at mirrored too (``looked_both_ways``), unless ``mirrored`` is False or the
    detector takes no mirrored look."""
    if mirrored and _small_photo(detector, image) and detector.mirrored_look:
        return looked_both_ways(detector, image, floor, iou)
    return detector.detect(image, conf=floor, iou=iou)


def _small_photo(detector: TileDetector, image: np.ndarray) -> bool:
    """Whether the photo's long side is under ``FINE_FIRST_FROM`` model sides."""
    return max(image.shape[:2]) < FINE_FIRST_FROM * max(detector.info.imgsz)


def looked_both_ways(detector: TileDetector, image: np.ndarray, floor: float, iou: float = DEFAULT_IOU) -> Detections:
    """The detector's boxes in ``image`` as it is and mirrored left to right, scored by the mean of the two
    looks (``Detections.scored_with``), down to ``floor``. A mirrored tile is no tile (a 萬's strokes turn
    round), so a box both looks saw keeps the readings of the look as it is. A box the mirrored look
    alone saw keeps that look's readings, which the mirror may have turned wrong; it scores at most half,
    so the crop classifier reads it again, and names it unless it finds that reading at least half as
    likely as its own (on real-hk-v4 val, 6 of 10 such tiles end up right, as with the classifier alone)."""
    look_floor = min(floor / 2, MIRRORED_LOOK_FLOOR)
    as_it_is = detector.detect(image, conf=look_floor, iou=iou)
    mirrored = detector.detect(cv2.flip(image, 1), conf=look_floor, iou=iou).mirrored(image.shape[1])
    both = as_it_is.scored_with(mirrored, MIRRORED_LOOK_SAME_IOU, MIRRORED_LOOK_APART_IOU)
    return both[both.confidence >= floor]


def with_level_look(
    detector: TileDetector,
    image: np.ndarray,
    found: Detections,
    conf: float,
    read: Callable[[np.ndarray], Detections],
) -> Detections:
    """``found``, the tiles ``read`` found in ``image``, with those of a small photo (``FINE_FIRST_FROM``)
    that stand turned read again by ``read`` from a level view of the whole photo.

    A tile turned by a third of a right angle fills its axis-aligned box by only half: its crop holds
    parts of its neighbours, and its neighbours' boxes may hide it. A tile keeps the level view's
    reading where its box there is tighter (``LEVEL_LOOK_TIGHTER``); a sure tile only the level view
    saw joins. Larger photos take a level view of the player's tiles already (``second_view``).
    """
    if not _small_photo(detector, image) or len(found) < FEWEST_TILES_TO_TURN:
        return found
    degrees = tiles_turned_degrees(found.xyxy)
    if abs(degrees) <= TILTED_DEGREES:
        return found
    view = whole_photo_turned(image.shape, degrees)
    return _read_where_upright(found, read(view.render(image)), view, image.shape, conf)


def tiles_turned_degrees(xyxy: np.ndarray) -> float:
    """How far the boxes' rows are turned from level, in (−45, 45] degrees, as ``cv2.getRotationMatrix2D``
    takes it: the mean direction from each box to its nearest, four-fold."""
    centres = box_centres(xyxy.astype(np.float64))
    apart = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(apart, np.inf)
    step = centres[apart.argmin(axis=1)] - centres
    mean = np.exp(4j * np.arctan2(step[:, 1], step[:, 0])).mean()
    return float(np.degrees(np.angle(mean) / 4))


def whole_photo_turned(shape: tuple[int, ...], degrees: float) -> View:
    """The whole photo turned by ``degrees`` about its centre, at its own scale, on a canvas that holds all of it."""
    h, w = shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    size = (int(w * cos + h * sin), int(w * sin + h * cos))  # less than a pixel cut off, at most
    matrix[:, 2] += np.array([(size[0] - w) / 2, (size[1] - h) / 2])
    return View(matrix, size, 1.0)


def _read_where_upright(found: Detections, level: Detections, view: View, shape: tuple[int, ...], conf: float) -> Detections:
    """``found`` with the readings of the tiles ``level`` (boxes in ``view``) saw upright, and the sure
    tiles only ``level`` saw."""
    if not len(level) or not len(found):
        return found
    back = view.to_photo(level.xyxy, shape)
    overlap = box_iou(found.xyxy, back)
    best = overlap.argmax(axis=1)
    paired = overlap[np.arange(len(found)), best] >= LEVEL_LOOK_SAME_IOU
    upright = paired & (areas(level.xyxy[best]) <= LEVEL_LOOK_TIGHTER * areas(found.xyxy))
    read_level = level[best[upright]].at(found.xyxy[upright])
    more = np.flatnonzero((overlap.max(axis=0) < LEVEL_LOOK_APART_IOU) & (level.confidence >= conf))
    return _by_confidence([found[~upright], read_level, level[more].at(back[more])])


def _detect_raw(
    detector: TileDetector,
    image: np.ndarray,
    conf: float,
    iou: float,
    side: int | None = None,
    covered: float = SECOND_READING_COVERED,
) -> Detections:
    """The detector's boxes down to ``ROW_FLOOR`` (or ``conf`` if lower), before ``beside_sure_tiles``."""
    return detector.detect(image, conf=min(conf, ROW_FLOOR), iou=iou, side=side, covered=covered)


def beside_sure_tiles(found: Detections, conf: float) -> Detections:
    """Boxes read at ``conf`` or more, and the less sure ones lying within ``ROW_REACH`` tile sizes of
    one of them of about their size (``ROW_SIZE_RATIO``): a tile in a row, or set apart from it.
    Flowers lie further apart, where no sure tile vouches for them: they keep a bar of their own,
    ``FLOWER_CONF``, when ``conf`` is higher."""
    return found[_kept_beside_sure(found, conf)]


def _kept_beside_sure(found: Detections, conf: float) -> np.ndarray:
    """Which boxes ``beside_sure_tiles`` keeps."""
    bar = np.where(np.isin(found.class_id, FLOWER_CLASSES), min(conf, FLOWER_CONF), conf)
    sure = found.confidence >= bar
    if sure.all() or not sure.any():
        return sure
    centres = found.centres
    sizes = box_sizes(found.xyxy, min_area=1e-6)
    unsure = np.flatnonzero(~sure)
    ratio = sizes[unsure, None] / sizes[None, sure]
    distance = np.hypot(*(centres[unsure, None, :] - centres[None, sure, :]).transpose(2, 0, 1))
    alike = (ratio >= ROW_SIZE_RATIO) & (ratio <= 1 / ROW_SIZE_RATIO)
    beside = (alike & (distance <= ROW_REACH * sizes[unsure, None])).any(axis=1)
    keep = sure.copy()
    keep[unsure[beside]] = True
    return keep


def lone_flowers(found: Detections, conf: float) -> Detections:
    """The boxes ``beside_sure_tiles`` leaves out whose flower classes score ``LONE_FLOWER_SCORE`` or
    more in all, the detector's reading and its other readings together: flowers, perhaps, laid apart."""
    return _kept_and_lone_flowers(found, conf)[1]


def _kept_and_lone_flowers(found: Detections, conf: float) -> tuple[Detections, Detections]:
    """``beside_sure_tiles(found, conf)`` and ``lone_flowers(found, conf)``, from one pass over the boxes."""
    keep = _kept_beside_sure(found, conf)
    left = found[~keep]
    if left.other_class_ids is None or not len(left):
        return found[keep], Detections.empty()
    return found[keep], left[np.flatnonzero(_flower_score(left) >= LONE_FLOWER_SCORE)]


def _read_as_flowers(found: Detections) -> Detections:
    """The boxes of ``found`` read as flowers."""
    return found[np.flatnonzero(np.isin(found.class_id, FLOWER_CLASSES))]


def _flower_score(found: Detections) -> np.ndarray:
    """(n,) what the detector's flower classes scored at each box, its reading and its likeliest other
    readings together (the ``SEARCHED_READINGS`` its thresholds were chosen with)."""
    score = np.where(np.isin(found.class_id, FLOWER_CLASSES), found.confidence, 0.0)
    if found.other_class_ids is not None and found.other_confidences is not None:
        classes, scores = found.other_class_ids[:, :SEARCHED_READINGS], found.other_confidences[:, :SEARCHED_READINGS]
        score = score + np.where(np.isin(classes, FLOWER_CLASSES), scores, 0.0).sum(axis=1)
    return score.astype(np.float32)


def _windows(w: int, h: int, size: int) -> list[tuple[int, int, int, int]]:
    """Overlapping square windows of ``size`` covering a w × h view."""

    def starts(length: int) -> list[int]:
        if length <= size:
            return [0]
        count = int(np.ceil((length - size) / (size * WINDOW_STEP))) + 1
        return [round(v) for v in np.linspace(0, length - size, count)]

    return [(x, y, x + size, y + size) for y in starts(h) for x in starts(w)]


def _add_outside(second: Detections, outside: Detections, iou: float) -> Detections:
    """The second pass's boxes, and the first pass's from outside its view that do not overlap them.

    No overlap test among the second pass's own boxes: once turned back into the photo, the
    boxes of a tilted row overlap by nature, and the level view already settled them.
    """
    return _by_confidence([second, _uncovered(outside, second, iou)])


def _uncovered(boxes: Detections, cover: Detections, iou: float) -> Detections:
    """The ``boxes`` that no box of ``cover`` holds ``iou`` or more of."""
    if not len(boxes) or not len(cover):
        return boxes
    # A tile cut by the view's edge leaves a part box inside a whole one: containment, not IoU.
    overlap = overlap_of_smaller(boxes.xyxy, cover.xyxy)
    return boxes[np.flatnonzero(overlap.max(axis=1) < iou)]


def _by_confidence(parts: list[Detections]) -> Detections:
    """The parts' detections together, surest first."""
    merged = Detections.concat(parts)
    return merged[np.argsort(-merged.confidence, kind="stable")]
