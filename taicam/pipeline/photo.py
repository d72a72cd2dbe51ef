"""Photo to score: detection → grouping → ``Hand`` → ``ScoreResult``, typed from end to end.

``score_photo`` is what ``taicam score`` and ``POST /v1/score`` call; live mode (``live.py``) calls it
on the frame the table has held still on. The scoring core is called
directly (``parse_hand``, ``score``); JSON is made only by ``PhotoScore.to_json``.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace

import numpy as np

from scoring.api import waiting_tiles
from scoring.errors import ErrorCode
from scoring.evaluate import ScoreResult, score
from scoring.hand import Hand, HandError, Meld, parse_hand
from scoring.tiles import PLAYING_TILES, TILE_CODES, is_flower
from vision import notices
from vision.detections import SEARCHED_READINGS, Detections
from vision.detector import DEFAULT_CONF, TileDetector
from vision.grouping import Layout, TileGroup, group_tiles, meld_kind
from vision.notices import Notice
from vision.photo import detect_photo

from .contract import (
    Alternative,
    HandTiles,
    PhotoRequestError,
    PhotoScore,
    Recognition,
    ScoreRequest,
)


def score_photo(detector: TileDetector, image: np.ndarray, request: ScoreRequest, conf: float = DEFAULT_CONF) -> PhotoScore:
    """Read ``image``, read the hand as a whole when its tiles make no legal hand, and score it.

    Raises ``PhotoRequestError`` when a correction or the named winning tile does not fit the photo;
    a hand the scoring core refuses is a ``PhotoScore`` with its ``error``, not an exception.
    """
    recognition = recognise(detector, image, conf, request.corrections)
    return score_recognition(repair(recognition, request), request)


def recognise(
    detector: TileDetector,
    image: np.ndarray,
    conf: float = DEFAULT_CONF,
    corrections: Mapping[int, str] | None = None,
) -> Recognition:
    """Detect and group. ``corrections`` maps detection ids to the codes a person chose."""
    start = time.perf_counter()
    detections = detect_photo(detector, image, conf=conf, focus="hand")
    for index, code in (corrections or {}).items():
        if not 0 <= index < len(detections):
            raise PhotoRequestError(
                ErrorCode.BAD_CORRECTION, f"correction for detection {index}, but only {len(detections)} were found"
            )
        if code not in TILE_CODES:
            raise PhotoRequestError(ErrorCode.BAD_CORRECTION, f"correction {code!r} is not a tile code")
        detections = detections.as_chosen(index, TILE_CODES.index(code))
    layout = group_tiles(detections)
    in_runs = [i for i in layout.flowers_in_runs if i not in (corrections or {})]
    if in_runs:
        detections, layout = read_suspected_tiles(detector, image, detections, in_runs)
    suspects = {i: notices.READ_AS_FLOWER for i in layout.flower_strays}
    suspects |= {i: notices.READ_AS_LONE_FLOWER for i in alone_where_a_flower_was_seen(layout, detections)}
    suspects = {i: why for i, why in suspects.items() if i not in (corrections or {})}
    if suspects:
        detections, layout = read_suspected_flowers(detector, image, detections, suspects)
    return Recognition(detections, layout, (time.perf_counter() - start) * 1000)


def alone_where_a_flower_was_seen(layout: Layout, detections: Detections) -> list[int]:
    """Tiles read as no flower, each a run of its own that formed no meld, whose box the detector's
    first look scored as a flower (``Detections.flower_scores``, ``ALONE_FLOWER_SCORE`` or more).

    A flower laid apart that the readers took for another tile (4f for the 1s bird, 3f for 1z) is
    such a run; so is many a discard, but the detector's own flower classes seldom score those."""
    if detections.flower_scores is None:
        return []
    runs = [w.params["detections"] for w in layout.warnings if w.code == notices.NO_MELD]
    scores, codes = detections.flower_scores, detections.codes
    return [run[0] for run in runs if len(run) == 1 and not is_flower(codes[run[0]]) and scores[run[0]] >= ALONE_FLOWER_SCORE]


