"""Where the scorer's time goes: cProfile over the scoring bench's 10,000 hands, memo tables empty.

Run: ``python -m bench.scoring_profile``. Each share is a step's cumulative time over ``score_hand``'s
(the wait set and the decompositions are parts of the readings); the profiler's own cost inflates
the times, so the shares and the call count are what to compare between versions.
"""

from __future__ import annotations

import cProfile
import json
import pstats

from bench.scoring_speed import HANDS, _clear_scoring_caches, _refused, taiwan_hands

# (share's name, scoring module, function)
STEPS = (
    ("hand_json", "hand.py", "parse_hand"),
    ("wait_set", "evaluate.py", "_wait_set"),
    ("decompositions", "decompose.py", "decompositions"),
    ("all_readings", "evaluate.py", "interpretations"),
    ("pattern_checks", "evaluate.py", "_situational_hits"),
    ("pattern_checks", "evaluate.py", "_score_one"),
    ("result_json", "evaluate.py", "to_json"),
)


def run() -> dict:
    hands = taiwan_hands(HANDS)
    _clear_scoring_caches()
    profiler = cProfile.Profile()
    profiler.enable()
    _refused(hands)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]  # (set by Stats, not declared in typeshed)
    cumulative: dict[tuple[str, str], float] = {}
    for (path, _, name), (_, _, _, total, _) in stats.items():
        if "scoring/" in path:
            key = (path.rsplit("scoring/", 1)[-1], name)
            cumulative[key] = cumulative.get(key, 0.0) + total
    whole = cumulative[("api.py", "score_hand")]
    shares: dict[str, float] = {}
    for step, module, function in STEPS:
        shares[step] = shares.get(step, 0.0) + cumulative.get((module, function), 0.0)
    calls = sum(count for _, count, _, _, _ in stats.values())
    return {
        **{f"{step}_percent": round(100 * time / whole, 1) for step, time in shares.items()},
        "python_calls_a_hand": round(calls / len(hands)),
        "us_a_hand_under_profiler": round(1e6 * whole / len(hands)),
    }


if __name__ == "__main__":
    print(json.dumps(run()))
