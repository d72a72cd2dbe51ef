"""Preset `hk` (the Hong Kong variant 台灣麻雀, in 番): the additive table, its families and special forms."""

from __future__ import annotations

from functools import partial

from tests.scoring_helpers import patterns

hk = partial(patterns, preset="hk")


def test_honour_pungs_get_dragon_round_and_seat_bonuses():
    found = hk("123m 456m 777z 111z 55p 67s", "8s", seat_wind="E", round_wind="E", flowers="2f")
    assert found["字"] == (1 + 1) + (1 + 1 + 1)  # 中 2, 東 as round and seat wind 3
    assert "字" not in hk("123m 456m 789p 234s 55p 67s", "8s")


def test_flowers_count_each_plus_own_seat():
    found = hk("123m 456m 789p 234s 55p 67s", "8s", flowers="1f 3f", seat_wind="E")
    assert found["花"] == 3 and "無花" not in found


def test_no_honours_no_flowers_family():
    assert "無字" in hk("123m 456m 789p 234s 55p 67s", "8s", flowers="2f")
    assert "無花" in hk("123m 456m 111z 234s 55p 67s", "8s")
    found = hk("123m 456m 789p 234s 55p 67s", "8s")
    assert found["無字無花大平糊"] == 15
    assert not {"無字", "無花", "無字無花", "平糊"} & set(found)
    found = hk("111m 456m 789p 234s 55p 67s", "8s")
    assert found["無字無花"] == 8 and "無字" not in found and "無花" not in found


def test_all_chows_allows_an_honour_pair():
    found = hk("123m 456m 789p 234s 11z 67s", "8s", flowers="2f", seat_wind="E")
    assert found["平糊"] == 5
    assert "平糊" not in hk("111m 456m 789p 234s 11z 67s", "8s")


def test_lone_false_lone_and_shanpon_waits():
    assert hk("123m 456m 789p 234s 55p 12s", "3s", flowers="2f")["獨獨"] == 2
    assert hk("12345m 789p 234s 55p 789s", "3m", flowers="2f")["假獨"] == 1  # W = {3m, 6m}
    assert hk("123m 456m 789p 234s 4567s", "7s", flowers="2f")["假獨"] == 1  # W = {4s, 7s}
    assert not {"獨獨", "假獨"} & set(hk("123m 456m 789p 234s 55p 67s", "8s"))
    assert hk("123m 456m 789p 234s 11z 66s", "1z", flowers="2f")["對碰"] == 2


def test_pair_258():
    assert "將眼" in hk("123m 456m 789p 234s 55p 67s", "8s")
    assert "將眼" not in hk("123m 456m 789p 234s 33p 67s", "8s")


def test_missing_suit_and_all_simples():
    assert "缺一門" in hk("123m 456m 789m 234s 55s 67s", "8s")
    assert "缺一門" not in hk("123m 456m 789p 234s 55p 67s", "8s")
    assert "斷么九" in hk("234m 456m 678p 234s 55p 67s", "8s")
    assert "斷么九" not in hk("123m 456m 678p 234s 55p 67s", "8s")


def test_five_gates_big_and_small():
    assert hk("123m 456p 789s 111z 77z 55p", "7z")["大五門齊"] == 10
    found = hk("123m 456p 789s 111z 234m 7z", "7z")  # dragons only as the pair
    assert found["小五門齊"] == 15 and "大五門齊" not in found
    assert not {"大五門齊", "小五門齊"} & set(hk("123m 456p 789s 111z 234m 5p", "5p"))


def test_self_draw_concealed_and_one_draw_eight():
    open_hand = ("chow:123m",)
    assert hk("456m 789p 234s 55p 67s", "8s", open_hand, self_drawn=True)["自摸"] == 1
    assert hk("123m 456m 789p 234s 55p 67s", "8s")["門清"] == 5
    found = hk("123m 456m 789p 234s 55p 67s", "8s", self_drawn=True)
    assert found["一摸八"] == 8 and "自摸" not in found and "門清" not in found


def test_chicken_hand_is_ten_and_drops_flowers():
    melds = ("chow:123m", "pung:999p")
    found = hk("456m 234s 11z 67s", "8s", melds, flowers="3f", seat_wind="S")
    assert found == {"大雞糊": 10}
    assert "大雞糊" not in hk("456m 234s 11z 67s", "8s", melds, flowers="3f", self_drawn=True)