def read_suspected_flowers(
    detector: TileDetector, image: np.ndarray, detections: Detections, suspects: Mapping[int, str], second_look: bool = True
) -> tuple[Detections, Layout]:
    """Tiles read as no flower that lie where a flower would (``suspects``: each id and the notice
    that says why), read as the flowers the flower reader finds them to be, and grouped again; each
    change is a warning. Live video, whose frames vote, reads each crop once (``second_look=False``)."""
    ids = sorted(suspects)
    return _regrouped(detections, detector.read_as_flowers(image, detections, ids, second_look), suspects)


def read_suspected_tiles(
    detector: TileDetector, image: np.ndarray, detections: Detections, ids: list[int], second_look: bool = True
) -> tuple[Detections, Layout]:
    """Tiles read as flowers inside a run of other tiles (``Layout.flowers_in_runs``), read as the
    tiles the crop classifier finds them to be, and grouped again; each change is a warning."""
    read = detector.read_as_tiles(image, detections, sorted(ids), second_look)
    return _regrouped(detections, read, dict.fromkeys(ids, notices.READ_AS_TILE))


def _regrouped(detections: Detections, read: Detections, why: Mapping[int, str]) -> tuple[Detections, Layout]:
    """``read`` grouped, with a warning first for each tile of ``why`` (id → notice) it reads otherwise."""
    layout = group_tiles(read)
    for index in sorted(why, reverse=True):
        old, new = TILE_CODES[int(detections.class_id[index])], TILE_CODES[int(read.class_id[index])]
        if old != new:
            layout.warnings.insert(0, Notice(why[index], {"tile": new, "old": old, "detections": [index]}))
    return read, layout


# A lone tile whose box the detector's first look scored this much as a flower is read as one. On
# 1,200 real-tile scenes from val crops outside the benchmark's seeds (bench/real_scenes.py's scenes,
# seeds 100–999 and 2000–2299) 31 such runs were flowers and 940 other tiles, mostly discards: at 0.1
# 5 more hands read exactly and none fewer; 0.05 +7 and −3, 0.02 +9 and −6; the benchmark's 120 as before.
ALONE_FLOWER_SCORE = 0.1
EARLIER_READS = frozenset({notices.READ_AS_FLOWER, notices.READ_AS_LONE_FLOWER, notices.READ_AS_TILE})

# The errors a second reading of a tile may cure; any other (a bad option, say) it cannot. A tile
# misread in a meld leaves its run no meld, and the hand three tiles short: on the real-tile scenes
# repairing that count read 33 / 31 of 60 hands exactly instead of 32 / 30 (bench/real_scenes.py).
REPAIRABLE = frozenset(
    {
        ErrorCode.NOT_WINNING, ErrorCode.TOO_MANY_COPIES, ErrorCode.DUPLICATE_FLOWER, ErrorCode.NO_WINNING_TILE,
        ErrorCode.TILE_COUNT,
    }
)  # fmt: skip
# The hand as a whole: sets of changed readings tried, most probable first, before giving up. On the
# real-tile scenes (bench/real_scenes.py) one change at a time among the six least sure tiles found
# fewer legal hands than this search over the hand and the tiles near it.
MAX_READING_TRIALS = 48
MAX_CHANGED_TILES = 3
# A run of at most this many tiles that formed no meld is a meld a misread tile broke (a kong's four).
BROKEN_MELD_MOST = 4
# Sets that change one tile twice are skipped, not tried; this many skips a trial end the search.
SKIPS_PER_TRIAL = 20
# A run's tile read another way that mends the run's meld while the hand stays refused leaves a second
# misread tile: once the search above fails, each such reading is tried with this many of the cheapest
# sets of other tiles. Real-tile scenes (bench/real_scenes.py) read 38 / 35 of 60 without it and
# 38 / 37 with it (a 1s in a meld and a 4z beside it both misread); 48 sets read the same.
MENDED_MELD_TRIALS = 16
# When no other reading makes a legal hand, the least sure tiles read at under NAMED_BY_HAND_BELOW are
# asked, one at a time, which codes make one; a tile that only one code fits is read as it. On the
# real-tile scenes (bench/real_scenes.py) 38 / 37 of 60 → 40 / 38 (a 7p read 1p, a 7m read 8m with the
# truth outside their six readings); 0.35 and 0.7 read the same, 0.2 gains none.
NAMED_BY_HAND_BELOW = 0.5
NAMED_BY_HAND_TILES = 3
# Last, a tile is read as a code the rest of the hand waits on, the least unlikely by its readings; a
# code outside them is taken as this many times as likely as the least likely one (readings are ranked
# by the classifier, which places even a code it rules out). Seeds 0–599 of the real-tile scenes: 346
# → 365 of 600 read exactly, none lost (models/README.md, fourteenth round).
UNLISTED_ODDS = 0.01
# Then the same after each of this many of the cheapest other readings, for a second misread tile:
# 365 → 374. Of 1,420 scenes (seeds 0–999, 1000–1059, 2000–2299, 3000–3059) it read 27 refused hands
# exactly and 39 as wrong legal hands, each change warned; none read exactly before was lost.
WAITED_AFTER_READINGS = 8


