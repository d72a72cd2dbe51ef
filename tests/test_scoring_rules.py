"""Presets are data: validated on load, and a house can add its own without code."""

from __future__ import annotations

import json

import pytest

from scoring.rules import RulesError, load_presets, parse_preset
from tests.scoring_helpers import patterns

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
