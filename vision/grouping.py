"""From detections to the winner's layout: concealed row, melds, flowers and the winning tile.

Works in the frame of the hand's own row, so any side of the table and any in-plane
rotation read the same. Perspective is absorbed by measuring gaps in units of the local
tile width. What the picture cannot decide is reported, never guessed silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np

from scoring.tiles import BACK, TILE_CODES, is_flower

from . import notices
from .detections import Detections, overlap_of_smaller
from .notices import Notice

SEGMENT_GAP = 0.32  # a gap wider than this (in tile widths) separates groups in a row
JOIN_GAP = 0.7  # two runs this close (in tile widths; no tile fits between) may be one meld that loose boxes cut
ROW_GAP_LIMIT = 3.2  # segments further apart than this along the row are not one row
NEAR_ROWS = 3.5  # meld rows lie within this many tile heights of the concealed row
MELD_ROW_REACH = 2.0  # rows of melds this close across count towards the row they flank
FLOWER_REACH = 14.0  # flowers count within this many tile widths beyond the hand row's ends
FLOWER_ON_A_TILE = 0.5  # a flower box covering half a surer tile's box, or lying half in it, is a second reading
SIZE_RATIO = 0.62  # tiles smaller than this share of the hand's tiles are background
# The size of a hand tile, as a percentile of all tiles' sizes: the player's own tiles are the
# nearest and biggest, and a high percentile is theirs without one oversized box setting it.
HAND_SIZE_PERCENTILE = 80
LOW_CONFIDENCE = 0.5  # a reading below this is warned of, and a face-down one in the hand row taken for a shadow
# A flower whose likeliest other flower has at least these odds against its reading is warned of, naming
# it: on the benchmark's 180 real-tile scenes, 22 of the 29 misread flowers and 32 of the 236 read right.
UNSURE_FLOWER_ODDS = 0.4
# A tile of the hand (a flower: one read at under ``LOW_CONFIDENCE``) whose likeliest other reading has
# at least these odds against it is warned of, naming that reading. On the 1,200 other seeds of the
# real-tile benchmark, of the tiles other than flowers it names 164 of the 330 misread for 1,016
# warnings, where a confidence under ``LOW_CONFIDENCE`` named 137 for 1,524.
UNSURE_TILE_ODDS = 0.3
SIMILAR_SIZE = 0.7  # neighbours at least this share of each other's size set the row's direction
SAME_ROW = 0.45  # centres closer than this many tile heights across the row share a row
MELD_ROW_SHARE = 0.3  # a row that splits wholly into melds counts this share towards being the hand
MELD_CHECKS_KEPT = 4096  # groups of three codes whose one-tile-off meld check is remembered
BESIDE_MELD_SHARE = 0.5  # meld rows beside a row add this share of their mass to it
ALIGNED = 0.5  # a tile off the hand row by less than this many tile heights lies in line with it
WINNER_REACH = 4  # a lone tile within this many tile widths of the hand's end may be the winning tile
WINNING_HAND_TILES = 17  # Taiwan: 16 in hand and the winning tile
TILES_PER_MELD = 3  # a kong's fourth tile is drawn again, so it counts as three
MELD_LESS_ONE = 2  # a meld of three with one tile read as a flower at its end leaves this many


@dataclass
class TileGroup:
    role: str  # concealed, meld, winning, flower, background
    kind: str | None  # for melds: chow, pung, kong, concealed_kong; None otherwise
    ids: list[int]  # detection indices, in row order
    codes: list[str]
    confidence: list[float]

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "kind": self.kind,
            "tiles": self.codes,
            "detections": self.ids,
            "confidence": [round(c, 3) for c in self.confidence],
        }


@dataclass
class Layout:
    groups: list[TileGroup]
    warnings: list[Notice] = field(default_factory=list)
    winning_candidates: list[int] = field(default_factory=list)  # detection ids
    # Tiles the hand did not take, read as no flower, in a run of flowers: flowers misread, most likely
    # (``taicam.pipeline.photo.read_suspected_flowers`` asks the flower reader about them).
    flower_strays: list[int] = field(default_factory=list)  # detection ids
    # Tiles read as flowers inside a run of other hand-sized tiles: tiles of the run misread, most likely
    # (``taicam.pipeline.photo.read_suspected_tiles`` asks the crop classifier which tile each is).
    flowers_in_runs: list[int] = field(default_factory=list)  # detection ids

    def hand_fields(self) -> dict[str, Any]:
        """The tile fields of the hand JSON: concealed, melds, flowers, winning_tile."""
        concealed = [c for g in self.groups if g.role == "concealed" for c in g.codes]
        winning = next((g.codes[0] for g in self.groups if g.role == "winning"), None)
        melds = [{"kind": g.kind, "tiles": g.codes} for g in self.groups if g.role == "meld"]
        flowers = [c for g in self.groups if g.role == "flower" for c in g.codes]
        return {"concealed": concealed, "melds": melds, "flowers": flowers, "winning_tile": winning}


def _row_angle(centres: np.ndarray, sizes: np.ndarray) -> float:
    """The dominant direction between nearest neighbours of similar size (radians, mod π)."""
    n = len(centres)
    if n < 2:
        return 0.0
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    similar = np.minimum(sizes[:, None], sizes[None, :]) / np.maximum(sizes[:, None], sizes[None, :]) > SIMILAR_SIZE
    dist = np.where(similar & ~np.eye(n, dtype=bool), dist, np.inf)
    nearest = dist.argmin(axis=1)
    ok = np.isfinite(dist[np.arange(n), nearest])
    if not ok.any():
        return 0.0
    vectors = diff[np.arange(n), nearest][ok]
    angles = np.arctan2(vectors[:, 1], vectors[:, 0])
    # Average on the doubled circle so θ and θ+π agree; weight big tiles (the hand) more.
    weights = sizes[ok]
    doubled = np.arctan2((weights * np.sin(2 * angles)).sum(), (weights * np.cos(2 * angles)).sum())
    return float(doubled / 2)


def _extent_along(box: np.ndarray, angle: float) -> tuple[float, float]:
    """Extent of an axis-aligned box along the row axis and across it."""
    w, h = box[2] - box[0], box[3] - box[1]
    c, s = abs(np.cos(angle)), abs(np.sin(angle))
    # An axis-aligned box of a rotated tile overstates both; the smaller reading is closer.
    along = min(w * c + h * s, max(w, h))
    across = min(w * s + h * c, max(w, h))
    return along, across


def _segments(order: list[int], x: np.ndarray, pitch: float) -> list[list[int]]:
    """Split a row (sorted by x) where neighbours sit further apart than the row's pitch allows.

    Centre spacing is compared with the pitch of touching tiles: box extents of rotated
    tiles overstate their width, spacing does not.
    """
    segments: list[list[int]] = [[order[0]]]
    for prev, cur in pairwise(order):
        gap = (x[cur] - x[prev]) - pitch
        if gap > SEGMENT_GAP * pitch:
            segments.append([cur])
        else:
            segments[-1].append(cur)
    return segments


def meld_kind(codes: list[str]) -> str | None:
    """The meld a run of tiles forms, or None. Face-down tiles make a concealed kong."""
    faces = [c for c in codes if c != BACK]
    if len(codes) == 4:
        if BACK in codes and faces and len(set(faces)) == 1:
            return "concealed_kong"
        if not faces:
            return "concealed_kong"  # all four face down: the kind is unknown, warned later
        return "kong" if len(set(faces)) == 1 else None
    if len(codes) != 3 or BACK in codes:
        return None
    if len(set(codes)) == 1:
        return "pung"
    if any(c[1] == "z" or is_flower(c) for c in codes) or len({c[1] for c in codes}) != 1:
        return None
    numbers = sorted(int(c[0]) for c in codes)
    return "chow" if numbers == [numbers[0], numbers[0] + 1, numbers[0] + 2] else None


def split_melds(ids: list[int], codes: list[str], gaps: list[float]) -> list[list[int]] | None:
    """Partition a run into valid melds of 3 or 4 tiles, preferring cuts at wide gaps."""
    n = len(ids)
    best: dict[int, tuple[float, list[list[int]]]] = {0: (0.0, [])}
    for end in range(1, n + 1):
        for size in (3, 4):
            start = end - size
            if start not in best or meld_kind(codes[start:end]) is None:
                continue
            prev_score, prev_groups = best[start]
            cut_bonus = gaps[start - 1] if start > 0 else 0.0
            candidate = (prev_score + cut_bonus, [*prev_groups, ids[start:end]])
            if end not in best or candidate[0] > best[end][0]:
                best[end] = candidate
    return best[n][1] if n in best else None


def _pick_hand_row(
    rows: list[list[int]], codes: list[str], confidence: np.ndarray, xy: np.ndarray, sizes: np.ndarray, tall: float
) -> list[int]:
    """The concealed row: the winner's own face-up tiles are many and nearest the camera (largest).

    Walls (face down) and flowers do not count; a row that splits wholly into melds is
    more likely the melds than the concealed hand, so it counts less. A surely face-down tile
    stays in that split: a concealed kong shows its backs, a player's concealed tiles none.
    So does a row that splits so with one tile of a pung or chow read as another code: one misread
    tile of a meld would make the row of melds the hand (``_splits_into_melds``).
    Rows of melds lying just beside a row count for it: a short concealed row with four melds
    beside it is the winner's, not a longer row of discards further off.
    """
    own, meld_mass, centre = [], [], []
    for row in rows:
        ordered = sorted(row, key=lambda i: xy[i, 0])
        faces = [i for i in ordered if not is_flower(codes[i]) and codes[i] != BACK]
        melds = [i for i in ordered if not is_flower(codes[i]) and (codes[i] != BACK or confidence[i] >= LOW_CONFIDENCE)]
        meld_like = len(faces) >= 3 and _splits_into_melds([codes[i] for i in melds])
        mass = float((sizes[faces] ** 2).sum())
        own.append(mass * (MELD_ROW_SHARE if meld_like else 1.0))
        meld_mass.append(mass if meld_like and len(faces) % 3 == 0 else 0.0)
        centre.append(float(np.median(xy[row, 1])))
    centres = np.array(centre)
    scores = []
    for k in range(len(rows)):
        beside = np.flatnonzero(np.abs(centres - centre[k]) <= MELD_ROW_REACH * tall)
        scores.append(own[k] + BESIDE_MELD_SHARE * sum(meld_mass[j] for j in beside if j != k))
    return rows[int(np.argmax(scores))]


def _splits_into_melds(run: list[str]) -> bool:
    """Whether the codes of ``run``, in row order, split wholly into melds with at most one tile of a
    pung or chow read as another code: a meld misread in one tile is still a meld of the row.

    Not a kong's: a concealed row is melds and one tile more (its pair's half, the winning tile set
    apart), so it splits into groups of three and four only with a kong among them, and its single
    tile beside a pung would pass for a kong's fourth tile misread."""
    reached = {(0, False)}  # (tiles split, a tile changed)
    for end in range(3, len(run) + 1):
        for size in (3, 4):
            start, group = end - size, run[end - size : end]
            if start < 0:
                continue
            if meld_kind(group) is not None:
                reached |= {(end, changed) for changed in (False, True) if (start, changed) in reached}
            elif size == 3 and (start, False) in reached and _a_meld_but_one(tuple(group)):
                reached.add((end, True))
    return (len(run), False) in reached or (len(run), True) in reached