def repair(recognition: Recognition, request: ScoreRequest) -> Recognition:
    """When the tiles make no legal hand, read the hand as a whole: the most probable legal hand.

    Each tile has other readings with probabilities (``Detections.other_class_ids``). Sets of
    tiles read another way are tried in order of how much less probable they make the hand (at
    most ``MAX_CHANGED_TILES`` tiles, ``MAX_READING_TRIALS`` sets), among the hand's tiles and the
    runs beside it that formed no meld, each other reading of a meld-sized such run's tiles alone
    first; the first set that scores is kept. When none does, a reading that mended its run's meld
    is tried with the cheapest sets of other tiles (``MENDED_MELD_TRIALS``), then an unsure tile
    that only one code fits is read as it (``NAMED_BY_HAND_BELOW``), and last a tile is read as a
    code the rest of the hand waits on, alone or after one of the cheapest other readings
    (``_read_as_the_rest_waits``, ``WAITED_AFTER_READINGS``). Tiles a person corrected
    (``request.corrections``) are never changed. Every change is reported as a warning, never made
    silently. The winning tile the request names plays no part here: it is applied when scoring.
    """
    detections, layout = recognition.detections, recognition.layout
    as_laid_out = replace(request, winning_tile=None)
    error = score_recognition(recognition, as_laid_out).error
    if error is None or error.code not in REPAIRABLE or detections.other_class_ids is None:
        return recognition
    assert detections.other_confidences is not None
    other_class, other_confidence = detections.other_class_ids, detections.other_confidences
    # (tile, rank) of each other reading worth trying, and how much less probable it makes the
    # hand: log(first / other), never below 0.
    readings = [
        (i, rank)
        for i in _hand_and_beside(layout) if i not in request.corrections
        for rank in range(min(SEARCHED_READINGS, other_class.shape[1]))
        if other_confidence[i, rank] > 0 and other_class[i, rank] != detections.class_id[i]
    ]  # fmt: skip
    costs = [max(0.0, float(np.log(max(detections.confidence[i], 1e-6) / other_confidence[i, r]))) for i, r in readings]
    order = sorted(range(len(readings)), key=lambda k: costs[k])
    readings, costs = [readings[k] for k in order], [costs[k] for k in order]
    # A meld-sized run beside the hand that formed no meld most likely holds a misread tile, however
    # sure of it the reader was (5m read 4m at 0.95 breaks 5m 6m 7m): each other reading of its tiles
    # alone first. Longer runs are discards and walls.
    broken = {i for run in _broken_runs(layout) for i in run}
    singles = [(k,) for k, (i, _) in enumerate(readings) if i in broken]
    tried_first = set(singles)
    no_melds = _count_no_melds(layout)
    mending: list[int] = []  # singles that mend their run's meld and leave the hand refused
    rest = (c for c in _cheapest_sets(costs, MAX_CHANGED_TILES) if c not in tried_first)
    for chosen, changed in _each_tile_once(itertools.chain(singles, rest), readings, MAX_READING_TRIALS):
        trial, legal = _read_again(recognition, _as_read(detections, changed), as_laid_out)
        if legal:
            return _reported(recognition, trial, changed)
        if chosen in tried_first and _count_no_melds(trial.layout) < no_melds:
            mending.append(chosen[0])
    for mended in mending:
        others = ((mended, *c) for c in _cheapest_sets(costs, MAX_CHANGED_TILES - 1) if mended not in c)
        for _, changed in _each_tile_once(others, readings, MENDED_MELD_TRIALS):
            trial, legal = _read_again(recognition, _as_read(detections, changed), as_laid_out)
            if legal:
                return _reported(recognition, trial, changed)
    named = _named_by_the_hand(recognition, request, as_laid_out)
    if named is not None:
        return named
    # Two tiles misread, one of them far from its readings: each of the cheapest other readings first.
    for before in ([], *([reading] for reading in readings[:WAITED_AFTER_READINGS])):
        waited = _read_as_the_rest_waits(recognition, request, as_laid_out, before)
        if waited is not None:
            return waited
    return recognition


