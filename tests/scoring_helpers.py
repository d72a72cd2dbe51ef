"""Compact hand builders for scoring tests: tiles in notation, context as keywords."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.api import contract_error, score_each, score_hand
from scoring.hand import HandError
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
    result = scored(hand(concealed, win, melds, flowers, preset, **fields))
    found = {p["name"]: p["tai"] for p in result["patterns"]}
    assert sum(found.values()) == result["total"]
    return found


def scored(data: Any) -> dict[str, Any]:
    """The score JSON of one hand; fails the test, with the error, when the hand is refused."""
    try:
        return score_hand(data)
    except HandError as error:
        pytest.fail(f"refused: {error.to_json()}")


def refusal(data: Any) -> HandError:
    """The error a hand is refused with; fails the test when it scores (or raises anything else)."""
    with pytest.raises(HandError) as caught:
        score_hand(data)
    return caught.value


def answer(data: Any) -> dict[str, Any]:
    """What ``taicam score-hand`` prints for one hand: its score JSON or the contract error."""
    (outcome,) = score_each([data])
    return contract_error(outcome) if isinstance(outcome, HandError) else outcome


def error_code(data: Any) -> str:
    return refusal(data).code
