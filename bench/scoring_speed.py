"""Scoring throughput: 10,000 random winning hands, against the riichi `mahjong` calculator.

Run: ``python -m bench scoring`` (installs nothing; ``pip install mahjong`` for the peer).
Both scorers run in the same process on the same machine, so the ratio is what counts. They
take turns on slices of their hands (who goes first alternates), so a burst of load from
another process falls on both alike. Each hand is scored once: no scorer sees a hand twice,
so a memo of whole results cannot help either side. Each computes its full answer: ours
parses the hand JSON and returns the score JSON (decomposition, patterns, waits, total);
the peer builds its config and returns its hand response (decomposition, yaku, fu, cost).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable

from taicam_datasets.scenes import random_winning_layout

from scoring import decompose, evaluate, interpret, patterns
from scoring import hand as scoring_hand
from scoring.api import score_hand
from scoring.hand import HandError
from scoring.tiles import PLAYING_TILES

HANDS = 10_000
ROUNDS = 10  # turns each scorer takes; HANDS / ROUNDS hands a turn
PRESETS = ("taiwan", "app", "hk")


def random_sets(rng: random.Random, sets_needed: int) -> tuple[list[list[str]], str]:
    """Closed sets (chows and pungs) and a pair, never more than four of a kind."""
    counts: Counter[str] = Counter()
    sets: list[list[str]] = []
    while len(sets) < sets_needed:
        if rng.random() < 0.6:
            suit, start = rng.choice("mps"), rng.randint(1, 7)
            tiles = [f"{start + i}{suit}" for i in range(3)]
        else:
            tiles = [rng.choice(PLAYING_TILES)] * 3
        if all(counts[t] + tiles.count(t) <= 4 for t in set(tiles)):
            counts.update(tiles)
            sets.append(tiles)
    return sets, rng.choice([t for t in PLAYING_TILES if counts[t] <= 2])


def taiwan_hands(n: int, seed: int = 7) -> list[dict]:
    """Winning hands as the synthetic scenes lay them out, with a random situation and preset."""
    rng = random.Random(seed)
    hands = []
    for i in range(n):
        layout = random_winning_layout(rng)
        hands.append(
            {
                "preset": PRESETS[i % 3],
                "concealed": layout["concealed"],
                "melds": layout["melds"],
                "flowers": layout["flowers"],
                "winning_tile": layout["winning_tile"],
                "self_drawn": rng.random() < 0.4,
                "seat_wind": rng.choice("ESWN"),
                "round_wind": rng.choice("ESWN"),
                "dealer": rng.random() < 0.25,
            }
        )
    return hands


def riichi_hands(n: int, seed: int = 7) -> list[tuple[list[int], int, bool]]:
    """Closed 14-tile winning hands in the 136-tile format of the `mahjong` package."""
    rng = random.Random(seed)
    hands = []
    for _ in range(n):
        sets, pair = random_sets(rng, 4)
        tiles34 = [pair, pair] + [t for tiles in sets for t in tiles]
        used: Counter[int] = Counter()
        tiles136 = []
        for tile in tiles34:
            index = _riichi_index(tile)
            tiles136.append(index * 4 + used[index])
            used[index] += 1
        hands.append((tiles136, rng.choice(tiles136), rng.random() < 0.4))
    return hands


def _riichi_index(tile: str) -> int:
    # Riichi order is man, pin, sou, then honours 東南西北白發中 — the same as ours.
    return PLAYING_TILES.index(tile)


def run() -> dict:
    hands = taiwan_hands(HANDS)
    _clear_scoring_caches()
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        start = time.perf_counter()
        failures = _refused(hands)
        ours = HANDS / (time.perf_counter() - start)
        return {
            "taicam_hands_per_s": round(ours),
            "taicam_failures": failures,
            "peer": "mahjong not installed (pip install mahjong)",
        }
    calculator = HandCalculator()
    peer_hands = riichi_hands(HANDS)

    def score_ours(part: slice) -> int:
        return _refused(hands[part])

    def score_peer(part: slice) -> int:
        for tiles, win_tile, tsumo in peer_hands[part]:
            calculator.estimate_hand_value(tiles, win_tile, config=HandConfig(is_tsumo=tsumo))
        return 0

    spent = {"ours": 0.0, "peer": 0.0}
    failures = 0
    size = HANDS // ROUNDS
    for turn in range(ROUNDS):
        part = slice(turn * size, (turn + 1) * size)
        turns: list[tuple[str, Callable[[slice], int]]] = [("ours", score_ours), ("peer", score_peer)]
        for name, scorer in turns if turn % 2 == 0 else turns[::-1]:
            start = time.perf_counter()
            failures += scorer(part)
            spent[name] += time.perf_counter() - start
    ours, peer = HANDS / spent["ours"], HANDS / spent["peer"]
    return {
        "taicam_hands_per_s": round(ours),
        "taicam_us_per_hand": round(1e6 / ours, 1),
        "taicam_failures": failures,
        "mahjong_hands_per_s": round(peer),
        "mahjong_us_per_hand": round(1e6 / peer, 1),
        "ratio_taicam_over_mahjong": round(ours / peer, 2),
    }


def _refused(hands: list[dict]) -> int:
    """How many of the hands the scorer refuses (none should be: they are generated winning hands).

    Each answer is dropped as soon as it is made, as the JSON edge does, so the timing holds no list.
    """
    refused = 0
    for hand in hands:
        try:
            score_hand(hand)
        except HandError:
            refused += 1
    return refused


def _clear_scoring_caches() -> None:
    """Start our scorer cold, as the peer starts: every memo table of ours empty."""
    for module in (decompose, evaluate, scoring_hand, interpret, patterns):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


if __name__ == "__main__":
    print(run())
