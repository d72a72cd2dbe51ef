"""Presets are data: validated on load, and a house can add its own without code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scoring
from scoring.patterns import AllChowsParams
from scoring.rules import MAX_OPTION_TAI, RulesError, load_presets, parse_preset
from tests.scoring_helpers import error_code, hand, patterns, refusal, scored

MINIMAL = {"name": "house", "unit": "台", "patterns": [{"id": "concealed", "name": "門清", "check": "concealed", "tai": 2}]}


def test_bundled_presets_load_with_every_check_known():
    presets = load_presets(())
    assert {"taiwan", "app", "hk"} <= set(presets)


@pytest.mark.parametrize(
    "broken",
    [
        {**MINIMAL, "colour": "red"},
        {**MINIMAL, "patterns": [{**MINIMAL["patterns"][0], "check": "no_such_check"}]},
        {**MINIMAL, "patterns": [{**MINIMAL["patterns"][0], "excludes": ["ghost"]}]},
        {**MINIMAL, "patterns": [{**MINIMAL["patterns"][0], "tai": "not_an_option"}]},
        {**MINIMAL, "patterns": [{**MINIMAL["patterns"][0], "surprise": 1}]},
        {**MINIMAL, "forms": ["standard", "riichi"]},
        {
            **MINIMAL,
            "patterns": [
                {"id": "a", "name": "A", "check": "concealed", "tai": 1, "excludes": ["b"]},
                {"id": "b", "name": "B", "check": "self_draw", "tai": 1, "excludes": ["a"]},
            ],
        },
    ],
)
def test_invalid_presets_are_rejected(broken):
    with pytest.raises(RulesError):
        parse_preset(broken, "test")


def test_a_house_preset_from_a_folder(tmp_path, monkeypatch):
    (tmp_path / "house.json").write_text(json.dumps(MINIMAL), encoding="utf-8")
    monkeypatch.setenv("TAICAM_PRESETS", str(tmp_path))
    load_presets.cache_clear()
    try:
        assert patterns("123m 456m 789p 234s 55p 67s", "8s", preset="house") == {"門清": 2}
    finally:
        monkeypatch.delenv("TAICAM_PRESETS")
        load_presets.cache_clear()


def _taiwan() -> dict:
    return json.loads((Path(scoring.__file__).parent / "presets" / "taiwan.json").read_text(encoding="utf-8"))


def _with_pattern(preset: dict, pattern_id: str, **changes) -> dict:
    changed = [{**p, **changes} if p["id"] == pattern_id else p for p in preset["patterns"]]
    return {**preset, "name": "house", "patterns": changed}


def _misspelt(params: dict, right: str, wrong: str) -> dict:
    return {wrong if key == right else key: value for key, value in params.items()}


def test_a_misspelt_param_is_refused_naming_file_pattern_and_key():
    taiwan = _taiwan()
    pinghu = next(p for p in taiwan["patterns"] if p["id"] == "pinghu")
    broken = _with_pattern(taiwan, "pinghu", params=_misspelt(pinghu["params"], "two_sided", "two_sied"))
    with pytest.raises(RulesError) as raised:
        parse_preset(broken, "house/taiwan-copy.json")
    message = str(raised.value)
    assert "house/taiwan-copy.json" in message and "'pinghu'" in message and "two_sied" in message
    assert "\n" not in message


def test_a_misspelt_required_param_is_refused_at_load_not_at_score_time():
    broken = _with_pattern(_taiwan(), "closed_wait", params={"shape": ["closed"]})
    with pytest.raises(RulesError, match=r"'closed_wait'.*unknown param 'shape'"):
        parse_preset(broken, "house.json")
    with pytest.raises(RulesError, match="missing param 'count'"):
        parse_preset(_with_pattern(_taiwan(), "three_concealed_pungs", params={}), "house.json")


@pytest.mark.parametrize(
    ("pattern_id", "params", "expected"),
    [
        ("three_concealed_pungs", {"count": "3"}, "param 'count' must be a whole number"),
        ("closed_wait", {"shapes": ["closd"]}, "param 'shapes' must be a list"),
        ("kong_flower", {"flower_replacement": 1}, "must be true or false"),
        ("edge_wait", {"shapes": ["edge"], "any_count_option": "edge_wait_1234"}, "reads option 'edge_wait_1234'"),
    ],
)
def test_mistyped_params_and_unknown_options_they_read_are_refused(pattern_id, params, expected):
    with pytest.raises(RulesError, match=expected):
        parse_preset(_with_pattern(_taiwan(), pattern_id, params=params), "house.json")


def test_a_check_that_reads_an_option_needs_the_preset_to_declare_it():
    taiwan = _taiwan()
    options = {k: v for k, v in taiwan["options"].items() if k != "pinghu_requires_concealed"}
    with pytest.raises(RulesError, match=r"'pinghu'.*pinghu_requires_concealed"):
        parse_preset({**taiwan, "options": options}, "house.json")


def test_option_values_are_range_checked_at_load_and_per_hand():
    app = json.loads((Path(scoring.__file__).parent / "presets" / "app.json").read_text(encoding="utf-8"))
    negative = {**app, "options": {**app["options"], "zimo_tai": {"default": -1}}}
    with pytest.raises(RulesError, match=r"zimo_tai.*≥ 0"):
        parse_preset(negative, "house.json")
    switch_as_tai = _with_pattern(app, "self_draw", tai="concealed_kong_is_anke")
    with pytest.raises(RulesError, match=r"'self_draw'.*'tai'"):
        parse_preset(switch_as_tai, "house.json")
    data = hand("123m 456m 234s 11z 67s", "8s", ("chow:789p",), preset="app", self_drawn=True)
    assert error_code({**data, "options": {"zimo_tai": -2}}) == "bad_option"
    assert error_code({**data, "options": {"zimo_tai": True}}) == "bad_option"
    assert error_code({**data, "options": {"concealed_kong_is_anke": 1}}) == "bad_option"


def test_a_count_option_has_a_ceiling_and_its_refusal_spells_the_value_as_json():
    data = hand("123m 456m 234s 11z 67s", "8s", ("chow:789p",), preset="app", self_drawn=True)
    at_most = scored({**data, "options": {"zimo_tai": MAX_OPTION_TAI}})
    assert {p["name"]: p["tai"] for p in at_most["patterns"]}["自摸"] == MAX_OPTION_TAI
    error = refusal({**data, "options": {"zimo_tai": 99_999_999_999}})  # was scored: 10¹¹ 台
    assert error.code == "bad_option" and f"at most {MAX_OPTION_TAI}" in error.message
    assert refusal({**data, "options": {"zimo_tai": True}}).message.endswith("got true")


def test_bundled_params_are_typed_objects():
    taiwan = load_presets(())["taiwan"]
    pinghu = next(p for p in taiwan.patterns if p.id == "pinghu")
    assert isinstance(pinghu.params, AllChowsParams) and pinghu.params.two_sided
    assert pinghu.params.options_read() == ("pinghu_requires_concealed", "pinghu_multiwait")
    flower_win_kept = {p.id for p in taiwan.patterns if p.scores_flower_win}
    assert flower_win_kept == {"dealer", "eight_flowers", "seven_rob_one"}


def test_a_misspelt_option_is_refused_whether_declared_or_referred_to():
    app = json.loads((Path(scoring.__file__).parent / "presets" / "app.json").read_text(encoding="utf-8"))
    options = {("concealed_kong_is_anki" if k == "concealed_kong_is_anke" else k): v for k, v in app["options"].items()}
    with pytest.raises(RulesError, match=r"option 'concealed_kong_is_anki' is declared but nothing reads it"):
        parse_preset({**app, "options": options}, "house.json")
    with pytest.raises(RulesError, match=r"'self_draw'.*'tai'"):
        parse_preset(_with_pattern(app, "self_draw", tai="zimo_tia"), "house.json")
    with pytest.raises(RulesError, match=r"'exposed_kong': unknown option 'kong_tia'"):
        parse_preset(_with_pattern(_taiwan(), "exposed_kong", when_option="kong_tia"), "house.json")
