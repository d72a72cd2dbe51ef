"""Scoring throughput: 10,000 random winning hands, against the riichi `mahjong` calculator.

Run: ``python -m bench scoring`` (installs nothing; ``pip install mahjong`` for the peer).
Both scorers run in the same process on the same machine, so the ratio is what counts.
"""

from __future__ import annotations

import random
import time
from collections import Counter

from taicam_datasets.scenes import random_winning_layout

from scoring.api import score_hand_json
from scoring.decompose import decompositions
from scoring.tiles import PLAYING_TILES

HANDS = 10_000
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
    decompositions.cache_clear()
    start = time.perf_counter()
    failures = sum(1 for hand in hands if not score_hand_json(hand)[1])
    ours = HANDS / (time.perf_counter() - start)
    figures = {"taicam_hands_per_s": round(ours), "taicam_failures": failures}
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        figures["peer"] = "mahjong not installed (pip install mahjong)"
        return figures
    calculator = HandCalculator()
    peer_hands = riichi_hands(HANDS)
    start = time.perf_counter()
    for tiles, win_tile, tsumo in peer_hands:
        calculator.estimate_hand_value(tiles, win_tile, config=HandConfig(is_tsumo=tsumo))
    peer = HANDS / (time.perf_counter() - start)
    figures.update({"mahjong_hands_per_s": round(peer), "ratio_taicam_over_mahjong": round(ours / peer, 2)})
    return figures


if __name__ == "__main__":
    print(run())
