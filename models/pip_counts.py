"""``python -m models.pip_counts``: count the circles of every labeled tile in a YOLO-layout split
(``vision.pips.count_pips``) and write how often each code gave each count: the table the crop
classifier's reading is weighed by (``vision.pips.PipCounts``, ``models/pip-counts.json``).

Counted on real-hk-v4 **train** only, so that real val and the real-tile scenes built from its
crops stay held out.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
from taicam_datasets.layout import list_images, read_labels
from taicam_datasets.real_scenes import MIN_CROP_PX
from taicam_datasets.storage import SHARED, atomic_write

from scoring.tiles import TILE_CODES
from vision.pips import BUNDLED_PIP_COUNTS, count_pips


def count_split(root: Path, split: str = "train") -> dict[str, Counter]:
    """For each code, how many of its labeled boxes in ``root/images/split`` gave each count (0: none)."""
    images_dir = root / "images" / split
    if not images_dir.is_dir():
        raise FileNotFoundError(f"{images_dir}: no such split (expected a YOLO layout)")
    counts: dict[str, Counter] = {}
    for path in list_images(images_dir):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        for cls, cx, cy, bw, bh in read_labels(root / "labels" / split / f"{path.stem}.txt"):
            # In float64: pixel_boxes' float32 moves the edge pixel of a few boxes, and with it two counts.
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            if min(bw * w, bh * h) < MIN_CROP_PX:  # no tile face worth counting, as for the scenes' crop bank
                continue
            counts.setdefault(TILE_CODES[cls], Counter())[count_pips(image, box)] += 1
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="YOLO-layout folder (real-hk-v4)")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", type=Path, default=BUNDLED_PIP_COUNTS)
    args = parser.parse_args(argv)
    counts = count_split(args.data, args.split)
    table = {
        "about": f"How many labeled boxes of each code in {args.data.name} {args.split} gave each count of "
        "vision.pips.count_pips (0: no count). Made by python -m models.pip_counts --data DATA.",
        "counts": {code: {str(n): counts[code][n] for n in sorted(counts[code])} for code in TILE_CODES if code in counts},
    }
    atomic_write(args.out, json.dumps(table, indent=1, ensure_ascii=False) + "\n", SHARED)
    print(f"{args.out}: {sum(sum(seen.values()) for seen in counts.values())} boxes counted")


if __name__ == "__main__":
    main()
