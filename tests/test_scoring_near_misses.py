"""Near misses: for each pattern, a hand one step away from it, where it must not score.

The positive case of each pattern lives in the preset's own test file.
"""

from __future__ import annotations

import pytest

from tests.scoring_helpers import patterns

PLAIN = "123m 456m 789p 234s 55p 67s"  # won on 8s
OPEN = ("chow:123m",)  # with "456m 789p 234s 55p 67s"

NEAR_MISSES = [
    # preset, pattern, concealed, winning tile, melds, fields
    ("taiwan", "三暗刻", "111m 222p 456s 456m 55p 78s", "9s", (), {}),
    ("taiwan", "四暗刻", "111m 222p 333s 456m 55p 7z7z", "7z", (), {}),
    ("taiwan", "五暗刻", "111m 222p 333s 444m 55p 7z7z", "7z", (), {}),
    ("taiwan", "對對胡", "111m 222p 333s 456m 55p 78s", "9s", (), {}),
    ("taiwan", "小四喜", "111z 222z 333z 123m 55p 67s", "8s", (), {}),
    ("taiwan", "大四喜", "111z 222z 333z 44z 123m 67s", "8s", (), {}),
    ("taiwan", "大三元", "123m 456m 555z 666z 77z 67s", "8s", (), {}),
    ("taiwan", "字一色", "111z 222z 333z 555z 77z 11m", "1m", (), {}),
    ("taiwan", "花槓", PLAIN, "8s", (), {"flowers": ["1f", "2f", "3f", "5f"]}),
    ("taiwan", "全求人", "456m 789p 234s 55p 67s", "8s", OPEN, {}),
    ("taiwan", "半求", "456m 789p 234s 55p 67s", "8s", OPEN, {"self_drawn": True}),
    ("taiwan", "地聽", PLAIN, "8s", (), {"declared_ready": True}),
    ("taiwan", "天聽", PLAIN, "8s", (), {"heavenly_ready": True}),  # not the dealer
    ("taiwan", "人胡", PLAIN, "8s", (), {"self_drawn": True}),
    ("taiwan", "地胡", PLAIN, "8s", (), {}),
    ("taiwan", "天胡", PLAIN, "8s", (), {"dealer": True, "self_drawn": True}),
    ("taiwan", "七搶一", PLAIN, "8s", (), {"flowers": ["1f", "2f", "3f", "4f", "5f", "6f", "7f"]}),
    ("taiwan", "八仙過海", PLAIN, "8s", (), {"flowers": ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]}),
    ("taiwan", "三元刻", "123m 456m 55z 789p 234s 67s", "8s", (), {}),
    ("taiwan", "搶槓", PLAIN, "8s", (), {"kong_replacement": True}),
    ("app", "宣布聽牌", PLAIN, "8s", (), {}),
    ("app", "門清自摸", "456m 789p 234s 55p 67s", "8s", OPEN, {"self_drawn": True}),
    ("app", "三元台", "123m 456m 789p 234s 55z 67s", "8s", (), {}),
    ("app", "圈風台", "123m 456m 222z 234s 55p 67s", "8s", (), {"round_wind": "E", "seat_wind": "E"}),
    ("app", "門風台", "123m 456m 222z 234s 55p 67s", "8s", (), {"round_wind": "E", "seat_wind": "E"}),
    ("app", "正花", PLAIN, "8s", (), {"flowers": ["3f"], "seat_wind": "E"}),
    ("app", "花槓", PLAIN, "8s", (), {"flowers": ["1f", "2f", "3f"]}),
    ("app", "哩咕哩咕", PLAIN, "8s", (), {}),
    ("app", "七搶一", PLAIN, "8s", (), {}),
    ("app", "八仙過海", PLAIN, "8s", (), {}),
    ("app", "小四喜", "111z 222z 333z 123m 55p 67s", "8s", (), {}),
    ("app", "大四喜", "111z 222z 333z 44z 123m 67s", "8s", (), {}),
    ("app", "地胡", PLAIN, "8s", (), {}),
    ("app", "天胡", PLAIN, "8s", (), {"dealer": True, "self_drawn": True}),
    ("hk", "花", PLAIN, "8s", (), {}),
    ("hk", "無字無花大平糊", PLAIN, "8s", (), {"flowers": ["2f"]}),
    ("hk", "對碰", PLAIN, "8s", (), {}),
    ("hk", "門清", "456m 789p 234s 55p 67s", "8s", OPEN, {}),
    ("hk", "一摸八", PLAIN, "8s", (), {}),
    ("hk", "自摸", PLAIN, "8s", (), {}),
    ("hk", "混一色", "123m 456m 789m 234m 55m 67m", "8m", (), {}),
    ("hk", "清一色", "123m 456m 789m 111z 55m 77z", "7z", (), {}),
    ("hk", "對對糊", "111m 222p 333s 456m 55p 7z7z", "7z", (), {}),
    ("hk", "全字對對糊", "111m 222z 333z 555z 77z 6z6z", "6z", (), {}),
    ("hk", "花么九", "111m 999p 111p 999m 99s 11s", "1s", (), {}),
    ("hk", "全么九", "111m 999p 111z 555z 99s 11s", "1s", (), {}),
    ("hk", "十三么(全么九)", "19m 19p 19s 1234567z 234m", "1m", (), {}),
    ("hk", "兩暗簡", "111m 456p 456s 456m 55p 78s", "9s", (), {}),
    ("hk", "小三元", "123m 456m 555z 666z 77p 67s", "8s", (), {}),
    ("hk", "大三元", "123m 456m 555z 666z 77z 67s", "8s", (), {}),
    ("hk", "小三風", "111z 222z 33p 123m 456p 67s", "8s", (), {}),
    ("hk", "大三風", "111z 222z 33z 123m 456p 67s", "8s", (), {}),
    ("hk", "海底撈月", PLAIN, "8s", (), {"last_tile": True}),
    ("hk", "一般高", "123m 234m 789p 234s 55p 67s", "8s", (), {}),
    ("hk", "雙般高", "123m 123m 234s 456s 55p 67s", "8s", (), {}),
    ("hk", "太般高", "123m 123m 234m 234s 55p 67s", "8s", (), {}),
    ("hk", "姊妹", "123m 456p 789p 234s 55p 67s", "8s", (), {}),
    ("hk", "三相逄", "123m 123p 789p 456s 55p 67s", "8s", (), {}),
    ("hk", "清龍(暗)", "123m 456m 678m 234s 55p 67s", "8s", (), {}),
    ("hk", "雜龍(暗)", "123m 456p 678s 234s 55p 67s", "8s", (), {}),
    ("hk", "四歸一", "123m 345m 789p 234s 55p 67s", "8s", (), {}),
    ("hk", "四歸二", "123p 345p 123m 234s 44p 78s", "9s", (), {}),
    ("hk", "老少", "123m 678m 456p 234s 55p 67s", "8s", (), {}),
    ("hk", "雙老少", "123m 789m 123p 678p 55s 67s", "8s", (), {}),
    ("hk", "半老少", "123m 789m 456p 234s 55p 67s", "8s", (), {}),
    ("hk", "全老少", "123m 789m 456p 234s 11z 67s", "8s", (), {}),
    ("hk", "搶槓", PLAIN, "8s", (), {}),
    ("hk", "捕花槓", PLAIN, "8s", (), {"flower_replacement": True}),  # not self-drawn
    ("hk", "槓上槓", PLAIN, "8s", (), {"self_drawn": True, "kong_replacement": True, "consecutive_kongs": 1}),
    ("hk", "八隻花(即食糊)", PLAIN, "8s", (), {"flowers": ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]}),
    ("hk", "天糊", PLAIN, "8s", (), {"dealer": True, "self_drawn": True}),
    ("hk", "地糊", PLAIN, "8s", (), {"self_drawn": True}),
    ("hk", "十子內", PLAIN, "8s", (), {"own_discards": 11}),
    ("hk", "明槓", PLAIN, "8s", (), {}),
    ("hk", "暗槓", "123m 456m 789p 55p 67s", "8s", ("kong:1111p",), {}),
]


@pytest.mark.parametrize(
    ("preset", "pattern", "concealed", "win", "melds", "fields"),
    NEAR_MISSES,
    ids=[f"{case[0]}-{case[1]}" for case in NEAR_MISSES],
)
def test_near_miss(preset, pattern, concealed, win, melds, fields):
    flowers = " ".join(fields.pop("flowers", [])) if "flowers" in fields else ""
    assert pattern not in patterns(concealed, win, melds, flowers, preset, **fields)