@lru_cache(maxsize=MELD_CHECKS_KEPT)  # the whole-hand repair groups the same rows again many times
def _a_meld_but_one(group: tuple[str, ...]) -> bool:
    """Whether ``group`` (three tiles) becomes a meld when one of its tiles is read as a code the others
    suggest: the others' own code, or a neighbour of it in its suit (chows)."""
    for k in range(len(group)):
        others = [*group[:k], *group[k + 1 :]]
        fillers = {code for other in others for code in _same_or_neighbours(other)}
        if any(meld_kind([*others, code]) is not None for code in fillers):  # order makes no meld of three
            return True
    return False


def _same_or_neighbours(code: str) -> list[str]:
    """``code``, and the tiles of its suit one or two numbers from it (none for honours and flowers)."""
    if code == BACK or is_flower(code):
        return []
    if code[1] == "z":
        return [code]
    number = int(code[0])
    return [f"{n}{code[1]}" for n in range(number - 2, number + 3) if 1 <= n <= 9]


@dataclass
class _HandFrame:
    """The detections measured in the frame of the hand's own row (x along it, y across it)."""

    xy: np.ndarray  # (n, 2) centres, turned so the rows run along x
    along: np.ndarray  # (n,) extent along the row
    across: np.ndarray  # (n,) extent across it
    sizes: np.ndarray  # (n,) square root of each box's area
    big: np.ndarray  # (n,) hand-sized: not a far-off tile of another player's
    rows: list[list[int]]  # tiles linked into rows, in order of their first tile
    row_of: list[list[int]]  # each tile's row (the same list objects as in ``rows``)
    main: list[int]  # the hand row
    unit: float  # the pitch of touching tiles in the hand row
    tall: float  # a hand tile's long side
    row_y: float  # the hand row's place across

    @classmethod
    def measure(cls, detections: Detections, codes: list[str]) -> _HandFrame:
        boxes = detections.xyxy.astype(np.float64)
        centres, sizes = detections.centres, detections.sizes
        angle = _row_angle(centres, sizes)
        rot = np.array([[np.cos(-angle), -np.sin(-angle)], [np.sin(-angle), np.cos(-angle)]])
        xy = centres @ rot.T
        extents = np.array([_extent_along(b, angle) for b in boxes])
        along, across = extents[:, 0], extents[:, 1]
        big = sizes >= SIZE_RATIO * np.percentile(sizes, HAND_SIZE_PERCENTILE)
        rows, row_of = _link_rows(xy, along, across, big)
        # The biggest row of big tiles is the hand.
        candidates = [r for r in rows if big[r[0]]] or list(rows)
        main = _pick_hand_row(candidates, codes, detections.confidence, xy, sizes, float(np.median(np.maximum(along, across))))
        spacing = np.diff(np.sort(xy[main, 0]))
        # The pitch of touching tiles: the lower half of spacings, so gaps do not inflate it.
        unit = float(np.median(spacing[spacing <= np.median(spacing)])) if len(spacing) else float(along[main[0]])
        tall = float(np.median([max(along[i], across[i]) for i in main]))
        return cls(xy, along, across, sizes, big, rows, row_of, main, unit, tall, float(np.median(xy[main, 1])))


