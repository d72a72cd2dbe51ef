"""The circles of a circles tile, counted: evidence of its suit and number that any set's art gives.

The crop classifier learned the circles of the sets it was trained on. A set it never saw (one of
real-hk-v4 val's draws its circles as black wheels with a white cross) it reads as 西 or 四萬 at 0.9.
Yet in every set two round marks stacked in the middle of the face make a 2p, and four in a square
a 4p. ``count_pips`` finds such marks on the tile's face in a crop (the cloth and the tile's side in
the box's corners left out): round, alike in size, nothing else inked, and laid out as that number's
circles are. It claims a count rarely and is rarely wrong when it does.

``PipCounts`` holds how often each tile gave each count on real-hk-v4 **train** crops
(``models/pip-counts.json``, made by ``python -m models.pip_counts``), and multiplies a reading's
probabilities by how likely each code is to give the count seen (``weigh``): a naive Bayes join of
two readers that fail in different ways.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import TILE_CODES

from .onnx_session import ModelError

BUNDLED_PIP_COUNTS = Path(__file__).resolve().parent.parent / "models" / "pip-counts.json"
# The crop is brought to a tile face's shape at this size: real-hk-v4's photos were squashed square
# by Roboflow, and a squashed pair of circles side by side looks like one.
FACE_PX = (72, 96)
FACE_LONG_SIDE_RATIO = 1.15  # a crop this much wider than tall is a tile lying sideways: turned upright
# A crop nearly square (longer side at most this much the shorter) may show a face either way up: a
# tile seen sideways at a slant. Counted upright first, then turned.
NEARLY_SQUARE = 1.25
SMALLEST_CROP_PX = 24  # a crop narrower than this shows circles too blurred to count
# Ink: darker than this share of the face's ivory (the 90th percentile of brightness), or coloured
# (saturation over INK_SATURATION, 0–255) and not as bright as the ivory.
IVORY_PERCENTILE = 90
INK_DARKER_THAN = 0.62
INK_SATURATION = 85
INK_BRIGHTER_LIMIT = 0.97
# Ink's thin gaps are closed by this many pixels; then, where that found a round mark but no count, by
# WIDER_CLOSE_PX: a blurred wheel's white cross breaks its rim into pieces that the first leaves apart.
CLOSE_PX = 3
WIDER_CLOSE_PX = 5
# The face: the largest bright, un-inked region (at least FACE_BRIGHT of the ivory, FACE_SMALLEST of the
# crop), its hull drawn in by FACE_INSET_PX. Ink outside it is the cloth, the tile's side or a neighbour,
# shown by a box that is not tight round a tilted face: a circle blurred into it would go uncounted.
FACE_BRIGHT = 0.8
FACE_SMALLEST = 0.35
FACE_INSET_PX = 2
SPECK_SHARE = 0.004  # of the face's area: ink smaller than this is dirt or noise, ignored
PIP_SMALLEST_SHARE = 0.012  # a pip covers at least this share of the face
PIP_ROUNDNESS = 0.91  # 4πA/P² of the mark's hull: a circle gives 1, a stroke far less
PIP_SOLIDITY = 0.7  # the mark fills this much of its hull (its holes filled; a wheel's petals notch its rim)
PIP_ASPECT = (0.7, 1.4)  # width over height of a pip's box
PIPS_ALIKE = 2.5  # every pip within this factor of the median pip's area
OTHER_INK_MOST = 0.25  # ink not in pips, as a share of the pips' own: a drawing or a character beside them
# Layout, in shares of the face: pips in one column or row lie within ROW_TOLERANCE of each other.
ROW_TOLERANCE = 0.12
CENTRED = 0.12  # across for a 2p's pair, both ways for a 5p's centre pip: within this of the face's centre
PAIR_ACROSS = 0.2  # a 2p's circles lie one above the other: at most this far apart across
PAIR_APART = 0.3  # ... and at least this far apart down
PAIR_CENTRED_DOWN = 0.15  # ... their middle within this of the face's centre, down
DIAGONAL_CENTRE = 0.15  # a 3p's middle pip lies within this of the face's centre
DIAGONAL_SPREAD = (0.25, 0.4)  # a 3p's outer pips lie at least this far apart across and down
DIAGONAL_STRAIGHT = 0.1  # ... and the middle pip within this, across, of their midpoint
COUNTED = range(2, 7)  # one circle says nothing of its number; seven or more touch each other
SMOOTHING = 0.5  # added to every count of the table (additive smoothing)


def count_pips(image: np.ndarray, box: np.ndarray | tuple[float, float, float, float]) -> int:
    """The number of circles on the tile boxed by ``box`` (x1, y1, x2, y2) in ``image`` (BGR), or 0
    when the box does not show 2–6 round marks laid out as that many circles are.

    The box is read as it is, without a margin: ink touching its edge is left out, which keeps out
    a circle the box cuts, and the top of a character tile's two characters, blurred into two round
    marks one above the other like a 2p's (with a margin, 720p tables read 萬 tiles as 2p).
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    crop = image[max(0, int(y1)) : min(h, int(np.ceil(y2))), max(0, int(x1)) : min(w, int(np.ceil(x2)))]
    if min(crop.shape[:2]) < SMALLEST_CROP_PX:
        return 0
    if crop.shape[1] > crop.shape[0] * FACE_LONG_SIDE_RATIO:  # lying sideways: turned upright
        crop = np.rot90(crop)
    nearly_square = crop.shape[1] * NEARLY_SQUARE > crop.shape[0]
    for upright in (crop, np.rot90(crop)) if nearly_square else (crop,):
        count = _counted(cv2.resize(np.ascontiguousarray(upright), FACE_PX, interpolation=cv2.INTER_AREA))
        if count:
            return count
    return 0


