"""Preset `taiwan` (standard Taiwan rules): every pattern scores once and misses once; exclusions and options."""

from __future__ import annotations

from tests.scoring_helpers import patterns

# A plain concealed hand: 123m 456m 789p 234s 55p + 67s waiting on 5s/8s, won on 8s by discard.
PLAIN = "123m 456m 789p 234s 55p 67s"
# The same shape with an honour pair: never 平胡, so other patterns stand alone.
WITH_HONOUR_PAIR = "123m 456m 789p 234s 11z 67s"
MELD_CHOW = ("chow:789p",)


def test_pinghu_and_concealed_on_a_two_sided_discard_win():
    assert patterns(PLAIN, "8s") == {"門清": 1, "平胡": 2}


def test_pinghu_misses_on_flower_self_draw_edge_wait_and_honour():
    assert "平胡" not in patterns(PLAIN, "8s", flowers="2f")
    assert "平胡" not in patterns(PLAIN, "8s", self_drawn=True)
    assert "平胡" not in patterns("123m 456m 789p 234s 55p 12s", "3s")  # edge
    assert "平胡" not in patterns(WITH_HONOUR_PAIR, "8s")


def test_pinghu_options():
    open_hand = ("chow:789p",)
    assert "平胡" in patterns("123m 456m 234s 55p 67s", "8s", open_hand)
    assert "平胡" not in patterns("123m 456m 234s 55p 67s", "8s", open_hand, options={"pinghu_requires_concealed": True})
    three_sided = "23456m 789p 234s 567s 55p"  # waits 1m 4m 7m
    assert "平胡" in patterns(three_sided, "4m")
    assert "平胡" not in patterns(three_sided, "4m", options={"pinghu_multiwait": False})


def test_dealer_is_2n_plus_1_as_one_entry():
    # The name carries the streak (莊家連2拉2), as a player says it; with none it is just 莊家.
    assert patterns(WITH_HONOUR_PAIR, "8s", dealer=True, dealer_streak=2)["莊家連2拉2"] == 5
    assert patterns(WITH_HONOUR_PAIR, "8s", dealer=True, dealer_streak=7)["莊家連7拉7"] == 15
    assert patterns(WITH_HONOUR_PAIR, "8s", dealer=True)["莊家"] == 1
    assert not any(name.startswith("莊家") for name in patterns(WITH_HONOUR_PAIR, "8s", dealer_streak=2))


def test_self_draw_open_hand_versus_concealed_self_draw():
    open_found = patterns("123m 456m 234s 11z 67s", "8s", MELD_CHOW, self_drawn=True)
    assert open_found == {"自摸": 1}
    closed = patterns(WITH_HONOUR_PAIR, "8s", self_drawn=True)
    assert closed == {"不求人": 3}  # replaces 門清 and 自摸


def test_concealed_needs_no_open_meld_but_allows_concealed_kong():
    assert "門清" not in patterns("123m 456m 234s 11z 67s", "8s", MELD_CHOW)
    assert "門清" in patterns("123m 456m 234s 11z 67s", "8s", ("concealed_kong:9999p",))


def test_dragon_pungs_sum_into_one_entry():
    assert patterns("123m 456m 777z 666z 11p 67s", "8s")["三元刻"] == 2
    assert "三元刻" not in patterns("123m 456m 789p 234s 77z 67s", "8s")


def test_round_and_seat_wind_pungs_stack_on_one_pung():
    found = patterns("123m 456m 111z 234s 55p 67s", "8s", seat_wind="E", round_wind="E")
    assert found["圈風刻"] == 1 and found["門風刻"] == 1
    found = patterns("123m 456m 222z 234s 55p 67s", "8s", seat_wind="S", round_wind="E")
    assert "圈風刻" not in found and found["門風刻"] == 1
    assert not {"圈風刻", "門風刻"} & set(patterns("123m 456m 333z 234s 55p 67s", "8s", seat_wind="S"))


def test_seat_flowers_and_flower_sets():
    assert patterns(WITH_HONOUR_PAIR, "8s", flowers="2f 6f", seat_wind="S")["正花"] == 2
    assert "正花" not in patterns(WITH_HONOUR_PAIR, "8s", flowers="1f 5f", seat_wind="S")
    found = patterns(WITH_HONOUR_PAIR, "8s", flowers="1f 2f 3f 4f 5f", seat_wind="E")
    assert found["花槓"] == 2 and found["正花"] == 1  # 1f sits inside the 花槓 set; 5f still counts
    assert patterns(WITH_HONOUR_PAIR, "8s", flowers="1f 2f 3f 4f 5f 6f 7f 8f")["花槓"] == 4