def _link_rows(
    xy: np.ndarray, along: np.ndarray, across: np.ndarray, big: np.ndarray
) -> tuple[list[list[int]], list[list[int]]]:
    """Rows: tiles of one size class at the same height whose gap is small, linked (union-find).

    Returns the rows and each tile's row.
    """
    n = len(xy)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    height = np.maximum(across[:, None], across[None, :])
    width = np.minimum(along[:, None], along[None, :])
    gap = np.abs(xy[:, None, 0] - xy[None, :, 0]) - (along[:, None] + along[None, :]) / 2
    same_row = (np.abs(xy[:, None, 1] - xy[None, :, 1]) < SAME_ROW * height) & (gap < ROW_GAP_LIMIT * width)
    for i, j in zip(*np.nonzero(np.triu(same_row & (big[:, None] == big[None, :]), 1)), strict=True):
        parent[find(int(i))] = find(int(j))
    rows: dict[int, list[int]] = {}
    for i in range(n):
        rows.setdefault(find(i), []).append(i)
    return list(rows.values()), [rows[find(i)] for i in range(n)]


class _LayoutBuilder:
    """The groups found so far, and the tiles they hold."""

    def __init__(self, detections: Detections, codes: list[str]):
        self.detections = detections
        self.codes = codes
        self.groups: list[TileGroup] = []
        self.warnings: list[Notice] = []
        self.used: set[int] = set()

    def add(self, role: str, kind: str | None, ids: list[int], as_codes: list[str] | None = None) -> None:
        confidence = [float(self.detections.confidence[i]) for i in ids]
        self.groups.append(TileGroup(role, kind, ids, as_codes or [self.codes[i] for i in ids], confidence))
        self.used.update(ids)


