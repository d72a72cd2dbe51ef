"""Preset `app` (a Taiwan mahjong app's rules page): its own values, its short exclusion list and its options."""

from __future__ import annotations

from functools import partial

from tests.scoring_helpers import error_code, hand, patterns

app = partial(patterns, preset="app")
PLAIN = "123m 456m 789p 234s 55p 67s"
WITH_HONOUR_PAIR = "123m 456m 789p 234s 11z 67s"


def test_dealer_and_streak_are_separate_rows():
    assert app(WITH_HONOUR_PAIR, "8s", dealer=True, dealer_streak=2) == {"莊家": 1, "連莊": 4, "門清": 1}
    assert "連莊" not in app(WITH_HONOUR_PAIR, "8s", dealer=True)
    assert "莊家" not in app(WITH_HONOUR_PAIR, "8s")


def test_no_self_draw_row_unless_the_house_sets_zimo_tai():
    assert app("123m 456m 234s 11z 67s", "8s", ("chow:789p",), self_drawn=True) == {}
    found = app("123m 456m 234s 11z 67s", "8s", ("chow:789p",), self_drawn=True, options={"zimo_tai": 1})
    assert found == {"自摸": 1}
    assert app(WITH_HONOUR_PAIR, "8s", self_drawn=True) == {"門清自摸": 3}


def test_declared_ready_and_its_exclusion_by_earthly_ready():
    assert app(WITH_HONOUR_PAIR, "8s", declared_ready=True) == {"宣布聽牌": 1, "門清": 1}
    assert app(WITH_HONOUR_PAIR, "8s", declared_ready=True, earthly_ready=True) == {"地聽": 8}
    assert "地聽" not in app("123m 456m 234s 11z 67s", "8s", ("chow:789p",), earthly_ready=True)  # must be 門清
    assert app(WITH_HONOUR_PAIR, "8s", declared_ready=True, dealer=True, heavenly_ready=True) == {"天聽": 16, "莊家": 1}


def test_single_wait_covers_edge_closed_and_single_when_only_one_tile():
    assert "獨聽" in app("123m 456m 789p 234s 55p 12s", "3s")
    assert "獨聽" in app("123m 456m 789p 234s 55p 79s", "8s")
    assert "獨聽" in app("123m 456m 789p 234s 678s 5p", "5p")
    assert "獨聽" not in app("12345m 789p 234s 55p 789s", "3m")


def test_pinghu_is_literal_self_draw_and_lone_waits_allowed():
    assert app(PLAIN, "8s") == {"門清": 1, "平胡": 1}
    assert app(PLAIN, "8s", self_drawn=True) == {"門清自摸": 3, "平胡": 1}
    assert "平胡" in app("123m 456m 789p 234s 55p 12s", "3s")
    assert "平胡" not in app(PLAIN, "8s", flowers="1f")


def test_honour_pungs_and_flowers():
    found = app("123m 111z 555z 234s 55p 67s", "8s", flowers="1f 5f", seat_wind="E", round_wind="E")
    assert found["三元台"] == 1 and found["圈風台"] == 1 and found["門風台"] == 1 and found["正花"] == 2
    found = app(WITH_HONOUR_PAIR, "8s", flowers="1f 2f 3f 4f", seat_wind="E")
    assert found["花槓"] == 2 and "正花" not in found


def test_situations():
    assert "搶槓" in app(WITH_HONOUR_PAIR, "8s", robbing_kong=True)
    assert "槓上開花" in app(WITH_HONOUR_PAIR, "8s", self_drawn=True, kong_replacement=True)
    assert "槓上開花" not in app(WITH_HONOUR_PAIR, "8s", self_drawn=True, flower_replacement=True)
    assert "海底撈月" in app(WITH_HONOUR_PAIR, "8s", self_drawn=True, last_tile=True)
    assert "海底撈魚" in app(WITH_HONOUR_PAIR, "8s", last_tile=True)
    assert "海底撈魚" not in app(WITH_HONOUR_PAIR, "8s", self_drawn=True, last_tile=True)


def test_all_melded_needs_a_discard():
    melds = ("chow:123m", "chow:456m", "chow:789p", "chow:234s", "pung:111z")
    assert app("5p", "5p", melds, seat_wind="S", round_wind="S") == {"全求": 2}
    assert app("5p", "5p", melds, self_drawn=True, seat_wind="S", round_wind="S") == {"獨聽": 1}


def test_concealed_pungs_and_the_kong_option():
    assert "三暗刻" in app("111m 222p 333s 456m 55p 7z7z", "7z")
    assert "四暗刻" in app("111m 222p 333s 456m 55p 7z7z", "7z", self_drawn=True)
    found = app("111m 222p 333s 444m 55p 7z7z", "7z", self_drawn=True)
    assert found["五暗刻"] == 8 and found["碰碰胡"] == 4
    kong = ("concealed_kong:9999s",)
    assert "三暗刻" in app("111m 222p 456m 55p 7z7z", "7z", kong)
    assert "三暗刻" not in app("111m 222p 456m 55p 7z7z", "7z", kong, options={"concealed_kong_is_anke": False})


def test_suit_and_honour_families():
    assert "混一色" in app("123m 456m 789m 111z 55m 77z", "7z")
    assert "清一色" in app("123m 456m 789m 234m 55m 67m", "8m")
    assert app("111z 222z 333z 555z 77z 6z6z", "6z", seat_wind="N", round_wind="N")["字一色"] == 8
    assert "碰碰胡" not in app("111z 222z 333z 555z 77z 6z6z", "6z", seat_wind="N", round_wind="N")
    found = app("123m 456m 555z 666z 77z 67s", "8s")
    assert found["小三元"] == 4 and "三元台" not in found
    assert app("123m 555z 666z 777z 99p 67s", "8s")["大三元"] == 8
    assert app("111z 222z 333z 44z 123m 67s", "8s", seat_wind="N", round_wind="N")["小四喜"] == 8
    found = app("111z 222z 333z 444z 555p 6p", "6p", seat_wind="E", round_wind="E")
    assert found["大四喜"] == 16 and "圈風台" not in found


def test_eight_and_a_half_pairs_is_a_winning_form_here_only():
    pairs = "11m 22m 33p 44p 55s 66s 77z 88s"
    found = app(pairs, "8s")
    assert found["哩咕哩咕"] == 8 and found["門清"] == 1
    assert "獨聽" not in found and "三暗刻" not in found
    assert error_code(hand(pairs, "8s", preset="taiwan")) == "not_winning"


def test_flower_wins_and_first_round_wins():
    flowers = "1f 2f 3f 4f 5f 6f 7f 8f"
    assert app(PLAIN, "8s", flowers=flowers, flower_win="eight") == {"八仙過海": 16}
    assert app(PLAIN, "8s", flowers=flowers, flower_win="seven_rob_one") == {"七搶一": 8}
    assert app(WITH_HONOUR_PAIR, "8s", earthly=True, self_drawn=True) == {"地胡": 16}
    with_kong = app("123m 456m 234s 11z 67s", "8s", ("concealed_kong:9999p",), dealer=True, heavenly=True, self_drawn=True)
    assert with_kong == {"天胡": 24, "莊家": 1}  # the app's rules allow 暗槓
