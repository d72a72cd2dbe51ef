"""The headline accuracy figure: finished hands laid out from real tile pixels, read end to end.

Scenes come from ``taicam_datasets.real_scenes`` with crops of real-hk-v4 **val** only (the models
never trained on them): 60 seeds a range, a third each in 1280 × 720, 1920 × 1080 and 4000 × 3000 frames,
half whole tables and half the winner's side. Each photo goes through ``taicam score``'s path
(``score_photo``: recognise, repair, score). Figures:

- ``exact_hands``: concealed tiles, melds, flowers and winning tile all right;
- ``whole_hand_shown``: scenes whose photo shows every tile of the hand. The layout keeps every tile
  of the hand on the cloth (``taicam_datasets.scenes._lay_hand``), so all of them do; a tile hidden
  under another or cut by the camera would leave a hand no reading can get right, and it stays counted;
- ``score_right``: the 台 total ``taicam score`` gives is the laid-out hand's (the default context:
  won on a discard, east round and seat). A misread tile can leave the total as it is (a flower
  that is not the seat's, one chow for another), so more hands score right than read right;
- ``exact_without_a_warning``: of the hands read exactly, those that came with no warning at all;
- ``wrong_scored_without_a_warning``: of the hands read wrong yet scored (a legal hand, not refused),
  those that came with no warning: a wrong 台 total the player has no cue to check. Warnings are
  many (a tile read below 0.5, a run left out of the hand), so most right hands carry one too;
- ``tile_recall``: the winner's tiles (hand, melds, flowers, winning tile) found at IoU ≥ 0.5;
- ``flower_recall`` and ``per_flower_recall``: the same for flowers;
- ``class_accuracy``: of the winner's tiles found, read as the right code;
- ``flower_accuracy`` and ``per_flower_read_right``: the same for flowers (a misread flower usually makes a
  legal hand, which no repair questions);
- ``lost_hands``: the hands not read exactly, by what went wrong first (``lost_hand_cause``): part of the
  hand not in the photo, one of the winner's tiles not found, flowers misread only (a flower read as
  another, or as a tile, or a tile read as a flower), other tiles misread only, both, or every tile of
  the winner's found and read right yet the hand grouped wrong or given a box too many (a discard, a tile boxed twice).

- ``detect``: what ``taicam detect`` finds (``detect_photo``, every tile, at the default threshold):
  the winner's tiles found and read right, and every tile of the scene found (discards and walls too);

- ``gap_read``: one tile inside the concealed row taken away from what the photo pass found, in
  each scene: how many the gap read (``vision.photo.read_row_gaps``) gives back and reads right,
  and how many boxes it adds to the scenes as found (cloth read as a tile).

Seeds 0–59 are where choices are made; seeds 1000–1059 (``CHECK_SEEDS``) check them. Twelve rounds
of choices judged on both have fitted them; seeds 3000–3059 (``UNSEEN_SEEDS``) were first read after
those choices and are only reported, never tuned on: the figure to expect of scenes nobody has seen.
Run: ``python -m bench real`` (the three ranges) or as the first part of ``python -m bench accuracy``.
Other seeds, read by taicam score's path alone (no ``detect`` or ``gap_read``), in several processes:
``python -m bench.real_scenes --seeds 100-999,2000-2299 --processes 2``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields

import numpy as np
from taicam_datasets.real_scenes import FRAMES, FRAMINGS, REAL_HK, CropBank, RealScene, real_scene

from models.evaluate import match, same_hand
from scoring.api import score_hand
from scoring.tiles import TILE_CODES, is_flower
from taicam.pipeline import DEFAULT_CONF, PhotoScore, ScoreRequest, score_photo
from vision.detector import DEFAULT_IOU, TileDetector
from vision.photo import detect_and_read, detect_photo, read_row_gaps

TUNING_SEEDS = range(60)
CHECK_SEEDS = range(1000, 1060)
UNSEEN_SEEDS = range(3000, 3060)
# A task for a worker process: consecutive seeds that hold every frame size and framing once (a
# seed picks both by its remainders), so that no process is left with the 12 MP scenes alone.
SEEDS_A_TASK = len(FRAMES) * len(FRAMINGS)


@dataclass
class RealSceneTally:
    scenes: int = 0
    exact: int = 0
    whole_hand_shown: int = 0
    score_right: int = 0
    exact_unwarned: int = 0  # read exactly, and no warning: an answer the player can take as it is
    wrong_scored: int = 0  # read wrong, yet scored as a legal hand
    wrong_scored_unwarned: int = 0  # ... with no warning: the one wrong answer a player has no cue to check
    tiles: int = 0
    found: int = 0
    right_code: int = 0
    flowers: Counter = field(default_factory=Counter)
    flowers_found: Counter = field(default_factory=Counter)
    flowers_read_right: Counter = field(default_factory=Counter)
    misses: list[int] = field(default_factory=list)  # seeds read wrong
    lost: Counter = field(default_factory=Counter)  # hands read wrong, by ``lost_hand_cause``

    def add(self, scene: RealScene, scored: PhotoScore) -> None:
        self.scenes += 1
        right = same_hand(scored.to_json()["hand"], scene.scene.layout)
        self.exact += right
        self.whole_hand_shown += scene.scene.shows_whole_hand()
        self.score_right += scored.result is not None and scored.result.total == laid_out_total(scene)
        self.exact_unwarned += right and not scored.warnings
        wrong_scored = not right and scored.result is not None
        self.wrong_scored += wrong_scored
        self.wrong_scored_unwarned += wrong_scored and not scored.warnings
        detections = scored.detections
        own = [i for i, (role, _) in enumerate(scene.scene.roles) if role != "background"]
        truth = scene.boxes[own]
        codes = [TILE_CODES[scene.scene.labels[i][0]] for i in own]
        self.tiles += len(own)
        self.flowers.update(c for c in codes if is_flower(c))
        pairs = match(truth, detections)
        misread: list[tuple[str, str]] = []
        for p, t in pairs:
            read = TILE_CODES[int(detections.class_id[p])]
            self.found += 1
            self.right_code += read == codes[t]
            if read != codes[t]:
                misread.append((codes[t], read))
            if is_flower(codes[t]):
                self.flowers_found[codes[t]] += 1
                self.flowers_read_right[codes[t]] += read == codes[t]
        if not right:
            self.misses.append(scene.seed)
            self.lost[lost_hand_cause(scene.scene.shows_whole_hand(), len(own) - len(pairs), misread)] += 1

    def figures(self) -> dict:
        flowers = sum(self.flowers.values())
        return {
            "exact_hands": f"{self.exact} of {self.scenes}",
            "whole_hand_shown": f"{self.whole_hand_shown} of {self.scenes}",
            "score_right": f"{self.score_right} of {self.scenes}",
            "exact_without_a_warning": f"{self.exact_unwarned} of {self.exact}",
            "wrong_scored_without_a_warning": f"{self.wrong_scored_unwarned} of {self.wrong_scored}",
            "tile_recall": round(self.found / max(self.tiles, 1), 4),
            "flower_recall": round(sum(self.flowers_found.values()) / max(flowers, 1), 4),
            "class_accuracy": round(self.right_code / max(self.found, 1), 4),
            "flower_accuracy": round(sum(self.flowers_read_right.values()) / max(sum(self.flowers_found.values()), 1), 4),
            "per_flower_recall": {c: f"{self.flowers_found[c]}/{n}" for c, n in sorted(self.flowers.items())},
            "per_flower_read_right": {c: f"{self.flowers_read_right[c]}/{n}" for c, n in sorted(self.flowers_found.items())},
            "missed_seeds": self.misses,
            "lost_hands": dict(self.lost.most_common()),
        }

    def merge(self, other: RealSceneTally) -> None:
        """Add another tally's counts (scenes read in another process)."""
        for name in (f.name for f in fields(self)):
            mine = getattr(self, name)
            if isinstance(mine, list):
                mine.extend(getattr(other, name))
                mine.sort()
            elif isinstance(mine, Counter):
                mine.update(getattr(other, name))
            else:
                setattr(self, name, mine + getattr(other, name))


