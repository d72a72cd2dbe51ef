"""Counts arrays and every way to split them into sets and a pair (memoised suit by suit)."""

from __future__ import annotations

from functools import lru_cache
from itertools import chain, pairwise, product
from operator import itemgetter, mul

from .tiles import PLAYING_TILES, TILE_INDEX

KINDS = len(PLAYING_TILES)  # 34
Counts = tuple[int, ...]
# A group is (kind, first tile index): kind "chow" covers index..index+2.
Group = tuple[str, int]
# Where each suit (萬, 筒, 條) and the honours start and end in a counts array.
GROUP_STARTS = (0, 9, 18, 27)
GROUP_ENDS = (9, 18, 27, 34)


def to_counts(tiles: list[str] | tuple[str, ...]) -> Counts:
    counts = [0] * KINDS
    for tile in tiles:
        counts[TILE_INDEX[tile]] += 1
    return tuple(counts)


def _can_chow(i: int) -> bool:
    return i < 27 and i % 9 <= 6


@lru_cache(maxsize=200_000)
def _sets(counts: Counts) -> tuple[tuple[Group, ...], ...]:
    """All multisets of sets (pungs, chows) that use exactly ``counts``; () if none."""
    first = next((i for i, n in enumerate(counts) if n), -1)
    if first < 0:
        return ((),)
    results: list[tuple[Group, ...]] = []
    if counts[first] >= 3:
        rest = list(counts)
        rest[first] -= 3
        results.extend((("pung", first), *tail) for tail in _sets(tuple(rest)))
    if _can_chow(first) and counts[first + 1] and counts[first + 2]:
        rest = list(counts)
        rest[first] -= 1
        rest[first + 1] -= 1
        rest[first + 2] -= 1
        results.extend((("chow", first), *tail) for tail in _sets(tuple(rest)))
    return tuple(results)


def decompositions(counts: Counts) -> tuple[tuple[int, tuple[Group, ...]], ...]:
    """Every (pair index, sets) split of ``counts`` into one pair plus sets.

    Split suit by suit: each suit's own splits are memoised on its 9 counts, which recur
    across hands far more often than whole hands do, so a new hand is mostly cache hits.
    The whole hand's splits are not memoised: whole hands seldom recur, and the entries that
    never hit kept the garbage collector busy (it scans what a table holds).
    The order is the one a whole-hand recursion gives (pair index, then sets by first tile).
    """
    groups = (counts[0:9], counts[9:18], counts[18:27], counts[27:34])
    remainders = (sum(groups[0]) % 3, sum(groups[1]) % 3, sum(groups[2]) % 3, sum(groups[3]) % 3)
    if remainders.count(0) != 3 or 2 not in remainders:
        return ()
    pair_suit = remainders.index(2)
    per_suit: list[tuple[tuple[Group, ...], ...]] = []
    for i, group in enumerate(groups):
        if i != pair_suit:
            splits = _suit_sets(group, GROUP_STARTS[i], i == 3)
            if not splits:  # a suit that does not split: no decomposition at all
                return ()
            per_suit.append(splits)
        else:
            per_suit.append(((),))  # stands in for the pair suit's splits, filled in below
    pair_options = _suit_pair_sets(groups[pair_suit], GROUP_STARTS[pair_suit], pair_suit == 3)
    if len(per_suit[0]) == len(per_suit[1]) == len(per_suit[2]) == len(per_suit[3]) == 1:
        # The usual case: the other suits split one way each, around the pair suit's sets.
        before: tuple[Group, ...] = ()
        after: tuple[Group, ...] = ()
        for i, splits in enumerate(per_suit):
            if i < pair_suit:
                before += splits[0]
            elif i > pair_suit:
                after += splits[0]
        return tuple([(pair, before + sets + after) for pair, pair_suit_sets in pair_options for sets in pair_suit_sets])
    found: list[tuple[int, tuple[Group, ...]]] = []
    for pair, pair_suit_sets in pair_options:
        per_suit[pair_suit] = pair_suit_sets
        found.extend((pair, tuple(chain.from_iterable(parts))) for parts in product(*per_suit))
    return tuple(found)


@lru_cache(maxsize=20_000)
def _suit_sets(suit: tuple[int, ...], start: int, honours: bool) -> tuple[tuple[Group, ...], ...]:
    """All multisets of sets that use exactly one suit's counts; () if none. ``start`` is the
    suit's first tile index, so the groups carry whole-hand indices."""
    first = next((i for i, n in enumerate(suit) if n), -1)
    if first < 0:
        return ((),)
    results: list[tuple[Group, ...]] = []
    if suit[first] >= 3:
        rest = list(suit)
        rest[first] -= 3
        results.extend((("pung", start + first), *tail) for tail in _suit_sets(tuple(rest), start, honours))
    if not honours and first <= 6 and suit[first + 1] and suit[first + 2]:
        rest = list(suit)
        rest[first] -= 1
        rest[first + 1] -= 1
        rest[first + 2] -= 1
        results.extend((("chow", start + first), *tail) for tail in _suit_sets(tuple(rest), start, honours))
    return tuple(results)


POSITIONS = range(9)  # of the tiles in a suit: 0 for a 1, 8 for a 9


