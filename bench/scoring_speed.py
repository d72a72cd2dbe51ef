"""Scoring throughput: 10,000 random winning hands, against the riichi `mahjong` calculator.

Run: ``python -m bench scoring`` (installs nothing; ``pip install mahjong`` for the peer).
Both scorers run in the same process on the same machine, so the ratio is what counts.
"""

from __future__ import annotations

import random
import time
from collections import Counter

from scoring.api import score_hand_json
from scoring.decompose import decompositions
from scoring.tiles import FLOWERS, PLAYING_TILES

HANDS = 10_000
PRESETS = ("taiwan", "app", "hk")


def random_hand(rng: random.Random, sets_needed: int = 5) -> tuple[list[tuple[str, list[str]]], str]:
    counts: Counter[str] = Counter()
    sets: list[tuple[str, list[str]]] = []
    while len(sets) < sets_needed:
        if rng.random() < 0.6:
            suit, start = rng.choice("mps"), rng.randint(1, 7)
            kind, tiles = "chow", [f"{start + i}{suit}" for i in range(3)]
        else:
            tile = rng.choice(PLAYING_TILES)
            kind, tiles = ("kong", [tile] * 4) if rng.random() < 0.1 else ("pung", [tile] * 3)
        if all(counts[t] + tiles.count(t) <= 4 for t in set(tiles)):
            counts.update(tiles)
            sets.append((kind, tiles))
    pair = rng.choice([t for t in PLAYING_TILES if counts[t] <= 2])
    return sets, pair


def taiwan_hands(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    hands = []
    for i in range(n):
        sets, pair = random_hand(rng)
        open_count = rng.choice([0, 0, 1, 2, 3])
        melds, concealed = [], [pair, pair]
        for index, (kind, tiles) in enumerate(sets):
            if kind == "kong":
                melds.append({"kind": rng.choice(["kong", "concealed_kong"]), "tiles": tiles})
            elif index < open_count:
                melds.append({"kind": kind, "tiles": tiles})
            else:
                concealed.extend(tiles)
        rng.shuffle(concealed)
        winning = concealed.pop()
        hands.append(
            {
                "preset": PRESETS[i % 3],
                "concealed": concealed,
                "melds": melds,
                "flowers": rng.sample(FLOWERS, rng.randint(0, 3)),
                "winning_tile": winning,
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
        sets, pair = random_hand(rng, 4)
        tiles34 = [pair, pair] + [t for kind, tiles in sets for t in (tiles[:3] if kind == "kong" else tiles)]
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