def test_pairs_and_triplet_family():
    found = hk("11m 22m 33p 44p 55s 66s 77z 88s", "8s")  # eight pairs waiting: 叫八飛
    assert found["哩咕哩咕叫八飛"] == 50 and "哩咕哩咕" not in found
    assert hk("11m 22m 33p 44p 55s 66s 777z 8s", "8s")["哩咕哩咕"] == 40
    assert hk("1111m 33p 44p 55s 99s 666s 7z", "7z")["哩咕哩咕(內有一款四隻)"] == 50
    assert hk("1111m 3333p 55s 88s 666s 7z", "7z")["哩咕哩咕(內有兩款四隻)"] == 60


def test_concealed_pungs_family_and_all_concealed_pungs():
    assert hk("111m 222p 456s 456m 55p 7z7z", "7z", self_drawn=True)["三暗簡"] == 10
    assert hk("111m 222p 456s 456m 55p 78s", "9s")["兩暗簡"] == 5
    found = hk("111m 222p 333s 444m 55p 7z7z", "7z", self_drawn=True)
    assert found["簡簡糊"] == 80 and "五暗簡" not in found and "對對糊" not in found
    assert "簡簡糊" not in hk("111m 222p 333s 55p 7z7z", "7z", ("concealed_kong:4444m",), self_drawn=True)


def test_flushes_pungs_and_terminals():
    assert hk("123m 456m 789m 111z 55m 77z", "7z")["混一色"] == 30
    assert hk("123m 456m 789m 234m 55m 67m", "8m")["清一色"] == 80
    assert hk("111m 222p 55p 7z7z", "7z", ("pung:333s", "pung:444m"))["對對糊"] == 30
    found = hk("111z 222z 333z 555z 77z 6z6z", "6z", seat_wind="N", round_wind="N")
    assert found["全字對對糊"] == 100 and "對對糊" not in found
    assert hk("111m 999p 111z 555z 99s 11s", "1s")["花么九"] == 30
    assert hk("111m 999p 111p 999m 99s 11s", "1s")["全么九"] == 100


def test_thirteen_orphans_and_sixteen_unrelated():
    orphans = "19m 19p 19s 1234567z 234m"
    assert hk(orphans, "1m")["十三么"] == 100
    assert hk("19m 19p 19s 1234567z 999s", "1m")["十三么(全么九)"] == 120
    assert hk("147m 258p 369s 1234567z", "1m")["十六不搭"] == 50


def test_dragon_and_wind_families():
    assert hk("123m 456m 555z 666z 77z 67s", "8s")["小三元"] == 30
    assert hk("123m 555z 666z 777z 99p 67s", "8s")["大三元"] == 60
    found = hk("111z 222z 33z 123m 456p 67s", "8s", seat_wind="N", round_wind="N")
    assert found["小三風"] == 20 and "字" not in found
    found = hk("111z 222z 333z 123m 55p 67s", "8s", seat_wind="N", round_wind="N")
    assert found["大三風"] == 40 and "小三風" not in found
    found = hk("111z 222z 333z 44z 123m 67s", "8s", seat_wind="N", round_wind="N")
    assert found["小四喜"] == 80 and "大三風" not in found
    found = hk("111z 222z 333z 444z 555p 6p", "6p")
    assert found["大四喜"] == 100 and "小四喜" not in found and "大三風" not in found


def test_all_melded_full_and_half():
    melds = ("chow:123m", "chow:456m", "chow:789p", "chow:234s", "pung:111z")
    found = hk("5p", "5p", melds, seat_wind="S", round_wind="S")
    assert found["全求人"] == 15 and "獨獨" not in found
    found = hk("5p", "5p", melds, self_drawn=True, seat_wind="S", round_wind="S")
    assert found["半求人"] == 7 and found["自摸"] == 1


def test_identical_chows_family():
    assert hk("123m 123m 789p 234s 55p 67s", "8s")["一般高"] == 5
    assert hk("123m 123m 234s 234s 55p 67s", "8s")["雙般高"] == 10
    assert hk("123m 123m 123m 234s 55p 67s", "8s")["太般高"] == 15


def test_sisters_and_three_suit_sets():
    assert hk("123m 123p 789p 456s 55p 67s", "8s")["姊妹"] == 2
    found = hk("123m 123p 123s 456s 55p 67s", "8s")
    assert found["三相逄"] == 10 and "姊妹" not in found