def _counted(face: np.ndarray) -> int:
    """The count ``face`` shows, ink closed by CLOSE_PX and, where that found a round mark, by WIDER_CLOSE_PX."""
    ink, bright = _ink(face)
    for close_px in (CLOSE_PX, WIDER_CLOSE_PX):
        centres, any_round = _pip_centres(*_face_ink(ink, bright, close_px))
        if len(centres) in COUNTED and _laid_out(centres):
            return len(centres)
        if not any_round:
            return 0
    return 0


def _ink(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ``face`` is inked (255: darker than its ivory, or coloured), and where it is bright."""
    hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV)
    value, saturation = hsv[..., 2].astype(np.float32), hsv[..., 1]
    ivory = np.percentile(value, IVORY_PERCENTILE)
    dark = value < INK_DARKER_THAN * ivory
    coloured = (saturation > INK_SATURATION) & (value < INK_BRIGHTER_LIMIT * ivory)
    return (dark | coloured).astype(np.uint8) * 255, value >= FACE_BRIGHT * ivory


def _face_ink(ink: np.ndarray, bright: np.ndarray, close_px: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The ink of the tile's face in the crop, its gaps closed by ``close_px``, and that face's bounding
    rectangle (x, y, width, height)."""
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((close_px, close_px), np.uint8))  # mends a pip's thin gaps
    region = _face_region(bright, closed)
    if region is None:
        return closed, (0, 0, ink.shape[1], ink.shape[0])
    x, y, width, height = cv2.boundingRect(region)
    return closed & region, (x, y, width, height)


