"""Compact hand builders for scoring tests: tiles in notation, context as keywords."""

from __future__ import annotations

from typing import Any

from scoring.api import score_hand_json
from scoring.tiles import parse_tiles


def hand(
    concealed: str, win: str, melds: tuple[str, ...] = (), flowers: str = "", preset: str = "taiwan", **fields: Any
) -> dict:
    """``melds`` as 'pung:5z5z5z', 'chow:123m', 'kong:1111p', 'concealed_kong:9999s'."""
    data: dict[str, Any] = {
        "preset": preset,
        "concealed": parse_tiles(concealed),
        "winning_tile": win,
        "melds": [{"kind": m.split(":")[0], "tiles": parse_tiles(m.split(":")[1])} for m in melds],
        "flowers": parse_tiles(flowers) if flowers else [],
    }
    data.update(fields)
    return data


def patterns(
    concealed: str, win: str, melds: tuple[str, ...] = (), flowers: str = "", preset: str = "taiwan", **fields: Any
) -> dict[str, int]:
    """{pattern name: 台} of the best reading; fails the test on an error."""
    result, ok = score_hand_json(hand(concealed, win, melds, flowers, preset, **fields))
    assert ok, result
    found = {p["name"]: p["tai"] for p in result["patterns"]}
    assert sum(found.values()) == result["total"]
    return found


def error_code(data: Any) -> str:
    result, ok = score_hand_json(data)
    assert not ok, result
    return result["error"]["code"]