def _each_tile_once(
    sets: Iterable[tuple[int, ...]], readings: list[tuple[int, int]], most: int
) -> Iterator[tuple[tuple[int, ...], list[tuple[int, int]]]]:
    """Each set of reading indices with its (tile, rank) changes, ``most`` of them at most; sets that
    read one tile two ways at once are skipped, and ``SKIPS_PER_TRIAL`` skips a set end it."""
    tried = skipped = 0
    for chosen in sets:
        changed = [readings[k] for k in chosen]
        if len({i for i, _ in changed}) < len(changed):
            skipped += 1
            if skipped > SKIPS_PER_TRIAL * most:
                return
            continue
        tried += 1
        if tried > most:
            return
        yield chosen, changed


def _named_by_the_hand(recognition: Recognition, request: ScoreRequest, as_laid_out: ScoreRequest) -> Recognition | None:
    """The hand with one unsure tile read as the only code that makes it legal, with its warning; None
    when no such tile (``NAMED_BY_HAND_BELOW``, the ``NAMED_BY_HAND_TILES`` least sure) has one code."""
    detections = recognition.detections
    unsure = [
        i for i in _hand_and_beside(recognition.layout)
        if i not in request.corrections and detections.confidence[i] < NAMED_BY_HAND_BELOW
    ]  # fmt: skip
    for index in sorted(unsure, key=lambda i: detections.confidence[i])[:NAMED_BY_HAND_TILES]:
        codes = [code for code in range(len(TILE_CODES)) if code != detections.class_id[index]]
        fitting = [read for read, legal in (_read_again(recognition, [(index, code)], as_laid_out) for code in codes) if legal]
        if len(fitting) == 1:
            named = fitting[0]
            old, new = (TILE_CODES[int(d.class_id[index])] for d in (detections, named.detections))
            named.layout.warnings[:0] = [
                Notice(notices.NAMED_BY_HAND, {"tile": new, "old": old, "detections": [index]}),
                *_earlier_reads_kept(recognition, {index}),
            ]
            return named
    return None