def group_tiles(detections: Detections) -> Layout:
    """Group detections into the winner's layout. Background tiles become one group."""
    n = len(detections)
    codes = detections.codes
    if n == 0:
        return Layout([], [Notice(notices.NO_TILES)])
    frame = _HandFrame.measure(detections, codes)
    built = _LayoutBuilder(detections, codes)
    # A flower box lying on a surer tile's box joins the background: no flower, nor a tile of the hand's.
    second_readings = _flowers_on_surer_tiles(detections, codes)
    built.used.update(second_readings)
    _add_flowers(built, frame)
    concealed, meld_runs, lone = _split_hand_row(built, frame)
    if concealed:
        lone += _lone_tiles_in_line(built, frame, concealed)
    winning_candidates: list[int] = []
    if lone:
        concealed, winning_candidates = _set_winning_tile(built, frame, concealed, lone)
    meld_runs += _meld_rows_nearby(built, frame)
    for run in _join_broken_runs(meld_runs, codes, frame):
        _add_melds(built, frame, run)
    face_down = [i for i in concealed if codes[i] == BACK]
    if face_down:
        built.warnings.append(Notice(notices.FACE_DOWN_IN_HAND, {"count": len(face_down), "detections": face_down}))
        concealed = [i for i in concealed if codes[i] != BACK]
    if concealed:
        built.add("concealed", None, concealed)
    strays = _strays_among_flowers(built, frame)
    background = [i for i in range(n) if i not in built.used or i in second_readings]
    if background:
        built.add("background", None, background)

    _check_counts(built.groups, detections, built.warnings)
    return Layout(built.groups, built.warnings, winning_candidates, strays, _flowers_inside_runs(codes, frame, second_readings))