def lost_hand_cause(shows_whole_hand: bool, not_found: int, misread: list[tuple[str, str]]) -> str:
    """What first went wrong in a hand read wrong: ``misread`` holds (truth, read) of the winner's tiles
    found and read as another code; a flower read as a tile, or a tile read as a flower, counts with the flowers."""
    if not shows_whole_hand:
        return "cut_off_by_the_photo"
    if not_found:
        return "a_tile_not_found"
    flowers = any(is_flower(truth) or is_flower(read) for truth, read in misread)
    tiles = any(not (is_flower(truth) or is_flower(read)) for truth, read in misread)
    if flowers and tiles:
        return "flowers_and_tiles_misread"
    if flowers:
        return "flowers_misread"
    return "tiles_misread" if tiles else "grouped_wrong_or_a_box_too_many"


def read_scene(detector: TileDetector, scene: RealScene, conf: float | None = None) -> PhotoScore:
    """What ``taicam score`` reads from the scene's photo: the hand, its score and the detections."""
    return score_photo(detector, scene.scene.image, ScoreRequest(), DEFAULT_CONF if conf is None else conf)


def laid_out_total(scene: RealScene) -> int:
    """The 台 of the hand the scene lays out, in the context ``read_scene`` asks for."""
    tiles = {key: scene.scene.layout[key] for key in ("concealed", "melds", "flowers", "winning_tile")}
    return score_hand({"preset": ScoreRequest().preset, **tiles})["total"]


