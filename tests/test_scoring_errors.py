"""Each error code, with a message a player understands."""

from __future__ import annotations

import pytest

from scoring.api import waits_json
from scoring.hand import HandError
from tests.scoring_helpers import error_code, hand, refusal

GOOD = hand("123m 456m 789p 234s 55p 67s", "8s")


def message(data) -> str:
    return refusal(data).message


def test_wrong_tile_count_says_how_many():
    data = {**GOOD, "concealed": [*GOOD["concealed"], "9m"]}
    assert error_code(data) == "tile_count"
    assert "18" in message(data)


def test_fifth_copy_names_the_tile():
    data = hand("1111m 456m 789p 234s 55p 6s", "1m")
    assert error_code(data) == "too_many_copies"
    assert "一萬 (1m) appears 5 times" in message(data)


def test_fifth_copy_counts_meld_tiles():
    assert error_code(hand("1m 456m 789p 234s 55p 6s", "6s", ("kong:1111m",))) == "too_many_copies"


def test_unknown_codes_and_fields():
    assert error_code({**GOOD, "winning_tile": "0m"}) == "bad_tile"
    assert error_code({**GOOD, "flowers": ["9f"]}) == "bad_tile"
    assert error_code({**GOOD, "colour": "red"}) == "bad_field"
    assert error_code({**GOOD, "seat_wind": "X"}) == "bad_field"
    assert error_code({**GOOD, "self_drawn": "yes"}) == "bad_field"
    assert error_code({**GOOD, "preset": "riichi"}) == "unknown_preset"
    assert error_code({**GOOD, "options": {"no_such": True}}) == "unknown_option"
    assert error_code({**GOOD, "options": {"pinghu_multiwait": 3}}) == "bad_option"
    assert error_code("not a hand") == "bad_field"


def test_duplicate_flower():
    assert error_code({**GOOD, "flowers": ["1f", "1f"]}) == "duplicate_flower"


def test_malformed_melds():
    base = hand("456m 789p 234s 55p 67s", "8s")
    assert error_code({**base, "melds": [{"kind": "chow", "tiles": ["1m", "2m", "4m"]}]}) == "bad_meld"
    assert error_code({**base, "melds": [{"kind": "chow", "tiles": ["1z", "2z", "3z"]}]}) == "bad_meld"
    assert error_code({**base, "melds": [{"kind": "pung", "tiles": ["1m", "1m", "2m"]}]}) == "bad_meld"
    assert error_code({**base, "melds": [{"kind": "kong", "tiles": ["1m", "1m", "1m"]}]}) == "bad_meld"
    assert error_code({**base, "melds": [{"kind": "triplet", "tiles": ["1m", "1m", "1m"]}]}) == "bad_meld"


def test_not_a_winning_hand_says_what_it_waits_on():
    data = hand("123m 456m 789p 234s 55p 67s", "9s")
    assert error_code(data) == "not_winning"
    assert "waits on 五條 (5s)、八條 (8s)" in message(data)


def test_inconsistent_situation():
    assert error_code({**GOOD, "robbing_kong": True, "self_drawn": True}) == "bad_context"
    assert error_code({**GOOD, "heavenly": True}) == "bad_context"
    assert error_code({**GOOD, "flower_win": "eight", "flowers": ["1f"]}) == "bad_context"


def test_waits_api_rejects_a_winning_tile():
    with pytest.raises(HandError):
        waits_json({**GOOD})


def test_error_json_keeps_the_details():
    from scoring.api import score_hand

    with pytest.raises(HandError) as raised:
        score_hand({**GOOD, "winning_tile": "9s"})
    assert raised.value.to_json()["error"]["details"] == {"waits": ["5s", "8s"]}


def test_every_error_code_is_one_of_the_stable_codes():
    from scoring.errors import ErrorCode

    broken = [
        {**GOOD, "winning_tile": "9s"},
        {**GOOD, "colour": "red"},
        {**GOOD, "preset": "nope"},
        {**GOOD, "options": {"x": 1}},
    ]
    assert all(error_code(data) in set(ErrorCode) for data in broken)


def test_waits_with_the_wrong_count_speaks_of_the_16_tiles_before_the_win():
    with pytest.raises(HandError) as error:
        waits_json({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m"]})
    assert error.value.code == "tile_count" and error.value.details == {"count": 6}
    assert "16 tiles" in error.value.message and "17" not in error.value.message


def test_an_array_of_hands_answers_each_in_its_place_with_a_score_or_the_error_itself():
    """No (dict, ok) pairs: a refused hand is its HandError, details and all, for the edge to word."""
    from scoring.api import score_each

    good, wrong_tile, not_an_object = score_each([GOOD, {**GOOD, "winning_tile": "9p"}, 7])
    assert good["total"] == sum(p["tai"] for p in good["patterns"])
    assert isinstance(wrong_tile, HandError) and wrong_tile.code == "not_winning"
    assert wrong_tile.details == {"waits": ["5s", "8s"]}
    assert isinstance(not_an_object, HandError) and not_an_object.code == "bad_field"