def row_gaps(detections: Detections, fewest: float, most: float) -> list[tuple[int, int]]:
    """Neighbours in the hand row whose centres lie ``fewest`` to ``most`` pitches apart, in row order.

    A tile the detector missed leaves its neighbours two pitches apart; so does the gap that sets
    the winning tile apart, or a meld: what lies between them decides (``vision.photo.read_row_gaps``).
    """
    if len(detections) < 2:
        return []
    frame = _HandFrame.measure(detections, detections.codes)
    order = sorted(frame.main, key=lambda i: frame.xy[i, 0])
    spacing = np.diff(frame.xy[order, 0]) / max(frame.unit, 1e-6)
    return [(a, b) for a, b, gap in zip(order, order[1:], spacing, strict=False) if fewest <= gap <= most]


def _add_flowers(built: _LayoutBuilder, frame: _HandFrame) -> None:
    """Flowers near the hand are set apart by role, wherever they lie.

    The hand spans its row and the big tiles beside it: a short concealed row has its melds there.
    """
    codes, xy, main = built.codes, frame.xy, frame.main
    near = NEAR_ROWS * frame.tall
    beside = [i for i in range(len(codes)) if frame.big[i] and abs(xy[i, 1] - frame.row_y) <= near and codes[i] != BACK]
    x_low, x_high = xy[[*main, *beside], 0].min(), xy[[*main, *beside], 0].max()
    for i in range(len(codes)):
        if i not in built.used and is_flower(codes[i]) and frame.sizes[i] >= SIZE_RATIO * np.median(frame.sizes[main]):
            dx = max(x_low - xy[i, 0], 0.0, xy[i, 0] - x_high)
            if dx <= FLOWER_REACH * frame.unit and abs(xy[i, 1] - frame.row_y) <= near:
                built.add("flower", None, [i])


def _flowers_on_surer_tiles(detections: Detections, codes: list[str]) -> set[int]:
    """Flower readings lying on the box of another tile read more surely (``FLOWER_ON_A_TILE``).

    Players lay flowers apart, so such a box is a second, unsure look at that tile: on 1,200
    real-tile scenes it took 3 boxes from the hands' flowers, none a flower (models/README.md,
    thirteenth round). Lower overlaps also take a hand tile's own box read as a flower, which the
    whole-hand repair, which leaves the background out, would have named again.
    """
    flowers = [i for i, code in enumerate(codes) if is_flower(code)]
    others = [i for i, code in enumerate(codes) if not is_flower(code)]
    if not flowers or not others:
        return set()
    boxes, confidence = detections.xyxy, detections.confidence
    overlap = overlap_of_smaller(boxes[flowers], boxes[others])
    most = overlap.argmax(axis=1)
    return {
        flower
        for k, flower in enumerate(flowers)
        if overlap[k, most[k]] >= FLOWER_ON_A_TILE and confidence[others[most[k]]] > confidence[flower]
    }


