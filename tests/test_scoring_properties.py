"""Property tests over random legal hands (hypothesis).

Every run draws the same examples (``derandomize``) and keeps no example database, so a test that
passes once passes on every machine and every run; a failure found once is kept as an ``@example``.
To search for new failures with fresh random examples: ``HYPOTHESIS_PROFILE=explore``.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from scoring.api import contract_error
from scoring.tiles import FLOWERS, HONOURS, PLAYING_TILES, SUITED
from tests.scoring_helpers import hand as notation_hand
from tests.scoring_helpers import refusal, scored

PRESETS = ("taiwan", "app", "hk")

_SLOW_IS_FINE = [HealthCheck.large_base_example, HealthCheck.too_slow]
settings.register_profile("fixed", derandomize=True, database=None, deadline=None, suppress_health_check=_SLOW_IS_FINE)
settings.register_profile("explore", database=None, deadline=None, suppress_health_check=_SLOW_IS_FINE)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

# Scored as 哩咕哩咕 under 'app', once with an empty decomposition (issue #13).
PAIRS_AND_TRIPLET_HAND = {
    **notation_hand("1111m 2222m 3333m 444m 5m", "5m", preset="app"),
    "self_drawn": False,
    "seat_wind": "E",
    "round_wind": "E",
    "dealer": False,
    "dealer_streak": 0,
}


@st.composite
def legal_hands(draw) -> dict:
    """A standard-form winning hand: five sets and a pair, some sets declared as melds."""
    return draw_legal_hand(draw, "mps", PLAYING_TILES, shuffle=True)


def draw_legal_hand(draw, suits: str | list[str], kinds: list[str] | tuple[str, ...], shuffle: bool) -> dict:
    """Five sets and a pair of ``kinds`` (chows in ``suits``), some declared as melds, with a situation."""
    counts: Counter[str] = Counter()
    sets: list[tuple[str, list[str]]] = []
    while len(sets) < 5:
        kind = draw(st.sampled_from(["chow", "chow", "pung", "kong"]))
        if kind == "chow":
            suit = draw(st.sampled_from(suits))
            start = draw(st.integers(1, 7))
            tiles = [f"{start + i}{suit}" for i in range(3)]
        else:
            tile = draw(st.sampled_from(kinds))
            tiles = [tile] * (4 if kind == "kong" else 3)
        if all(counts[t] + tiles.count(t) <= 4 for t in set(tiles)):
            counts.update(tiles)
            sets.append((kind, tiles))
    pair = draw(st.sampled_from([t for t in kinds if counts[t] <= 2]))
    open_count = draw(st.integers(0, 5))
    melds, concealed = [], [pair, pair]
    for index, (kind, tiles) in enumerate(sets):
        if kind == "kong":
            melds.append({"kind": draw(st.sampled_from(["kong", "concealed_kong"])), "tiles": tiles})
        elif index < open_count:
            melds.append({"kind": kind, "tiles": tiles})
        else:
            concealed.extend(tiles)
    if shuffle:
        concealed = draw(st.permutations(concealed))
    winning = concealed.pop(draw(st.integers(0, len(concealed) - 1)))
    return {
        "preset": draw(st.sampled_from(PRESETS)),
        "concealed": concealed,
        "melds": melds,
        "flowers": draw(st.lists(st.sampled_from(FLOWERS), unique=True, max_size=8)),
        "winning_tile": winning,
        "self_drawn": draw(st.booleans()),
        "seat_wind": draw(st.sampled_from("ESWN")),
        "round_wind": draw(st.sampled_from("ESWN")),
        "dealer": draw(st.booleans()),
        "dealer_streak": draw(st.integers(0, 3)),
    }


def tiles_of(hand: dict) -> Counter:
    return Counter([*hand["concealed"], hand["winning_tile"], *(t for m in hand["melds"] for t in m["tiles"])])


@settings(max_examples=300)
@given(legal_hands(), st.randoms())
def test_score_is_independent_of_tile_order(hand, rng):
    first = scored(hand)
    shuffled = list(hand["concealed"])
    rng.shuffle(shuffled)
    second = scored({**hand, "concealed": shuffled, "flowers": sorted(hand["flowers"], reverse=True)})
    assert (second["total"], second["patterns"]) == (first["total"], first["patterns"])


@settings(max_examples=300)
@given(legal_hands())
@example(PAIRS_AND_TRIPLET_HAND)
def test_total_is_the_sum_and_decomposition_uses_all_17_tiles(hand):
    result = scored(hand)
    assert result["total"] == sum(p["tai"] for p in result["patterns"])
    used = Counter(t for group in result["decomposition"] for t in group["tiles"])
    assert used == tiles_of(hand)
    assert hand["winning_tile"] in result["winning_group"]
    assert hand["winning_tile"] in result["waits"]


@settings(max_examples=300)
@given(legal_hands(), st.sampled_from(["add", "drop", "bad_code", "fifth", "bad_meld"]), st.data())
def test_invalid_hands_give_an_error_never_an_exception(hand, mutation, data):
    broken = {**hand, "concealed": list(hand["concealed"])}
    if mutation == "add":
        broken["concealed"].append(data.draw(st.sampled_from(SUITED + HONOURS)))
    elif mutation == "drop":
        broken["concealed"].pop()
    elif mutation == "bad_code":
        broken["winning_tile"] = data.draw(st.sampled_from(["0m", "8z", "", "1x", "back", 7, None]))
    elif mutation == "fifth":
        tile, held = tiles_of(hand).most_common(1)[0]
        others = [i for i, t in enumerate(broken["concealed"]) if t != tile]
        assume(len(others) >= 5 - held)
        for i in others[: 5 - held]:
            broken["concealed"][i] = tile
    else:
        broken["melds"] = [*hand["melds"], {"kind": "chow", "tiles": ["9m", "1p", "2p"]}]
    assert set(contract_error(refusal(broken))["error"]) == {"code", "message"}


@settings(max_examples=400)
@given(legal_hands(), st.lists(st.sampled_from(SUITED + HONOURS), max_size=3), st.data())
def test_fast_wait_set_matches_the_definition(hand, noise, data):
    """W by suit-local checks equals W by definition: every kind that completes the hand."""
    from scoring.decompose import to_counts
    from scoring.evaluate import is_complete, wait_set
    from scoring.rules import get_preset

    concealed = list(hand["concealed"])
    for tile in noise:  # swap some tiles so that many hands are not ready at all
        concealed[data.draw(st.integers(0, len(concealed) - 1))] = tile
    meld_tiles = [t for m in hand["melds"] for t in m["tiles"]]
    forms = get_preset(hand["preset"]).forms
    held = Counter(concealed + meld_tiles)
    expected = set()
    for kind, tile in enumerate(PLAYING_TILES):
        if held[tile] >= 4:
            continue
        counts = list(to_counts(concealed))
        counts[kind] += 1
        if is_complete(tuple(counts), len(hand["melds"]), forms):
            expected.add(kind)
    assert wait_set(tuple(concealed), meld_tiles, len(hand["melds"]), forms) == frozenset(expected)


@pytest.mark.parametrize(
    ("concealed", "winning", "preset", "form"),
    [
        ("1111m 2222m 3333m 444m 5m", "5m", "app", "哩咕哩咕"),
        ("1111m 33p 44p 55s 99s 666s 7z", "7z", "hk", "哩咕哩咕(內有一款四隻)"),
        ("1m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z 7z 234m", "9m", "hk", "十三么"),
        ("1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 3z 4z 5z 6z 7z", "7z", "hk", "十六不搭"),
    ],
)
def test_a_special_form_decomposition_holds_all_17_tiles(concealed, winning, preset, form):
    """哩咕哩咕 lists its pairs and triplet; 十三么 and 十六不搭 their unmatched tiles as singles."""
    hand = notation_hand(concealed, winning, preset=preset)
    result = scored(hand)
    assert form in {p["name"] for p in result["patterns"]}
    assert Counter(t for group in result["decomposition"] for t in group["tiles"]) == tiles_of(hand)
    kinds = Counter(group["kind"] for group in result["decomposition"])
    if form.startswith("哩咕哩咕"):
        assert kinds == {"pair": 7, "pung": 1}
    else:
        assert kinds["pair"] == 1 and kinds["single"] == (12 if form == "十三么" else 15)