def _face_region(bright: np.ndarray, ink: np.ndarray) -> np.ndarray | None:
    """The tile's face in the crop (255 inside): the hull of its largest bright un-inked region, drawn
    in by ``FACE_INSET_PX``; None when no such region covers ``FACE_SMALLEST`` of the crop."""
    found, labels, stats, _ = cv2.connectedComponentsWithStats((bright & (ink == 0)).astype(np.uint8), connectivity=4)
    if found < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < FACE_SMALLEST * ink.size:
        return None
    outline, _ = cv2.findContours((labels == largest).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    region = np.zeros_like(ink)
    cv2.fillConvexPoly(region, cv2.convexHull(np.vstack(outline)), 255)
    inset = 2 * FACE_INSET_PX + 1
    return cv2.erode(region, np.ones((inset, inset), np.uint8))


def _pip_centres(ink: np.ndarray, face_rect: tuple[int, int, int, int]) -> tuple[list[tuple[float, float]], bool]:
    """Centres of the round, alike marks of ``ink``, in shares of the tile's face ``face_rect`` (none
    when other ink is more than a little), and whether any round mark was found. Marks touching the
    crop's edge belong to the cloth, a neighbour or a cut circle: left out."""
    width, height = ink.shape[1], ink.shape[0]
    face_x, face_y, face_w, face_h = face_rect
    area = face_w * face_h
    contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pips: list[tuple[float, float, float]] = []
    other_ink = 0.0
    for contour in contours:
        ink_area = cv2.contourArea(contour)
        if ink_area < SPECK_SHARE * area:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        if x <= 1 or y <= 1 or x + bw >= width - 1 or y + bh >= height - 1:
            continue
        hull = cv2.convexHull(contour)
        hull_area, hull_perimeter = cv2.contourArea(hull), cv2.arcLength(hull, True)
        roundness = 4 * np.pi * hull_area / max(hull_perimeter**2, 1e-6)
        solidity = ink_area / max(hull_area, 1e-6)
        if (
            roundness > PIP_ROUNDNESS
            and solidity > PIP_SOLIDITY
            and PIP_ASPECT[0] < bw / bh < PIP_ASPECT[1]
            and ink_area > PIP_SMALLEST_SHARE * area
        ):
            pips.append((ink_area, (x + bw / 2 - face_x) / face_w, (y + bh / 2 - face_y) / face_h))
        else:
            other_ink += ink_area
    if not pips:
        return [], False
    areas = np.array([pip[0] for pip in pips])
    median = np.median(areas)
    if (areas < median / PIPS_ALIKE).any() or (areas > median * PIPS_ALIKE).any() or other_ink > OTHER_INK_MOST * areas.sum():
        return [], True
    return [(x, y) for _, x, y in pips], True


def _lines(values: list[float]) -> list[int]:
    """How many of ``values`` fall in each cluster, the values sorted and split where they jump by ROW_TOLERANCE."""
    ordered = sorted(values)
    sizes = [1]
    for before, value in pairwise(ordered):
        if value - before < ROW_TOLERANCE:
            sizes[-1] += 1
        else:
            sizes.append(1)
    return sizes


def _laid_out(centres: list[tuple[float, float]]) -> bool:
    """Whether the pips lie as that many circles do on a tile (upright or upside down)."""
    xs, ys = [x for x, _ in centres], [y for _, y in centres]
    count = len(centres)
    if count == 2:
        centred = abs(sum(xs) / 2 - 0.5) < CENTRED and abs(sum(ys) / 2 - 0.5) < PAIR_CENTRED_DOWN
        return abs(xs[0] - xs[1]) < PAIR_ACROSS and abs(ys[0] - ys[1]) > PAIR_APART and centred
    if count == 3:
        (top_x, top_y), (mid_x, mid_y), (low_x, low_y) = sorted(centres, key=lambda c: c[1])
        return (
            abs(mid_x - 0.5) < DIAGONAL_CENTRE
            and abs(mid_y - 0.5) < DIAGONAL_CENTRE
            and abs(top_x - low_x) > DIAGONAL_SPREAD[0]
            and abs(top_y - low_y) > DIAGONAL_SPREAD[1]
            and abs((top_x + low_x) / 2 - mid_x) < DIAGONAL_STRAIGHT
        )
    if count == 4:
        return _lines(xs) == [2, 2] and _lines(ys) == [2, 2]
    if count == 5:
        centre = min(centres, key=lambda c: (c[0] - 0.5) ** 2 + (c[1] - 0.5) ** 2)
        corners = [c for c in centres if c is not centre]
        at_centre = abs(centre[0] - 0.5) < CENTRED and abs(centre[1] - 0.5) < CENTRED
        return at_centre and _lines([x for x, _ in corners]) == [2, 2] and _lines([y for _, y in corners]) == [2, 2]
    return _lines(xs) == [3, 3] and _lines(ys) == [2, 2, 2]  # six: two columns of three


@dataclass(frozen=True)
class PipCounts:
    """``likelihoods[n]``: for each tile code, how likely a crop of it is to count ``n`` circles."""

    likelihoods: dict[int, np.ndarray]

    @classmethod
    def from_table(cls, counts: dict[str, dict[str, int]]) -> PipCounts:
        """From how many crops of each code gave each count (0: no count claimed). Codes other than
        circles are pooled: their rare claims are noise, not a trait of one code."""
        circles = [code for code in TILE_CODES if code.endswith("p")]
        others = [code for code in TILE_CODES if code not in circles and code in counts]
        others_seen = sum(sum(counts[code].values()) for code in others)
        likelihoods = {}
        for count in COUNTED:
            pooled = (sum(counts[code].get(str(count), 0) for code in others) + SMOOTHING) / max(others_seen, 1)
            row = np.full(len(TILE_CODES), pooled)
            for code in circles:
                seen = counts.get(code, {})
                row[TILE_CODES.index(code)] = (seen.get(str(count), 0) + SMOOTHING) / max(sum(seen.values()), 1)
            likelihoods[count] = row.astype(np.float32)
        return cls(likelihoods)

    @classmethod
    def load(cls, path: Path | str = BUNDLED_PIP_COUNTS) -> PipCounts:
        """The table ``python -m models.pip_counts`` wrote; ``ModelError`` names the file if it is not one."""
        try:
            counts = json.loads(Path(path).read_text(encoding="utf-8"))["counts"]
            table = {code: {str(n): int(seen) for n, seen in by_count.items()} for code, by_count in counts.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            remedy = "make it with python -m models.pip_counts"
            raise ModelError(f"{path}: not a table of circle counts ({error!r}); {remedy}") from error
        return cls.from_table(table)

    def weigh(self, probabilities: np.ndarray, image: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
        """``probabilities`` (n, codes) of the boxes ``xyxy`` in ``image``, each multiplied by the
        likelihood of the circles its crop shows, where it shows a count, and normalised again."""
        weighed = probabilities.copy()
        for row, box in enumerate(np.asarray(xyxy, np.float64)):
            count = count_pips(image, box)
            if count:
                joined = weighed[row] * self.likelihoods[count]
                weighed[row] = joined / joined.sum()
        return weighed
