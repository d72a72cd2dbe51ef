"""JSON in, JSON out: the contract behind ``taicam score-hand`` and ``POST /v1/score/hand``.

A hand that cannot be scored raises ``HandError``; nothing here answers with an ``ok`` flag.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .errors import ErrorCode
from .evaluate import score, wait_set
from .hand import HAND_TILES, Hand, HandError, parse_hand
from .rules import Preset, get_preset
from .tiles import PLAYING_TILES, chinese_name


def score_hand(data: Any) -> dict[str, Any]:
    """The score JSON of one hand JSON object; raises ``HandError`` (with its details)."""
    return score(parse_hand(data)).to_json()


def contract_error(error: HandError) -> dict[str, Any]:
    """The hand contract's error object, as score-hand prints it: code and message.

    HTTP wraps the same error in its envelope with ``details`` (see ``HandError.to_json``).
    """
    return {"error": {"code": error.code, "message": error.message}}


def score_each(hands: list[Any]) -> list[dict[str, Any] | HandError]:
    """Each hand's score JSON, or the ``HandError`` that refused it, in the order given.

    An array is scored whole: one refused hand does not stop the others. The edges decide how a
    refusal reads (score-hand prints ``contract_error``; HTTP keeps the details).
    """
    outcomes: list[dict[str, Any] | HandError] = []
    for data in hands:
        try:
            outcomes.append(score_hand(data))
        except HandError as error:
            outcomes.append(error)
    return outcomes


def waits_json(data: Any) -> dict[str, Any]:
    """What a 16-tile hand waits for, with each tile's score by discard and by self-draw.

    ``data`` is a hand JSON without ``winning_tile``. Raises ``HandError``.
    """
    probe, preset, waits = _waits(data)
    results = []
    for index in waits:
        tile = PLAYING_TILES[index]
        entry: dict[str, Any] = {"tile": tile, "name": chinese_name(tile)}
        for label, self_drawn in (("discard", False), ("self_draw", True)):
            hand = replace(probe, winning_tile=tile, context=replace(probe.context, self_drawn=self_drawn, robbing_kong=False))
            try:
                result = score(hand)
                entry[label] = {"total": result.total, "patterns": [{"name": i.name, "tai": i.tai} for i in result.items]}
            except HandError as error:
                entry[label] = contract_error(error)
        results.append(entry)
    return {"preset": preset.name, "unit": preset.unit, "ready": bool(results), "waits": results}


def waiting_tiles(data: Any) -> list[str]:
    """The codes ``waits_json`` lists, without scoring each: what the whole-hand repair asks many times."""
    return [PLAYING_TILES[index] for index in _waits(data)[2]]


def _waits(data: Any) -> tuple[Hand, Preset, list[int]]:
    """The hand parsed with a stand-in winning tile, its preset, and the tile indices it waits on."""
    if not isinstance(data, dict):
        raise HandError(ErrorCode.BAD_FIELD, "a hand must be a JSON object")
    if "winning_tile" in data:
        raise HandError(ErrorCode.BAD_FIELD, "leave out 'winning_tile': the waits are what could win")
    concealed = data.get("concealed")
    if not isinstance(concealed, list) or not concealed:
        raise HandError(ErrorCode.BAD_FIELD, "'concealed' must list the tiles in hand")
    # Parse with a stand-in winning tile to reuse every check; the caller scores each real wait.
    melds = data.get("melds") or []
    if not isinstance(melds, list) or not all(isinstance(m, dict) and isinstance(m.get("tiles", []), list) for m in melds):
        raise HandError(ErrorCode.BAD_FIELD, "'melds' must be a list of objects, each with a list of 'tiles'")
    size = len(concealed) + 3 * len(melds)
    if size != HAND_TILES - 1:  # the waits are of the hand before its winning tile
        raise HandError(
            ErrorCode.TILE_COUNT,
            f"a hand waiting to win has {HAND_TILES - 1} tiles counting each meld as 3; this one has {size}"
            f" ({len(concealed)} concealed + {len(melds)} meld(s) × 3)",
            {"count": size},
        )
    held = [t for t in concealed if isinstance(t, str)]
    for meld in melds:
        held.extend(meld.get("tiles", []))
    stand_in = next((t for t in PLAYING_TILES if held.count(t) < 4), None)
    if stand_in is None:
        raise HandError(ErrorCode.TOO_MANY_COPIES, "every tile is already held four times: this is not a hand")
    probe = parse_hand({**data, "winning_tile": stand_in, "settlement": None})
    preset = get_preset(probe.preset)
    meld_tiles = [t for m in probe.melds for t in m.tiles]
    return probe, preset, sorted(wait_set(probe.concealed, meld_tiles, len(probe.melds), preset.forms))
