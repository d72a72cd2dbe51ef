"""Payments and the 拉 ledger, including the worked examples of the rule sets the presets read."""

from __future__ import annotations

import pytest

from scoring.payments import LaLedger
from tests.scoring_helpers import hand, refusal, scored

# 混一色 4 + 圈風台 1 + 正花 1 = 6台 under `app` (the app rules page's example: 底50/台20 → 170).
SIX_TAI_APP = hand("456m 789m 111z 55m 67m", "8m", ("chow:123m",), flowers="2f", preset="app", seat_wind="S", round_wind="E")


def test_the_app_rules_page_example_discard_pays_base_plus_tai():
    result = scored({**SIX_TAI_APP, "settlement": {"base": 50, "per_tai": 20, "discarder_seat": "N"}})
    assert result["total"] == 6
    assert result["payments"] == {"N": 170}


def test_the_hong_kong_variant_example_dealer_self_draws_16_fan_each_pays_26():
    data = hand(
        "1m 22m 333m 44m 5m 5p 6p 77p 8p 44z", "6p", flowers="4f", preset="hk", self_drawn=True, dealer=True, seat_wind="E"
    )
    result = scored({**data, "settlement": {"base": 10, "per_tai": 1}})
    assert result["total"] == 16  # 一摸八 8 + 平糊 5 + 庄 1 + 花 1 + 假獨 1
    assert result["payments"] == {"S": 26, "W": 26, "N": 26}


def test_dealer_pays_2n_plus_1_extra_when_a_non_dealer_self_draws():
    data = hand("123m 456m 789p 234s 11z 67s", "8s", self_drawn=True, seat_wind="S")
    result = scored({**data, "settlement": {"base": 30, "per_tai": 10, "dealer_seat": "E"}, "dealer_streak": 1})
    total = result["total"]  # 不求人 3
    assert result["payments"] == {"E": 30 + 10 * (total + 3), "W": 30 + 10 * total, "N": 30 + 10 * total}


def test_dealer_winner_has_2n_plus_1_inside_the_total():
    data = hand("123m 456m 789p 234s 11z 67s", "8s", dealer=True, dealer_streak=1, seat_wind="E")
    result = scored({**data, "settlement": {"base": 30, "per_tai": 10, "discarder_seat": "S"}})
    assert result["total"] == 1 + 3  # 門清 + 莊家連1拉1
    assert result["payments"] == {"S": 30 + 10 * 4}


def test_eight_flowers_all_pay_and_seven_rob_one_the_robbed_pays():
    base = hand("123m 456m 789p 234s 55p 67s", "8s", flowers="1f 2f 3f 4f 5f 6f 7f 8f", seat_wind="S")
    eight = scored({**base, "flower_win": "eight", "settlement": {"base": 10, "per_tai": 5}})
    assert eight["payments"] == {"E": 50, "W": 50, "N": 50}
    rob = scored({**base, "flower_win": "seven_rob_one", "settlement": {"base": 10, "per_tai": 5, "discarder_seat": "W"}})
    assert rob["payments"] == {"W": 50}


def test_robbing_kong_charges_the_player_who_added_the_kong():
    data = hand("123m 456m 789p 234s 11z 67s", "8s", robbing_kong=True, seat_wind="S")
    result = scored({**data, "settlement": {"base": 10, "per_tai": 10, "discarder_seat": "N"}})
    assert result["payments"] == {"N": 10 + 10 * result["total"]}


def test_discard_win_without_discarder_is_an_error():
    data = {**hand("123m 456m 789p 234s 11z 67s", "8s"), "settlement": {"base": 10, "per_tai": 10}}
    error = refusal(data)
    assert error.code == "bad_field" and "discarder_seat" in error.message


def test_the_hong_kong_variant_la_settlement_example():
    ledger = LaLedger()
    assert ledger.record("E", {"S": 26, "W": 26, "N": 26}) == []
    assert ledger.record("E", {"S": 20, "W": 20, "N": 20}) == []
    assert ledger.standing() == {"S": 59, "W": 59, "N": 59}
    transfers = ledger.record("W", {"E": 15})  # A (E) discards to C (W)
    assert sorted(transfers) == [("N", "E", 59), ("S", "E", 59), ("W", "E", 29.5)]
    assert ledger.winner == "W" and ledger.standing() == {"E": 15}


def test_la_winner_who_did_not_eat_the_old_winner_pays_in_full():
    ledger = LaLedger()
    ledger.record("E", {"S": 26, "W": 26, "N": 26})
    transfers = ledger.record("W", {"N": 12})  # W wins off N's discard: E did not pay W
    assert sorted(transfers) == [("N", "E", 26), ("S", "E", 26), ("W", "E", 26)]


def test_la_rejects_nonsense_seats():
    with pytest.raises(ValueError):
        LaLedger().record("X", {"S": 1})
    with pytest.raises(ValueError):
        LaLedger().record("E", {"E": 1})
