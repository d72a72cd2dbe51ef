"""The scorer's memo tables: bounded, and equal to the plain definitions they stand in for."""

from __future__ import annotations

import random

from scoring import evaluate
from scoring.decompose import _sets, decompositions
from tests.scoring_helpers import patterns


def test_active_rules_cache_stays_bounded_whatever_option_values_callers_send():
    # Each distinct zimo_tai value is a new cache key; unbounded, 100,000 of them held 1.3 GB.
    evaluate._ACTIVE_CACHE.clear()
    for tai in range(1, 3 * evaluate.ACTIVE_CACHE_SIZE):
        found = patterns(
            "456m 789m 123p 456p 1s", "1s", ("chow:123m",), preset="app", self_drawn=True, options={"zimo_tai": tai}
        )
        assert found["自摸"] == tai
    assert len(evaluate._ACTIVE_CACHE) == evaluate.ACTIVE_CACHE_SIZE


def _whole_hand_decompositions(counts: tuple[int, ...]) -> tuple:
    """The definition: every pair, then every split of the rest into sets, over all 34 kinds."""
    if sum(counts) % 3 != 2:
        return ()
    found = []
    for i, n in enumerate(counts):
        if n >= 2:
            rest = list(counts)
            rest[i] -= 2
            found.extend((i, sets) for sets in _sets(tuple(rest)))
    return tuple(found)


def test_suit_by_suit_decompositions_equal_the_whole_hand_recursion_in_order():
    rng = random.Random(15)
    checked = 0
    for _ in range(3000):
        counts = [0] * 34
        # Sets and a pair from one or two suits, so that many hands split several ways;
        # a changed tile in some of them makes hands that do not split at all.
        suits = rng.sample(range(4), rng.choice([1, 2]))
        while sum(counts) < 15:
            suit = rng.choice(suits)
            first = suit * 9 + rng.randrange(9 if suit < 3 else 7)
            tiles = [first] * 3 if suit == 3 or first % 9 > 6 or rng.random() < 0.3 else [first, first + 1, first + 2]
            if all(counts[t] + tiles.count(t) <= 4 for t in tiles):
                for t in tiles:
                    counts[t] += 1
        pair = rng.choice([k for k in range(34) if counts[k] <= 2])
        counts[pair] += 2
        if rng.random() < 0.3:
            counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
            counts[rng.choice([k for k in range(34) if counts[k] < 4])] += 1
        expected = _whole_hand_decompositions(tuple(counts))
        assert decompositions(tuple(counts)) == expected
        checked += bool(expected)
    assert checked > 1500  # enough of them are winning hands for the comparison to mean something


def _splits_by_search(suit: tuple[int, ...], honours: bool) -> bool:
    """The definition: try a pung, then a chow, on the lowest tile left."""
    if not any(suit):
        return True
    first = next(i for i, n in enumerate(suit) if n)
    rest = list(suit)
    if rest[first] >= 3:
        rest[first] -= 3
        if _splits_by_search(tuple(rest), honours):
            return True
        rest[first] += 3
    if not honours and first <= 6 and rest[first + 1] and rest[first + 2]:
        for k in range(3):
            rest[first + k] -= 1
        return _splits_by_search(tuple(rest), honours)
    return False


def test_one_pass_suit_split_equals_the_search():
    # Checked on all 2,031,250 suits of 0–4 tiles a kind when written (50 s); a sample here.
    from scoring.decompose import _suit_splits

    rng = random.Random(7)
    for _ in range(20_000):
        honours = rng.random() < 0.2
        suit = tuple(rng.choice([0, 0, 1, 1, 2, 3, 4]) for _ in range(7 if honours else 9))
        assert _suit_splits(suit, honours) == _splits_by_search(suit, honours), suit
