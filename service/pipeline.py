"""Photo to score: detection → grouping → hand JSON + context → scoring.

This is where vision meets scoring. The CLI (``taicam score``) and the HTTP API share it.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.api import score_hand, score_hand_json
from scoring.hand import SITUATION_KEYS, HandError
from scoring.tiles import TILE_CODES
from vision import notices
from vision.detections import Detections
from vision.detector import TileDetector
from vision.grouping import Layout, group_tiles
from vision.notices import Notice
from vision.photo import detect_photo

from .messages import EN, localise_error, notice_json

CONTEXT_FIELDS = SITUATION_KEYS  # declared once, by scoring.hand.WinContext


@dataclass
class Recognition:
    detections: Detections
    layout: Layout
    ms: float


def recognise(
    detector: TileDetector,
    image: np.ndarray,
    conf: float = 0.25,
    corrections: dict[int, str] | None = None,
) -> Recognition:
    """Detect and group. ``corrections`` maps detection ids to the codes a person chose."""
    start = time.perf_counter()
    detections = detect_photo(detector, image, conf=conf, focus="hand")
    if corrections:
        for index, code in corrections.items():
            if not 0 <= index < len(detections):
                raise ValueError(f"correction for detection {index}, but only {len(detections)} were found")
            if code not in TILE_CODES:
                raise ValueError(f"correction {code!r} is not a tile code")
            detections = detections.with_class(index, TILE_CODES.index(code))
    layout = group_tiles(detections)
    return Recognition(detections, layout, (time.perf_counter() - start) * 1000)


REPAIRABLE = ("not_winning", "too_many_copies", "duplicate_flower", "no_winning_tile")
# The hand as a whole: sets of changed readings tried, most probable first, before giving up. On the
# real-tile scenes (bench/real_scenes.py) one change at a time among the six least sure tiles found
# fewer legal hands than this search over the hand and the tiles near it.
MAX_READING_TRIALS = 48
MAX_CHANGED_TILES = 3


def repair(
    recognition: Recognition, context: dict[str, Any], preset: str = "taiwan", locked: frozenset[int] = frozenset()
) -> Recognition:
    """When the tiles make no legal hand, read the hand as a whole: the most probable legal hand.

    Each tile has two readings with probabilities (``Detections.alt_class_id``). Sets of tiles
    read their second way are tried in order of how much less probable they make the hand (at most
    ``MAX_CHANGED_TILES`` tiles, ``MAX_READING_TRIALS`` sets), among the hand's tiles and the runs
    beside it that formed no meld; the first set that scores is kept. Tiles a person corrected
    (``locked``) are never changed. Every change is reported as a warning, never made silently.
    """
    detections, layout = recognition.detections, recognition.layout
    result = score_layout(layout, context, preset)
    error = result["score"].get("error")
    if error is None or error["code"] not in REPAIRABLE or detections.alt_class_id is None:
        return recognition
    assert detections.alt_confidence is not None
    alt_class, alt_confidence = detections.alt_class_id, detections.alt_confidence
    candidates = [
        i for i in _hand_and_beside(layout)
        if i not in locked and alt_confidence[i] > 0 and alt_class[i] != detections.class_id[i]
    ]  # fmt: skip
    # How much less probable each second reading makes the hand: log(first / second), never below 0.
    costs = [max(0.0, float(np.log(max(detections.confidence[i], 1e-6) / alt_confidence[i]))) for i in candidates]
    order = sorted(range(len(candidates)), key=lambda k: costs[k])
    candidates, costs = [candidates[k] for k in order], [costs[k] for k in order]
    for chosen in _cheapest_sets(costs, MAX_READING_TRIALS, MAX_CHANGED_TILES):
        changed = [candidates[k] for k in chosen]
        trial = detections
        for index in changed:
            trial = trial.with_class(index, int(alt_class[index]))
        trial_layout = group_tiles(trial)
        if "error" in score_layout(trial_layout, context, preset)["score"]:
            continue
        for index in reversed(changed):
            old, new = TILE_CODES[int(detections.class_id[index])], TILE_CODES[int(alt_class[index])]
            confidence = round(float(alt_confidence[index]), 2)
            trial_layout.warnings.insert(
                0, Notice(notices.SECOND_READING, {"tile": new, "old": old, "confidence": confidence, "detections": [index]})
            )
        return Recognition(trial, trial_layout, recognition.ms)
    return recognition


def _hand_and_beside(layout: Layout) -> list[int]:
    """The hand's tiles, and runs near it that formed no meld (a misread tile breaks a meld).

    Grouping adds those runs as background groups before the last group, which holds every tile
    left over (discards, walls); that one stays out.
    """
    groups = layout.groups
    leftover = groups[-1] if groups and groups[-1].role == "background" else None
    return [i for g in groups if g is not leftover for i in g.ids]


def _cheapest_sets(costs: list[float], limit: int, largest: int) -> Iterator[tuple[int, ...]]:
    """Index sets of ascending ``costs`` in order of their total cost, up to ``limit`` sets of ≤ ``largest``.

    Each set is followed by itself plus the next index, and by itself with its last index moved
    on by one: every set is reached once, never before a cheaper one.
    """
    if not costs:
        return
    heap: list[tuple[float, tuple[int, ...]]] = [(costs[0], (0,))]
    for _ in range(limit):
        if not heap:
            return
        total, chosen = heapq.heappop(heap)
        yield chosen
        last = chosen[-1]
        if last + 1 < len(costs):
            if len(chosen) < largest:
                heapq.heappush(heap, (total + costs[last + 1], (*chosen, last + 1)))
            heapq.heappush(heap, (total - costs[last] + costs[last + 1], (*chosen[:-1], last + 1)))


def score_layout(
    layout: Layout,
    context: dict[str, Any],
    preset: str = "taiwan",
    winning_override: int | str | None = None,
    lang: str = EN,
) -> dict[str, Any]:
    """The contract object: hand, groups, warnings, alternatives and score, its words in ``lang``.

    The winning tile comes from the layout, unless ``winning_override`` names a detection id
    or a code in the concealed row. With no tile set apart, every concealed tile that makes a
    legal hand is tried; the best is used and the others are offered as alternatives.
    """
    fields = layout.hand_fields()
    warnings = list(layout.warnings)
    concealed_group = next((g for g in layout.groups if g.role == "concealed"), None)
    concealed_ids = list(concealed_group.ids) if concealed_group else []
    winning_group = next((g for g in layout.groups if g.role == "winning"), None)
    all_ids = concealed_ids + (winning_group.ids if winning_group else [])
    codes_by_id = {i: c for g in layout.groups for i, c in zip(g.ids, g.codes, strict=True)}
    base = {"preset": preset, **{k: v for k, v in context.items() if k in CONTEXT_FIELDS}}

    def hand_with(winner_id: int | None) -> dict[str, Any]:
        concealed = [codes_by_id[i] for i in all_ids if i != winner_id]
        winning = codes_by_id[winner_id] if winner_id is not None else None
        return {**base, "concealed": concealed, "melds": fields["melds"], "flowers": fields["flowers"], "winning_tile": winning}

    chosen: int | None = winning_group.ids[0] if winning_group else None
    if winning_override is not None:
        chosen = _resolve_override(winning_override, all_ids, codes_by_id)
        warnings.append(Notice(notices.WINNING_SET_BY_CALLER, {"tile": codes_by_id[chosen], "detections": [chosen]}))
    candidates = list(dict.fromkeys([*layout.winning_candidates, *([] if winning_group else all_ids)]))
    alternatives = []
    seen_codes: set[str] = set()
    for candidate in candidates:
        if candidate == chosen or codes_by_id[candidate] in seen_codes:
            continue
        seen_codes.add(codes_by_id[candidate])
        result, ok = score_hand_json(hand_with(candidate))
        if ok:
            alternatives.append({"winning_tile": codes_by_id[candidate], "detection": candidate, "total": result["total"]})
    alternatives.sort(key=lambda a: -a["total"])
    if chosen is None and alternatives:
        best = alternatives.pop(0)
        chosen = best["detection"]
        warnings.append(Notice(notices.WINNING_CHOSEN, {"tile": best["winning_tile"], "detections": [chosen]}))
    hand = hand_with(chosen)
    try:
        score = score_hand(hand)
    except HandError as error:  # the photo's hand cannot be scored: say why, with the core's details
        score = {"error": localise_error(error.to_json()["error"], {"tile": hand["winning_tile"]}, lang)}
    groups = [g.to_json() for g in layout.groups]
    words = [notice_json(w, lang) for w in warnings]
    return {"hand": hand, "groups": groups, "warnings": words, "alternatives": alternatives, "score": score}


def _resolve_override(value: int | str, ids: list[int], codes_by_id: dict[int, str]) -> int:
    if isinstance(value, int):
        if value not in ids:
            raise ValueError(f"detection {value} is not in the hand row")
        return value
    if value not in TILE_CODES:
        raise ValueError(f"{value!r} is not a tile code (1m–9m, 1p–9p, 1s–9s, 1z–7z) nor a detection id")
    for i in reversed(ids):
        if codes_by_id[i] == value:
            return i
    raise ValueError(f"no {value} in the hand row to be the winning tile")