def _flowers_inside_runs(codes: list[str], frame: _HandFrame, second_readings: set[int]) -> list[int]:
    """Tiles read as flowers, in a row of hand-sized tiles, that fill a slot of a run of tiles read as
    no flower: one such tile a pitch away (within ``SEGMENT_GAP``) on each side, or, at a run's end,
    ``MELD_LESS_ONE`` of them on one side and none on the other. Flower boxes lying on a surer tile
    (``second_readings``) are no tile of their own.

    Players lay their flowers out apart from the hand and the melds, so such a tile is a tile of the
    run the readers took for a flower: taken as one, it would cut the concealed row or a meld in two.
    """
    inside: list[int] = []
    for row in frame.rows:
        if not frame.big[row[0]]:
            continue
        order = sorted(row, key=lambda i: frame.xy[i, 0])
        touching = [bool(abs(p - 1) <= SEGMENT_GAP) for p in np.diff(frame.xy[order, 0]) / max(frame.unit, 1e-6)]
        tiles = [not is_flower(codes[i]) for i in order]
        for k, tile in enumerate(order):
            if tiles[k] or tile in second_readings:
                continue
            left, right = _run_beside(tiles, touching, k, -1), _run_beside(tiles, touching, k, 1)
            lone_left = k == 0 or not touching[k - 1]
            lone_right = k == len(order) - 1 or not touching[k]
            if (left and right) or (left == MELD_LESS_ONE and lone_right) or (right == MELD_LESS_ONE and lone_left):
                inside.append(tile)
    return inside


def _run_beside(tiles: list[bool], touching: list[bool], k: int, step: int) -> int:
    """How many of a row's ``tiles`` (True: read as no flower) follow slot ``k`` one pitch apart, towards
    ``step`` (-1 or 1); ``touching[j]`` says whether slots j and j + 1 lie a pitch apart."""
    count = 0
    while 0 <= k + step < len(tiles) and touching[min(k, k + step)] and tiles[k + step]:
        count, k = count + 1, k + step
    return count


def _strays_among_flowers(built: _LayoutBuilder, frame: _HandFrame) -> list[int]:
    """Tiles read as no flower, not taken by the hand or its melds, that touch flowers in a run of
    their own holding as many flowers as such tiles or more.

    Players lay their flowers out apart from the hand and the melds, so such a tile is a flower the
    readers took for another tile (the 1s bird and a painted flower are read for each other).
    """
    flowers = {i for g in built.groups if g.role == "flower" for i in g.ids}
    held_by_hand = {i for g in built.groups if g.role not in ("flower", "background") for i in g.ids}
    strays: list[int] = []
    for row in frame.rows:
        if flowers.isdisjoint(row):
            continue
        order = sorted(row, key=lambda i: frame.xy[i, 0])
        for segment in _segments(order, frame.xy[:, 0], frame.unit):
            held = sum(i in flowers for i in segment)
            others = [i for i in segment if not is_flower(built.codes[i])]
            if held and len(others) <= held and all(i not in held_by_hand and built.codes[i] != BACK for i in others):
                strays += others
    return strays


def _split_hand_row(built: _LayoutBuilder, frame: _HandFrame) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """The hand row's segments: the longest is the concealed hand, a lone tile may be the winning tile,
    the rest are melds. Returns (concealed, meld runs, lone tiles).

    A player's concealed tiles face up: an unsure face-down reading in the row is more likely
    the shadow in a gap, and counting it would close the gap that sets the winning tile apart.
    """
    codes, confidence = built.codes, built.detections.confidence
    shadow = {i for i in frame.main if codes[i] == BACK and confidence[i] < LOW_CONFIDENCE}
    main_order = sorted((i for i in frame.main if i not in built.used and i not in shadow), key=lambda i: frame.xy[i, 0])
    segments = _segments(main_order, frame.xy[:, 0], frame.unit) if main_order else []
    meld_runs: list[list[int]] = []
    lone: list[list[int]] = []
    if not segments:
        return [], meld_runs, lone
    concealed = max(segments, key=len)
    for segment in segments:
        if segment is concealed:
            continue
        (lone if len(segment) == 1 else meld_runs).append(segment)
    return concealed, meld_runs, lone