def tally(detector: TileDetector, bank: CropBank, seeds: Iterable[int], conf: float | None = None) -> RealSceneTally:
    counts = RealSceneTally()
    for seed in seeds:
        scene = real_scene(bank, seed)
        counts.add(scene, read_scene(detector, scene, conf))
    return counts


@dataclass
class GapReads:
    taken: int = 0  # tiles taken away, one a scene with at least 5 concealed tiles found
    back: int = 0
    read_right: int = 0
    added_as_found: int = 0  # boxes the gap read adds to the scenes as found: each one cloth read as a tile

    def add(self, detector: TileDetector, scene: RealScene) -> None:
        """Take one tile inside the scene's concealed row (not its two first or last) away from what the
        photo pass found (``detect_and_read``, focus on the hand, at the default threshold), and read the gaps."""
        image, truth = scene.scene.image, scene.boxes
        found = detect_and_read(detector, image, DEFAULT_CONF, DEFAULT_IOU, True, "hand")
        self.added_as_found += len(read_row_gaps(detector, image, found)) - len(found)
        at = {t: p for p, t in match(truth, found)}
        concealed = [t for t, (role, _) in enumerate(scene.scene.roles) if role == "concealed" and t in at]
        if len(concealed) < 5:
            return
        taken = random.Random(scene.seed).choice(concealed[2:-2])
        refilled = read_row_gaps(detector, image, found[np.arange(len(found)) != at[taken]])
        again = {t: p for p, t in match(truth, refilled)}
        self.taken += 1
        if taken in again:
            self.back += 1
            self.read_right += int(refilled.class_id[again[taken]]) == scene.scene.labels[taken][0]

    def figures(self) -> dict:
        return {"taken": self.taken, "back": self.back, "read_right": self.read_right, "added_as_found": self.added_as_found}


def gap_reads(detector: TileDetector, bank: CropBank, seeds: range) -> GapReads:
    counts = GapReads()
    for seed in seeds:
        counts.add(detector, real_scene(bank, seed))
    return counts


@dataclass
class DetectTally:
    """``taicam detect`` on each scene: every tile looked for, as a labeler or an API caller asks."""

    winners: int = 0  # the winner's tiles laid out
    winners_found: int = 0
    winners_right: int = 0
    tiles: int = 0  # every tile laid out, the winner's and the rest
    tiles_found: int = 0

    def add(self, detector: TileDetector, scene: RealScene) -> None:
        found = detect_photo(detector, scene.scene.image)
        own = [i for i, (role, _) in enumerate(scene.scene.roles) if role != "background"]
        pairs = match(scene.boxes[own], found)
        self.winners += len(own)
        self.winners_found += len(pairs)
        self.winners_right += sum(int(found.class_id[p]) == scene.scene.labels[own[t]][0] for p, t in pairs)
        self.tiles += len(scene.boxes)
        self.tiles_found += len(match(scene.boxes, found))

    def figures(self) -> dict:
        return {
            "tile_recall": round(self.winners_found / max(self.winners, 1), 4),
            "class_accuracy": round(self.winners_right / max(self.winners_found, 1), 4),
            "every_tile_recall": round(self.tiles_found / max(self.tiles, 1), 4),
        }