def _read_as_the_rest_waits(
    recognition: Recognition, request: ScoreRequest, as_laid_out: ScoreRequest, before: list[tuple[int, int]]
) -> Recognition | None:
    """The hand with one tile read as a code the rest of the hand waits on: of every such (tile, code)
    that makes a legal hand, the one its readings make least unlikely (``UNLISTED_ODDS``), with a warning.

    A tile of the row misread surely (2p read 3z at 0.9), or a tile of the row read as a flower, with
    the truth outside the readings searched above: the other 16 tiles name the codes it could be. A
    meld's tile so misread leaves its run no meld: the run's other tiles name them. ``before``: (tile,
    rank) other readings taken first, each reported too. Once a person has corrected tiles, the hand
    they left refused is not guessed at."""
    if request.corrections:
        return None
    base = _read_again(recognition, _as_read(recognition.detections, before), as_laid_out)[0] if before else recognition
    detections, layout = base.detections, base.layout
    row = _HandRow(layout, as_laid_out)
    asked = [(index, _waits_of(row, index)) for index in row.ids]
    # A hand tile read as a flower leaves the row a tile short: what the row waits on, each flower may be.
    row_waits = _waits_of(row, None)
    asked += [(i, row_waits) for g in layout.groups if g.role == "flower" for i in g.ids]
    # A meld tile misread leaves its run no meld: each tile may be what makes the run one again.
    asked += [(i, codes) for run in _broken_runs(layout) for i, codes in _meld_mending_codes(run, detections)]
    read_before = {index for index, _ in before}
    found = sorted(
        (_cost_of_reading(detections, index, TILE_CODES.index(code)), index, TILE_CODES.index(code))
        for index, waits in asked if index not in read_before
        for code in waits if code != TILE_CODES[int(detections.class_id[index])]
    )  # fmt: skip
    for position, (cost, index, class_id) in enumerate(found):
        trial, legal = _read_again(base, [(index, class_id)], as_laid_out)
        if not legal:
            continue
        rivals = [rival for rival in found[position + 1 :] if rival[0] <= cost]  # found is sorted by cost
        if any(_read_again(base, [(i, code)], as_laid_out)[1] for _, i, code in rivals):
            return None  # two codes as likely: neither the readings nor the hand can say which
        old, new = TILE_CODES[int(recognition.detections.class_id[index])], TILE_CODES[class_id]
        trial.layout.warnings[:0] = [
            *_second_readings(recognition, before),
            Notice(notices.READ_AS_WAITED, {"tile": new, "old": old, "detections": [index]}),
            *_earlier_reads_kept(recognition, {index, *read_before}),
        ]
        return trial
    return None


def _broken_runs(layout: Layout) -> list[list[int]]:
    """Runs near the hand that formed no meld and are meld-sized (``BROKEN_MELD_MOST`` tiles at most)."""
    return [
        w.params["detections"] for w in layout.warnings
        if w.code == notices.NO_MELD and len(w.params["detections"]) <= BROKEN_MELD_MOST
    ]  # fmt: skip


def _meld_mending_codes(run: list[int], detections: Detections) -> list[tuple[int, list[str]]]:
    """Each tile of ``run`` with the codes that, read for it, make the run a meld."""
    codes = [TILE_CODES[int(detections.class_id[i])] for i in run]
    return [
        (index, [code for code in PLAYING_TILES if meld_kind([*codes[:k], code, *codes[k + 1 :]]) is not None])
        for k, index in enumerate(run)
    ]


def _waits_of(row: _HandRow, left_out: int | None) -> list[str]:
    """The codes that complete the row's other tiles with its melds, when they are 16 tiles; with
    ``left_out`` None, of the whole row. Empty when the tiles are no hand waiting to win."""
    hand = row.request.hand_json(row.tiles(left_out))
    del hand["winning_tile"]  # the waits are of the tiles before it
    try:
        return waiting_tiles(hand)
    except HandError:
        return []


def _cost_of_reading(detections: Detections, index: int, class_id: int) -> float:
    """How much less probable reading tile ``index`` as ``class_id`` makes the hand: log(first / other),
    an unlisted code ``UNLISTED_ODDS`` times as likely as the tile's least likely reading."""
    assert detections.other_class_ids is not None and detections.other_confidences is not None
    listed = np.flatnonzero(detections.other_class_ids[index] == class_id)
    scores = detections.other_confidences[index]
    other = float(scores[listed[0]]) if len(listed) else 0.0
    floor = UNLISTED_ODDS * float(scores[scores > 0].min(initial=float(detections.confidence[index])))
    return float(np.log(max(float(detections.confidence[index]), 1e-6) / max(other, floor, 1e-9)))