def _lone_tiles_in_line(built: _LayoutBuilder, frame: _HandFrame, concealed: list[int]) -> list[list[int]]:
    """Tiles alone in their row, in line with the hand row and near one of its ends: set apart to win."""
    xy, codes = frame.xy, built.codes
    ends = (xy[concealed[0], 0], xy[concealed[-1], 0])
    lone = []
    for i in range(len(codes)):
        if i in built.used or i in frame.main or not frame.big[i] or codes[i] == BACK:
            continue
        aligned = abs(xy[i, 1] - frame.row_y) < ALIGNED * frame.tall
        near_end = min(abs(xy[i, 0] - ends[0]), abs(xy[i, 0] - ends[1])) < WINNER_REACH * frame.unit
        if aligned and near_end and frame.row_of[i] is not frame.main and len(frame.row_of[i]) == 1:
            lone.append([i])
    return lone


def _set_winning_tile(
    built: _LayoutBuilder, frame: _HandFrame, concealed: list[int], lone: list[list[int]]
) -> tuple[list[int], list[int]]:
    """The lone tile nearest the concealed row's end wins; a second one is warned of and joins the hand.

    Returns the concealed tiles and the winning candidates.
    """
    xy, codes = frame.xy, built.codes

    def distance(seg: list[int]) -> float:
        return min(abs(xy[seg[0], 0] - xy[concealed[0], 0]), abs(xy[seg[0], 0] - xy[concealed[-1], 0]))

    lone.sort(key=distance)
    built.add("winning", None, lone[0])
    if len(lone) > 1:
        pair = [seg[0] for seg in lone[:2]]
        built.warnings.append(Notice(notices.TWO_WINNING_CANDIDATES, {"tiles": [codes[i] for i in pair], "detections": pair}))
        for seg in lone[1:]:
            concealed = sorted([*concealed, *seg], key=lambda i: xy[i, 0])
    return concealed, [seg[0] for seg in lone]


def _meld_rows_nearby(built: _LayoutBuilder, frame: _HandFrame) -> list[list[int]]:
    """Other rows of hand-sized tiles close to the hand hold the melds: their runs."""
    runs: list[list[int]] = []
    for row in frame.rows:
        if row is frame.main or not frame.big[row[0]]:
            continue
        if abs(float(np.median(frame.xy[row, 1])) - frame.row_y) > NEAR_ROWS * frame.tall:
            continue
        order = sorted((i for i in row if i not in built.used), key=lambda i: frame.xy[i, 0])
        if order:
            runs.extend(_segments(order, frame.xy[:, 0], frame.unit))
    return runs


def _join_broken_runs(runs: list[list[int]], codes: list[str], frame: _HandFrame) -> list[list[int]]:
    """Neighbouring runs of one row that form no meld apart but do together, joined.

    The boxes of a turned tile are loose, so their centres stray along the row: a kong's four
    can measure a gap between its second and third that splits it in two runs of two.
    """
    joined: list[list[int]] = []
    for run in runs:
        if joined and _one_broken_meld(joined[-1], run, codes, frame):
            joined[-1] = [*joined[-1], *run]
        else:
            joined.append(run)
    return joined


def _one_broken_meld(left: list[int], right: list[int], codes: list[str], frame: _HandFrame) -> bool:
    gap = (frame.xy[right[0], 0] - frame.xy[left[-1], 0]) / frame.unit - 1
    across = abs(frame.xy[right[0], 1] - frame.xy[left[-1], 1])
    if not 0 <= gap <= JOIN_GAP or across > SAME_ROW * frame.tall:
        return False
    return not _forms_melds(left, codes) and not _forms_melds(right, codes) and _forms_melds([*left, *right], codes)


def _forms_melds(run: list[int], codes: list[str]) -> bool:
    return split_melds(run, [codes[i] for i in run], [0.0] * (len(run) - 1)) is not None