def range_name(seeds: range) -> str:
    return f"seeds_{seeds.start}_{seeds.stop - 1}"


def run(detector: TileDetector | None = None, also_read: Callable[[str, RealScene], None] | None = None) -> dict:
    """The figures of each range; ``also_read(range_name, scene)`` reads each scene some other way as it
    is laid out (``bench.pipeline_accuracy``: live video), since laying one out costs a third of a second."""
    if not REAL_HK.exists():
        return {"real_tile_scenes": f"skipped: {REAL_HK} is absent (set TAICAM_REAL_HK)"}
    detector = detector or TileDetector()
    bank = CropBank.from_dataset(REAL_HK, "val")
    figures = {}
    for seeds in (TUNING_SEEDS, CHECK_SEEDS, UNSEEN_SEEDS):
        # Each scene is laid out once (a third of a second, more for 12 MP) and read every way.
        scored, detected, gaps = RealSceneTally(), DetectTally(), GapReads()
        for seed in seeds:
            scene = real_scene(bank, seed)
            scored.add(scene, read_scene(detector, scene))
            detected.add(detector, scene)
            gaps.add(detector, scene)
            if also_read is not None:
                also_read(range_name(seeds), scene)
        figures[f"real_tile_scenes_{range_name(seeds)}"] = scored.figures() | {
            "detect": detected.figures(),
            "gap_read": gaps.figures(),
        }
    return figures


def parse_seeds(spec: str) -> list[int]:
    """``"100-999,2000-2299,7"``: inclusive ranges and single seeds."""
    seeds: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        try:
            span = range(int(first), int(last or first) + 1)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a seed or a range such as 100-999") from None
        if not span:
            raise argparse.ArgumentTypeError(f"{part!r} holds no seed: write the first seed first")
        seeds.extend(span)
    if len(set(seeds)) < len(seeds):
        raise argparse.ArgumentTypeError(f"{spec!r} names a seed twice: its scene would count twice")
    return seeds


_worker: tuple[TileDetector, CropBank] | None = None


def _read_seeds(seeds: list[int]) -> RealSceneTally:
    global _worker  # one detector and crop bank a process, made on its first chunk
    if _worker is None:
        _worker = (TileDetector(), CropBank.from_dataset(REAL_HK, "val"))
    return tally(*_worker, seeds)


def seed_tasks(seeds: list[int]) -> list[list[int]]:
    """``seeds`` in tasks of ``SEEDS_A_TASK``, handed to the worker processes as each comes free."""
    return [seeds[i : i + SEEDS_A_TASK] for i in range(0, len(seeds), SEEDS_A_TASK)]


def tally_in_processes(seeds: list[int], processes: int) -> RealSceneTally:
    """``tally`` of the shipped models over ``seeds``, read in ``processes`` worker processes."""
    counts = RealSceneTally()
    with ProcessPoolExecutor(processes) as pool:
        for part in pool.map(_read_seeds, seed_tasks(seeds)):
            counts.merge(part)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.real_scenes", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--seeds", type=parse_seeds, help="seeds to read, e.g. 100-999,2000-2299 (default: python -m bench real's ranges)"
    )
    parser.add_argument("--processes", type=int, help="worker processes for --seeds, one detector each (default 1)")
    args = parser.parse_args(argv)
    if args.processes is not None and (args.seeds is None or args.processes < 1):
        parser.error("--processes takes a count of 1 or more, with --seeds")
    if not REAL_HK.exists():
        parser.error(f"{REAL_HK} is absent (set TAICAM_REAL_HK)")
    figures = run() if args.seeds is None else tally_in_processes(args.seeds, args.processes or 1).figures()
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
