"""The scorer's shortcuts give the same answer as the plain evaluation they stand in for.

The shortcuts: situational rules run once per hand, rules skip the forms they cannot score on,
rules skip a reading whose needed fact is false, and set views are shared between readings.
The reference runs every switched-on rule on every reading, with none of the first three.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import evaluate
from scoring import hand as scoring_hand
from scoring.hand import HandError, _parse_meld, parse_hand
from scoring.interpret import HAND_FACTS, Interpretation, fact
from scoring.patterns import CHECK_SPECS, check
from scoring.tiles import HONOURS, PLAYING_TILES
from tests.scoring_helpers import answer, patterns, scored
from tests.scoring_helpers import hand as notation_hand
from tests.test_scoring_properties import draw_legal_hand, legal_hands

RARE_FLAGS = ("last_tile", "kong_replacement", "flower_replacement", "declared_ready", "heavenly_ready", "earthly_ready")


@contextmanager
def every_rule_on_every_reading() -> Iterator[None]:
    """Score as the plain definition: no rule is situational, limited to forms, gated or picked."""
    saved = dict(CHECK_SPECS)
    for name, spec in saved.items():
        CHECK_SPECS[name] = replace(spec, situational=False, forms=(), needs="", picked_by=())
    evaluate._ACTIVE_CACHE.clear()  # plans are built from the specs
    try:
        yield
    finally:
        CHECK_SPECS.update(saved)
        evaluate._ACTIVE_CACHE.clear()


@st.composite
def few_suit_hands(draw) -> dict:
    """A winning hand of one to three suits and honours, as tables see them: flushes, dragons,
    twin chows and 四歸一 come up often, where drawing from all suits rarely makes them."""
    suits = draw(st.lists(st.sampled_from("mps"), min_size=1, max_size=3, unique=True))
    kinds = [f"{n}{s}" for s in suits for n in range(1, 10)] + list(HONOURS)
    return draw_legal_hand(draw, suits, kinds, shuffle=False)


@st.composite
def situations(draw) -> dict:
    """A legal hand in a varied situation: the rare flags too, so the gated rules get to score."""
    hand = draw(legal_hands() | few_suit_hands())
    # A few rare flags at most, often none: the rare patterns are skipped on hands without any.
    for flag in draw(st.lists(st.sampled_from(RARE_FLAGS), max_size=2, unique=True)):
        hand[flag] = True
    if draw(st.booleans()):
        hand["own_discards"] = draw(st.integers(0, 12))
    if draw(st.booleans()):
        hand["consecutive_kongs"] = draw(st.integers(0, 3))
    if not hand["self_drawn"]:
        hand["robbing_kong"] = draw(st.booleans())
    return hand


SPECIAL_HANDS = [
    notation_hand("1111m 2222m 3333m 444m 5m", "5m", preset="app"),
    notation_hand("1111m 33p 44p 55s 99s 666s 7z", "7z", preset="hk", self_drawn=True),
    notation_hand("1m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z 7z 234m", "9m", preset="hk"),
    notation_hand("1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z 6z 7z", "7z", preset="hk", dealer=True),
    notation_hand("123m 456m 789m 123p 5p", "5p", ("kong:1111z",), "1f 2f 3f 4f 5f 6f 7f 8f", flower_win="eight"),
]


@settings(max_examples=500)
@given(situations())
def test_the_fast_path_scores_every_hand_as_the_plain_evaluation(hand):
    fast = answer(hand)
    with every_rule_on_every_reading():
        plain = answer(hand)
    assert fast == plain


@pytest.mark.parametrize("hand", SPECIAL_HANDS)
def test_the_fast_path_scores_special_forms_and_flower_wins_as_the_plain_evaluation(hand):
    fast = scored(hand)
    with every_rule_on_every_reading():
        assert scored(hand) == fast


@settings(max_examples=300)
@given(situations())
def test_the_hand_facts_a_reading_takes_from_another_are_its_own(data):
    # Readings of one hand share the hand's facts (situation, tile counts, options, wait set);
    # each, worked out afresh on every reading, must equal what the first one gives the others.
    try:
        hand = parse_hand(data)
    except HandError:
        return
    setup = evaluate._setup(hand)
    first, *others = evaluate.interpretations(hand, setup.preset, setup.options_key)
    for other in others:  # none has been given another's facts: each works its own out
        for name in HAND_FACTS:
            assert getattr(other, name) == getattr(first, name), name
    assert all(isinstance(getattr(Interpretation, name), fact) for name in HAND_FACTS)


def test_a_check_cannot_need_what_a_reading_does_not_have():
    with pytest.raises(TypeError, match="not a fact"):
        check("made_up", needs="no_such_fact")(lambda it, p: None)
    assert "made_up" not in CHECK_SPECS


def test_twin_chows_shared_between_readings_keep_the_dragon_hidden():
    # The discard completes one 123s; 清龍 uses its twin in hand, so it stays concealed (暗),
    # as it did when each chow was its own object and the test was by identity.
    found = patterns("123s 123s 456s 789s 555z 9m", "9m", preset="hk")
    assert "清龍(暗)" in found
    found = patterns("23s 123s 456s 789s 555z 99m", "1s", preset="hk")
    assert "清龍(暗)" in found


def test_checked_melds_are_kept_only_for_the_228_valid_melds_whatever_callers_send():
    for tile in PLAYING_TILES:
        for kind, size in (("pung", 3), ("kong", 4), ("concealed_kong", 4)):
            _parse_meld({"kind": kind, "tiles": [tile] * size}, 0)
        suit, number = tile[1], int(tile[0])
        if suit != "z" and number <= 7:
            for order in permutations(f"{number + k}{suit}" for k in range(3)):
                _parse_meld({"kind": "chow", "tiles": list(order)}, 0)
    for bad in (["1m", "2m", "4m"], ["1m", "1m", "2m"], ["7z", "8z", "9z"], ["1m", "1m"]):
        with pytest.raises(HandError):
            _parse_meld({"kind": "chow" if bad[0] != bad[1] else "pung", "tiles": bad}, 0)
    assert len(scoring_hand._VALID_MELDS) == 228