def _read_again(recognition: Recognition, codes: list[tuple[int, int]], as_laid_out: ScoreRequest) -> tuple[Recognition, bool]:
    """The recognition with each (tile, class id) of ``codes`` read so and grouped again, and whether
    it makes a legal hand."""
    trial = recognition.detections
    for index, class_id in codes:
        trial = trial.with_class(index, class_id)
    read = Recognition(trial, group_tiles(trial), recognition.ms)
    return read, score_recognition(read, as_laid_out).error is None


def _as_read(detections: Detections, changed: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(tile, class id) of each (tile, rank) other reading in ``changed``."""
    assert detections.other_class_ids is not None
    return [(index, int(detections.other_class_ids[index, rank])) for index, rank in changed]


def _reported(recognition: Recognition, trial: Recognition, changed: list[tuple[int, int]]) -> Recognition:
    """``trial`` with a warning for each tile it reads another way, and the earlier warnings it keeps
    of tiles read as flowers or as tiles."""
    changed_ids = {index for index, _ in changed}
    trial.layout.warnings[:0] = [*_second_readings(recognition, changed), *_earlier_reads_kept(recognition, changed_ids)]
    return trial


def _second_readings(recognition: Recognition, changed: list[tuple[int, int]]) -> list[Notice]:
    """A warning for each (tile, rank) other reading in ``changed``, as the tile was first read."""
    detections = recognition.detections
    assert detections.other_class_ids is not None and detections.other_confidences is not None
    found = []
    for index, rank in changed:
        old, new = TILE_CODES[int(detections.class_id[index])], TILE_CODES[int(detections.other_class_ids[index, rank])]
        confidence = round(float(detections.other_confidences[index, rank]), 2)
        params = {"tile": new, "old": old, "confidence": confidence, "rank": rank + 2, "detections": [index]}
        found.append(Notice(notices.SECOND_READING, params))
    return found


def _earlier_reads_kept(recognition: Recognition, changed_ids: set[int]) -> list[Notice]:
    """The warnings of tiles read as flowers or as tiles earlier (``read_suspected_flowers``, ``read_suspected_tiles``)
    that a change leaves as they are."""
    return [
        w for w in recognition.layout.warnings
        if w.code in EARLIER_READS and changed_ids.isdisjoint(w.params["detections"])
    ]  # fmt: skip


def _count_no_melds(layout: Layout) -> int:
    return sum(w.code == notices.NO_MELD for w in layout.warnings)


def _hand_and_beside(layout: Layout) -> list[int]:
    """The hand's tiles, and runs near it that formed no meld (a misread tile breaks a meld).

    Grouping adds those runs as background groups before the last group, which holds every tile
    left over (discards, walls); that one stays out.
    """
    groups = layout.groups
    leftover = groups[-1] if groups and groups[-1].role == "background" else None
    return [i for g in groups if g is not leftover for i in g.ids]


def _cheapest_sets(costs: list[float], largest: int) -> Iterator[tuple[int, ...]]:
    """Index sets of ascending ``costs`` of at most ``largest`` indices, in order of their total cost.

    Each set is followed by itself plus the next index, and by itself with its last index moved
    on by one: every set is reached once, never before a cheaper one. The caller stops the search.
    """
    if not costs:
        return
    heap: list[tuple[float, tuple[int, ...]]] = [(costs[0], (0,))]
    while heap:
        total, chosen = heapq.heappop(heap)
        yield chosen
        last = chosen[-1]
        if last + 1 < len(costs):
            if len(chosen) < largest:
                heapq.heappush(heap, (total + costs[last + 1], (*chosen, last + 1)))
            heapq.heappush(heap, (total - costs[last] + costs[last + 1], (*chosen[:-1], last + 1)))


class _HandRow:
    """The hand row of a layout: which detection holds which code, and the hand with any one as the winner."""

    def __init__(self, layout: Layout, request: ScoreRequest):
        self.request = request
        fields = layout.hand_fields()
        self.melds = tuple(Meld(meld["kind"], tuple(meld["tiles"])) for meld in fields["melds"])
        self.flowers = tuple(fields["flowers"])
        concealed = _group(layout, "concealed")
        self.winning_group = _group(layout, "winning")
        self.ids = [*(concealed.ids if concealed else []), *(self.winning_group.ids if self.winning_group else [])]
        self.codes = {i: c for g in layout.groups for i, c in zip(g.ids, g.codes, strict=True)}

    def tiles(self, winner: int | None) -> HandTiles:
        concealed = tuple(self.codes[i] for i in self.ids if i != winner)
        return HandTiles(concealed, self.melds, self.flowers, self.codes[winner] if winner is not None else None)

    def total(self, winner: int) -> int | None:
        """The 台 with ``winner`` as the winning tile; None when that is no legal hand."""
        try:
            return score(parse_hand(self.request.hand_json(self.tiles(winner)))).total
        except HandError:
            return None


def _group(layout: Layout, role: str) -> TileGroup | None:
    return next((g for g in layout.groups if g.role == role), None)


def score_recognition(recognition: Recognition, request: ScoreRequest) -> PhotoScore:
    """Score what was read. The winning tile comes from the layout, unless the request names a
    detection id or a code in the concealed row. With no tile set apart, every concealed tile that
    makes a legal hand is tried; the best is used and the others are offered as alternatives.
    """
    layout = recognition.layout
    row = _HandRow(layout, request)
    warnings = list(layout.warnings)
    chosen: int | None = row.winning_group.ids[0] if row.winning_group else None
    if request.winning_tile is not None:
        chosen = _resolve_override(request.winning_tile, row.ids, row.codes)
        warnings.append(Notice(notices.WINNING_SET_BY_CALLER, {"tile": row.codes[chosen], "detections": [chosen]}))
    alternatives = _alternatives(layout, row, chosen)
    if chosen is None and alternatives:
        best = alternatives.pop(0)
        chosen = best.detection
        warnings.append(Notice(notices.WINNING_CHOSEN, {"tile": best.winning_tile, "detections": [chosen]}))
    tiles = row.tiles(chosen)
    hand: Hand | None = None
    result: ScoreResult | None = None
    error: HandError | None = None
    try:
        hand = parse_hand(request.hand_json(tiles))
        result = score(hand)
    except HandError as refused:  # the photo's hand cannot be scored: the answer says why
        error = refused
    return PhotoScore(
        request, recognition.detections, layout, tiles, hand, result, error, tuple(warnings), tuple(alternatives),
        recognition.ms,
    )  # fmt: skip


def _alternatives(layout: Layout, row: _HandRow, chosen: int | None) -> list[Alternative]:
    """Each other code that could be the winning tile and makes a legal hand, the highest total first."""
    candidates = list(dict.fromkeys([*layout.winning_candidates, *([] if row.winning_group else row.ids)]))
    found = []
    seen_codes: set[str] = set()
    for candidate in candidates:
        if candidate == chosen or row.codes[candidate] in seen_codes:
            continue
        seen_codes.add(row.codes[candidate])
        total = row.total(candidate)
        if total is not None:
            found.append(Alternative(row.codes[candidate], candidate, total))
    found.sort(key=lambda a: -a.total)
    return found


def _resolve_override(value: int | str, ids: list[int], codes_by_id: dict[int, str]) -> int:
    if isinstance(value, int):
        if value not in ids:
            raise PhotoRequestError(ErrorCode.BAD_WINNING_TILE, f"detection {value} is not in the hand row")
        return value
    if value not in TILE_CODES:
        raise PhotoRequestError(
            ErrorCode.BAD_WINNING_TILE, f"{value!r} is not a tile code (1m–9m, 1p–9p, 1s–9s, 1z–7z) nor a detection id"
        )
    for i in reversed(ids):
        if codes_by_id[i] == value:
            return i
    raise PhotoRequestError(ErrorCode.BAD_WINNING_TILE, f"no {value} in the hand row to be the winning tile")