def test_edge_wait_only_when_it_is_the_only_tile():
    assert "邊張" in patterns("123m 456m 789p 234s 55p 12s", "3s")
    # 12345 won on 3: W = {3, 6}, so no 邊張 unless the house option says so.
    # A flower rules out 平胡, which would otherwise outscore the edge reading.
    assert "邊張" not in patterns("12345m 789p 234s 55p 789s", "3m", flowers="3f")
    assert "邊張" in patterns("12345m 789p 234s 55p 789s", "3m", flowers="3f", options={"edge_wait_12345": True})


def test_closed_wait():
    assert "崁張" in patterns("123m 456m 789p 234s 55p 79s", "8s")
    assert "崁張" not in patterns("123m 456m 789p 234s 55p 78s", "9s")  # 78 waits 6 and 9


def test_single_wait_and_its_4567_option():
    assert "獨聽" in patterns("123m 456m 789p 234s 678s 5p", "5p")
    assert "獨聽" not in patterns("123m 456m 789p 234s 4567s", "7s")
    assert "獨聽" in patterns("123m 456m 789p 234s 4567s", "7s", options={"single_wait_4567": True})


def test_situational_patterns():
    assert "搶槓" in patterns(WITH_HONOUR_PAIR, "8s", robbing_kong=True)
    assert "搶槓" not in patterns(WITH_HONOUR_PAIR, "8s")
    found = patterns(WITH_HONOUR_PAIR, "8s", self_drawn=True, kong_replacement=True)
    assert found["槓上開花"] == 1 and found["不求人"] == 3
    assert "槓上開花" in patterns(WITH_HONOUR_PAIR, "8s", self_drawn=True, flower_replacement=True)
    assert "槓上開花" not in patterns(WITH_HONOUR_PAIR, "8s", kong_replacement=True)  # not self-drawn
    assert "海底撈月" in patterns(WITH_HONOUR_PAIR, "8s", self_drawn=True, last_tile=True)
    assert patterns(WITH_HONOUR_PAIR, "8s", last_tile=True) == {"門清": 1}  # no 河底撈魚 row


ALL_MELDED = ("chow:123m", "chow:456m", "chow:789p", "chow:234s", "pung:111z")


def test_all_melded_on_discard_and_half_on_self_draw():
    found = patterns("5p", "5p", ALL_MELDED, seat_wind="S", round_wind="S")
    assert found == {"全求人": 2}  # no 獨聽 on top
    found = patterns("5p", "5p", ALL_MELDED, self_drawn=True, seat_wind="S", round_wind="S")
    assert found == {"半求": 1, "自摸": 1}


def test_all_melded_with_a_concealed_kong_is_only_single_wait():
    melds = ("chow:123m", "chow:456m", "chow:789p", "chow:234s", "concealed_kong:1111z")
    found = patterns("5p", "5p", melds, seat_wind="S", round_wind="S")
    assert "全求人" not in found and found["獨聽"] == 1


def test_concealed_pung_counts():
    found = patterns("111m 222p 333s 456m 55p 7z7z", "7z")
    assert "三暗刻" in found  # 7z completed by discard is not concealed
    assert "四暗刻" in patterns("111m 222p 333s 456m 55p 7z7z", "7z", self_drawn=True)
    found = patterns("111m 222p 333s 444m 55p 7z7z", "7z", self_drawn=True)
    assert found["五暗刻"] == 8 and found["對對胡"] == 4 and "四暗刻" not in found
    assert "三暗刻" not in patterns("111m 222p 456s 456m 55p 7z7z", "7z")


def test_all_pungs_and_flushes():
    assert "對對胡" in patterns("111m 222p 55p 7z7z", "7z", ("pung:333s", "pung:444m"))
    assert "對對胡" not in patterns(WITH_HONOUR_PAIR, "8s")
    assert "混一色" in patterns("123m 456m 789m 111z 55m 77z", "7z")
    assert "清一色" in patterns("123m 456m 789m 234m 55m 67m", "8m")
    assert not {"混一色", "清一色"} & set(patterns(PLAIN, "8s"))


def test_dragon_families_replace_dragon_pungs():
    found = patterns("123m 456m 555z 666z 77z 67s", "8s")
    assert found["小三元"] == 4 and "三元刻" not in found
    found = patterns("123m 555z 666z 777z 99p 67s", "8s")
    assert found["大三元"] == 8 and "三元刻" not in found
    assert "小三元" not in patterns("123m 456m 555z 666z 77p 67s", "8s")