def _add_melds(built: _LayoutBuilder, frame: _HandFrame, run: list[int]) -> None:
    """A run of tiles split into melds at its widest gaps; a run that splits into none is background."""
    codes = built.codes
    run_codes = [codes[i] for i in run]
    gaps = [(frame.xy[b, 0] - frame.xy[a, 0]) / frame.unit - 1 for a, b in pairwise(run)]
    parts = split_melds(run, run_codes, gaps)
    if parts is None:
        built.warnings.append(Notice(notices.NO_MELD, {"tiles": run_codes, "detections": list(run)}))
        built.add("background", None, run)
        return
    for part in parts:
        kind = meld_kind([codes[i] for i in part])
        face = [codes[i] for i in part if codes[i] != BACK]
        if kind == "concealed_kong" and not face:
            built.warnings.append(Notice(notices.FACELESS_KONG, {"detections": list(part)}))
        if kind == "concealed_kong" and face:
            built.add("meld", kind, part, [face[0]] * 4)  # face-down tiles stand for the kong's tile
        else:
            built.add("meld", kind, part)


def _runner_up(
    detections: Detections, i: int, odds_floor: float, among: Callable[[str], bool] = lambda code: True
) -> str | None:
    """The code read next likeliest for tile ``i`` among the codes ``among`` takes, when its odds against
    the reading are at least ``odds_floor``: the player is asked to look, and the page offers that code first.

    Flowers differ only in a small numeral and character, and a misread flower still makes a legal
    hand that no repair questions; a tile misread as another also often makes one.
    """
    if detections.other_class_ids is None or detections.other_confidences is None:
        return None
    reading = int(detections.class_id[i])
    for code_id, confidence in zip(detections.other_class_ids[i], detections.other_confidences[i], strict=True):
        code = TILE_CODES[int(code_id)]
        if int(code_id) != reading and confidence > 0 and among(code):  # the others run likeliest first
            odds = confidence / max(float(detections.confidence[i]), 1e-9)
            return code if odds >= odds_floor else None
    return None


def hand_tiles_seen(groups: list[TileGroup]) -> int:
    """The tiles the player's groups hold, as a winning hand counts them (a meld as three)."""
    concealed = sum(len(g.ids) for g in groups if g.role in ("concealed", "winning"))
    return concealed + TILES_PER_MELD * sum(g.role == "meld" for g in groups)


def _check_counts(groups: list[TileGroup], detections: Detections, warnings: list[Notice]) -> None:
    winning = sum(len(g.ids) for g in groups if g.role == "winning")
    seen = hand_tiles_seen(groups)
    if seen != WINNING_HAND_TILES:
        warnings.append(Notice(notices.TILE_COUNT, {"expected": WINNING_HAND_TILES, "seen": seen}))
    if not winning:
        warnings.append(Notice(notices.NOTHING_SET_APART))
    hand_codes = Counter(c for g in groups if g.role in ("concealed", "winning", "meld") for c in g.codes if c != BACK)
    for code, count in hand_codes.items():
        if count > 4 and not is_flower(code):
            ids = [
                i
                for g in groups
                if g.role in ("concealed", "winning", "meld")
                for i, c in zip(g.ids, g.codes, strict=True)
                if c == code
            ]
            warnings.append(Notice(notices.OVER_FOUR_COPIES, {"tile": code, "count": count, "detections": ids}))
    for g in groups:
        if g.role == "background":
            continue
        for i in g.ids:
            tile = TILE_CODES[int(detections.class_id[i])]
            # Naming the other flower says more than a low confidence, which a flower's often is.
            if g.role == "flower" and (other := _runner_up(detections, i, UNSURE_FLOWER_ODDS, is_flower)) is not None:
                warnings.append(Notice(notices.UNSURE_FLOWER, {"tile": tile, "other": other, "detections": [i]}))
                continue
            unsure = detections.confidence[i] < LOW_CONFIDENCE
            params = {"tile": tile, "confidence": round(float(detections.confidence[i]), 2), "detections": [i]}
            if detections.other_class_ids is None:  # no other reading to weigh: the confidence is all there is
                if unsure:
                    warnings.append(Notice(notices.LOW_CONFIDENCE_TILE, params))
            # A tile's odds against its next reading tell a misread from a right one better than its
            # confidence does; a flower's confidence is that it is a flower at all, asked about when low.
            elif (g.role != "flower" or unsure) and (other := _runner_up(detections, i, UNSURE_TILE_ODDS)) is not None:
                warnings.append(Notice(notices.UNSURE_TILE, {**params, "other": other}))
