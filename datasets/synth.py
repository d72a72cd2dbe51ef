"""``taicam data synth``: write rendered scenes as a YOLO-layout dataset."""

from __future__ import annotations

import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
from tqdm import tqdm

from .faces import render_fonts
from .layout import write_data_yaml
from .scenes import render_scene
from .storage import SHARED, atomic_write

VAL_EVERY = 10  # every tenth scene goes to val: seeds, not files, decide the split


def _write_one(args: tuple[Path, int, str, bool, bool]) -> dict:
    out, seed, framing, plant_flowers, varied_suits = args
    split = "val" if seed % VAL_EVERY == 0 else "train"
    if framing == "mix":  # mostly training views, every third a player's snap of the hand
        framing = "hand" if seed % 3 == 1 else "random"
    scene = render_scene(seed, framing, plant_flowers, varied_suits)
    stem = f"synth_{seed:07d}"
    image_path = out / "images" / split / f"{stem}.jpg"
    cv2.imwrite(str(image_path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    label_lines = "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in scene.labels)
    atomic_write(out / "labels" / split / f"{stem}.txt", label_lines, SHARED)
    return {"image": f"images/{split}/{stem}.jpg", **scene.layout}


def synthesize(
    out: Path,
    n: int,
    seed: int = 1,
    workers: int | None = None,
    progress: bool = True,
    framing: str = "random",
    plant_flowers: bool = False,
    varied_suits: bool = False,
) -> Path:
    """Render ``n`` scenes with seeds ``seed*1_000_000 + i`` into ``out``; returns its data.yaml.

    ``framing`` is ``random`` (training views), ``hand`` (a player's snap of the hand),
    ``table`` (the whole table) or ``mix``; ``plant_flowers`` draws each flower's own plant,
    ``varied_suits`` each set's circles and sticks its own way (``SuitArt``).
    """
    render_fonts()  # fail before spawning workers if a font is missing
    out = out.resolve()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    jobs = [(out, seed * 1_000_000 + i, framing, plant_flowers, varied_suits) for i in range(n)]
    workers = workers or os.cpu_count() or 1
    layouts = []
    # Spawned, not forked: a worker forked from a process with other threads (onnxruntime, a server,
    # the test run) can inherit a lock another thread held, and hang on it for good.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for layout in tqdm(pool.map(_write_one, jobs, chunksize=8), total=n, disable=not progress, desc="synth"):
            layouts.append(layout)
    atomic_write(out / "layouts.jsonl", "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in layouts), SHARED)
    return write_data_yaml(out)
