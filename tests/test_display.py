"""The CLI's human output: tiles by name in a player's order, rules in columns that line up."""

from __future__ import annotations

import re

from scoring.rules import load_presets
from taicam.display import display_width, hand_line, rules_lines

HAND = {
    "concealed": ["6s", "5s", "3s", "4z", "5s", "4z", "6s", "5s", "6s", "4z"],
    "melds": [{"kind": "pung", "tiles": ["7z", "7z", "7z"]}, {"kind": "chow", "tiles": ["3s", "1s", "2s"]}],
    "flowers": ["5f", "1f"],
    "winning_tile": "5p",
}


def test_hand_line_by_name_sorted_with_melds_as_sets():
    by_name = "三條五條五條五條六條六條六條北北北 ｜ 碰 中中中 ｜ 吃 一條二條三條 ｜ 花 春 梅 ｜ 胡 五筒"
    assert hand_line(HAND, chinese=True) == by_name
    assert hand_line(HAND, chinese=False) == "3555666s 444z ｜ pung 777z ｜ chow 123s ｜ flowers 1f 5f ｜ won on 5p"


def test_rules_columns_line_up_and_name_what_they_exclude():
    preset = load_presets()["app"]
    lines = rules_lines(preset, preset.resolve_options({"zimo_tai": 2}))
    pattern_lines = [line for line in lines[1:] if re.match(r"  \S", line) and not line.startswith("  options")]
    value_ends = {display_width(re.match(r"(.*?\d+)(\s|$)", line).group(1)) for line in pattern_lines}
    assert len(value_ends) == 1, value_ends  # every 台 value ends in the same column
    assert not any(re.search(r"[a-z]+_[a-z]+", line.split("不計")[1]) for line in pattern_lines if "不計" in line)
    assert any(line.strip().startswith("自摸") and re.search(r"\b2\s+\(option zimo_tai\)", line) for line in pattern_lines)
    assert any("zimo_tai = 2" in line and "(default 0)" in line for line in lines)


def test_a_changed_true_or_false_option_shows_its_default_as_the_json_spells_it():
    preset = load_presets()["taiwan"]
    lines = rules_lines(preset, preset.resolve_options({"kong_tai": True}))
    assert any("kong_tai = true" in line and line.endswith("(default false)") for line in lines), lines