def test_small_winds_keeps_wind_pungs_by_default():
    hand = "111z 222z 333z 44z 123m 67s"
    found = patterns(hand, "8s", seat_wind="E", round_wind="S")
    assert found["小四喜"] == 8 and found["圈風刻"] == 1 and found["門風刻"] == 1
    found = patterns(hand, "8s", seat_wind="E", round_wind="S", options={"xiaosixi_wind_tai": False})
    assert "圈風刻" not in found and "門風刻" not in found


def test_big_winds_drops_wind_pungs_and_all_honours_drops_all_pungs():
    found = patterns("111z 222z 333z 444z 555p 6p", "6p", seat_wind="E", round_wind="E")
    assert found["大四喜"] == 16 and "圈風刻" not in found and "門風刻" not in found
    found = patterns("111z 222z 333z 555z 77z 6z6z", "6z", seat_wind="N", round_wind="N")
    assert found["字一色"] == 16 and "對對胡" not in found
    found = patterns("111z 222z 333z 555z 77z 6z6z", "6z", seat_wind="N", options={"ziyise_counts_duidui": True})
    assert found["對對胡"] == 4


def test_ready_and_first_round_wins():
    assert patterns(WITH_HONOUR_PAIR, "8s", earthly_ready=True) == {"地聽": 4, "門清": 1}
    assert patterns(WITH_HONOUR_PAIR, "8s", dealer=True, heavenly_ready=True) == {"莊家": 1, "天聽": 8}
    # 天聽 self-drawn: 不求人 drops to 自摸 (the standard rules list 天聽 as 不計門清, so 門清自摸 cannot stand).
    found = patterns(WITH_HONOUR_PAIR, "8s", dealer=True, heavenly_ready=True, self_drawn=True)
    assert found == {"莊家": 1, "天聽": 8, "自摸": 1}
    assert patterns(WITH_HONOUR_PAIR, "8s", human=True) == {"人胡": 16}
    assert patterns(WITH_HONOUR_PAIR, "8s", earthly=True, self_drawn=True) == {"地胡": 16}
    found = patterns("123m 456m 789p 234s 55p 12s", "3s", dealer=True, heavenly=True, self_drawn=True)
    assert found == {"莊家": 1, "天胡": 24}  # no 邊張, 門清, 自摸
    with_kong = patterns("123m 456m 234s 11z 67s", "8s", ("concealed_kong:9999p",), dealer=True, heavenly=True, self_drawn=True)
    assert "天胡" not in with_kong  # standard rules: no 暗槓 allowed


def test_flower_wins_score_only_themselves_and_dealer():
    found = patterns(PLAIN, "8s", flowers="1f 2f 3f 4f 5f 6f 7f 8f", flower_win="eight", dealer=True)
    assert found == {"八仙過海": 8, "莊家": 1}
    found = patterns(PLAIN, "8s", flowers="1f 2f 3f 4f 5f 6f 7f 8f", flower_win="seven_rob_one")
    assert found == {"七搶一": 8}


def test_variant_rows():
    found = patterns(WITH_HONOUR_PAIR, "8s", flowers="3f 4f", seat_wind="E", options={"jian_hua_jian_tai": True})
    assert found["見花見台"] == 2 and "正花" not in found
    found = patterns("123m 456m 333z 234s 55p 67s", "8s", seat_wind="E", options={"jian_feng_jian_tai": True})
    assert found["見風見台"] == 1
    kongs = ("kong:1111p", "concealed_kong:9999s")
    found = patterns("123m 456m 11z 67s", "8s", kongs, options={"kong_tai": True})
    assert found["明槓"] == 1 and found["暗槓"] == 2
    assert "明槓" not in patterns("123m 456m 11z 67s", "8s", kongs)
    assert patterns(PLAIN, "8s", options={"wu_zi_wu_hua": True})["無字無花"] == 2


def test_decomposition_choice_changes_the_score():
    # 111222333m can be three pungs or three chows: the pungs read as 四暗刻 with 777s.
    found = patterns("111222333m 456p 55s 77s", "7s", self_drawn=True)
    assert found == {"四暗刻": 5, "不求人": 3}
    # The same tiles won by discard: 三暗刻 still beats reading them as chows.
    assert "三暗刻" in patterns("111222333m 456p 789s 5s", "5s")
