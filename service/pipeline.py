"""Photo to score: detection → grouping → hand JSON + context → scoring.

This is where vision meets scoring. The CLI (``taicam score``) and the HTTP API share it.
"""

from __future__ import annotations

import time
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
MAX_SECOND_READINGS = 6


def repair(
    recognition: Recognition, context: dict[str, Any], preset: str = "taiwan", locked: frozenset[int] = frozenset()
) -> Recognition:
    """When the tiles make no legal hand, try the model's second reading of its least sure tiles.

    One tile at a time, among the hand's ``MAX_SECOND_READINGS`` tiles whose first and second
    readings are closest; tiles a person corrected (``locked``) are never changed. The change
    is reported as a warning, never made silently.
    """
    detections, layout = recognition.detections, recognition.layout
    result = score_layout(layout, context, preset)
    error = result["score"].get("error")
    if error is None or error["code"] not in REPAIRABLE or detections.alt_class_id is None:
        return recognition
    assert detections.alt_confidence is not None
    hand_ids = [i for g in layout.groups if g.role != "background" for i in g.ids if i not in locked]
    margin = detections.confidence - detections.alt_confidence
    best: tuple[float, int, Detections, Layout] | None = None
    for index in sorted(hand_ids, key=lambda i: margin[i])[:MAX_SECOND_READINGS]:
        trial = detections.with_class(index, int(detections.alt_class_id[index]))
        trial_layout = group_tiles(trial)
        if "error" in score_layout(trial_layout, context, preset)["score"]:
            continue
        if best is None or detections.alt_confidence[index] > best[0]:
            best = (float(detections.alt_confidence[index]), index, trial, trial_layout)
    if best is None:
        return recognition
    _, index, trial, trial_layout = best
    old, new = TILE_CODES[int(detections.class_id[index])], TILE_CODES[int(trial.class_id[index])]
    confidence = round(float(detections.alt_confidence[index]), 2)
    trial_layout.warnings.insert(
        0, Notice(notices.SECOND_READING, {"tile": new, "old": old, "confidence": confidence, "detections": [index]})
    )
    return Recognition(trial, trial_layout, recognition.ms)


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