def test_pure_and_mixed_dragons():
    found = hk("123m 456m 789m 234s 55p 67s", "8s")
    assert found["清龍(暗)"] == 15
    assert hk("456m 789m 234s 55p 67s", "8s", ("chow:123m",))["清龍(明)"] == 10
    assert hk("123m 456p 789s 234s 55p 67s", "8s")["雜龍(暗)"] == 20
    assert hk("456p 789s 234s 55p 67s", "8s", ("chow:123m",))["雜龍(明)"] == 15


def test_four_in_hand_family():
    assert hk("333m 345m 789p 234s 55p 67s", "8s")["四歸一"] == 5
    found = hk("333m 345m 555p 567p 22s 67s", "8s")
    assert found["雙四歸一"] == 15 and "四歸一" not in found
    assert hk("123p 345p 123m 234s 33p 78s", "9s")["四歸二"] == 10


def test_old_young_family():
    assert hk("123m 789m 456p 234s 55p 67s", "8s")["老少"] == 5
    assert hk("123m 789m 123p 789p 55s 67s", "8s")["雙老少"] == 10
    assert hk("123m 789m 456p 234s 11z 67s", "8s")["半老少"] == 15
    assert hk("123m 789m 456p 234s 99p 67s", "8s")["全老少"] == 30


def test_kongs_and_replacement_wins():
    found = hk("123m 456m 55p 67s", "8s", ("kong:1111p", "concealed_kong:9999s"))
    assert found["明槓"] == 1 and found["暗槓"] == 2
    assert hk("123m 456m 789p 234s 55p 67s", "8s", robbing_kong=True)["搶槓"] == 1
    assert hk("123m 456m 789p 234s 55p 67s", "8s", self_drawn=True, flower_replacement=True)["捕花槓"] == 1
    found = hk("123m 456m 789p 234s 55p 67s", "8s", self_drawn=True, kong_replacement=True, consecutive_kongs=2)
    assert found["槓上槓"] == 40 and "捕花槓" not in found
    found = hk("123m 456m 789p 234s 55p 67s", "8s", self_drawn=True, kong_replacement=True, consecutive_kongs=3)
    assert found["槓上槓又槓"] == 80 and "槓上槓" not in found


def test_last_tile_flowers_win_and_first_wins():
    assert hk("123m 456m 789p 234s 55p 67s", "8s", self_drawn=True, last_tile=True)["海底撈月"] == 5
    flowers = "1f 2f 3f 4f 5f 6f 7f 8f"
    assert hk("123m 456m 789p 234s 55p 67s", "8s", flowers=flowers, flower_win="eight") == {"八隻花(即食糊)": 40}
    found = hk("123m 456m 789p 234s 55p 67s", "8s", dealer=True, heavenly=True, self_drawn=True)
    assert found["天糊"] == 100 and "一摸八" not in found
    found = hk("123m 456m 789p 234s 55p 67s", "8s", earthly=True, self_drawn=True)
    assert found["地糊"] == 100 and "一摸八" not in found


def test_own_discards_bands():
    hand = ("123m 456m 789p 234s 55p 67s", "8s")
    assert hk(*hand, own_discards=2)["三子內"] == 30
    assert hk(*hand, own_discards=6)["七子內"] == 20
    assert hk(*hand, own_discards=9)["十子內"] == 10
    assert not {"三子內", "七子內", "十子內"} & set(hk(*hand, own_discards=11))


def test_dealer_then_streak_replaces_it():
    hand = ("123m 456m 789p 234s 55p 67s", "8s")
    assert hk(*hand, dealer=True)["庄"] == 1
    found = hk(*hand, dealer=True, dealer_streak=2)
    assert found["臨庄"] == 5 and "庄" not in found


def test_a_discard_completing_the_pair_leaves_the_dragon_concealed():
    # The 7s discard pairs the 7s in hand; 123-456-789 were all in hand, so 清龍 is 暗 as when self-drawn.
    on_discard = hk("123s 123s 444s 456s 789s 7s", "7s")
    assert on_discard["清龍(暗)"] == 15 and "清龍(明)" not in on_discard
    assert hk("123s 123s 444s 456s 789s 7s", "7s", self_drawn=True)["清龍(暗)"] == 15