def number_sum(suit: tuple[int, ...]) -> int:
    """The sum of the tiles' positions in a suit: a multiple of 3 for any run of sets."""
    return sum(map(mul, POSITIONS, suit))


def _pair_candidates(suit: tuple[int, ...], honours: bool) -> range:
    """Where a suit's pair can be, in increasing order: for a numbered suit, only one position in three.

    Every set's positions add up to a multiple of 3 (a pung 3a, a chow 3a + 3), so once the pair
    at position i is taken out, what is left must add up to one too: 2i ≡ S, so i ≡ 2S (mod 3).
    """
    if honours:
        return range(len(suit))
    return range(2 * number_sum(suit) % 3, len(suit), 3)


@lru_cache(maxsize=20_000)
def _suit_pair_sets(suit: tuple[int, ...], start: int, honours: bool) -> tuple[tuple[int, tuple[tuple[Group, ...], ...]], ...]:
    """(pair index, its suit's set splits) for each pair the suit could give up."""
    found = []
    for i in _pair_candidates(suit, honours):
        if suit[i] >= 2:
            rest = list(suit)
            rest[i] -= 2
            splits = _suit_sets(tuple(rest), start, honours)
            if splits:
                found.append((start + i, splits))
    return tuple(found)


def _suit_splits(suit: tuple[int, ...], honours: bool) -> bool:
    """Whether one suit's (or the honours') counts split into sets only.

    One pass, lowest tile first: the lowest kind's tiles are pungs plus chows that start there,
    and three such chows use the same tiles as three pungs, so its count mod 3 says how many
    chows must start there. No search: a pass costs about what a memo lookup does, so it is not
    memoised (a table of suits mostly seen once only kept the garbage collector busy).
    """
    if honours:
        return all(n % 3 == 0 for n in suit)
    # Chows started one and two kinds back each take a tile of this kind.
    started_one_back = started_two_back = 0
    for n in suit:
        left = n - started_one_back - started_two_back
        if left < 0:
            return False
        started_one_back, started_two_back = left % 3, started_one_back
    return not started_one_back and not started_two_back  # no chow may run past the 9


def _suit_splits_with_pair(suit: tuple[int, ...], honours: bool) -> bool:
    for i in _pair_candidates(suit, honours):
        if suit[i] >= 2:
            rest = list(suit)
            rest[i] -= 2
            if _suit_splits(tuple(rest), honours):
                return True
    return False


def group_fits(group: tuple[int, ...], honours: bool) -> bool:
    """One suit's counts (or the honours') split into sets, plus a pair when 2 mod 3."""
    remainder = sum(group) % 3
    if remainder == 0:
        return _suit_splits(group, honours)
    return remainder == 2 and _suit_splits_with_pair(group, honours)


def is_standard_win(counts: Counts) -> bool:
    """Sets plus one pair, decided suit by suit: far cheaper than
    enumerating every decomposition, which only scoring needs."""
    groups = (counts[0:9], counts[9:18], counts[18:27], counts[27:34])
    remainders = [sum(g) % 3 for g in groups]
    if sorted(remainders) != [0, 0, 0, 2]:
        return False
    return all(
        (_suit_splits_with_pair if r == 2 else _suit_splits)(tuple(g), i == 3)
        for i, (g, r) in enumerate(zip(groups, remainders, strict=True))
    )


def is_pairs_and_triplet(counts: Counts) -> bool:
    """哩咕哩咕: 7 pairs + 1 triplet over 17 tiles; four of a kind counts as two pairs."""
    if 1 in counts or sum(counts) != 17:  # a kind held once is neither a pair nor the triplet
        return False
    triplets = sum(1 for n in counts if n in (3,))
    odd = [n for n in counts if n % 2]
    return triplets == 1 and len(odd) == 1


ORPHANS = tuple(TILE_INDEX[t] for t in ("1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"))
orphan_counts = itemgetter(*ORPHANS)  # a counts array's 13 orphan counts, read in one call


def thirteen_orphans_split(counts: Counts) -> list[tuple[int, tuple[Group, ...]]]:
    """十三么: each orphan once, one paired, plus one extra set. Returns (pair, (extra set,))."""
    if sum(counts) != 17 or 0 in orphan_counts(counts):
        return []
    found: list[tuple[int, tuple[Group, ...]]] = []
    for pair in ORPHANS:
        rest = list(counts)
        for i in ORPHANS:
            rest[i] -= 1
        rest[pair] -= 1
        if min(rest) < 0:
            continue
        for sets in _sets(tuple(rest)):
            if len(sets) == 1:
                found.append((pair, sets))
    return found


def is_sixteen_unrelated(counts: Counts) -> bool:
    """十六不搭: all 7 honours, 3 tiles per suit spaced ≥ 3 apart, one tile paired (16 kinds)."""
    if sum(counts) != 17 or max(counts) > 2 or counts.count(2) != 1:
        return False
    if 0 in counts[27:34]:
        return False
    for suit in range(3):
        numbers = [n for n in range(9) if counts[suit * 9 + n]]
        if len(numbers) != 3 or any(b - a < 3 for a, b in pairwise(numbers)):
            return False
    return True
