"""YOLO dataset layout helpers shared by the generator, the importer and training."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scoring.tiles import TILE_CODES

from .storage import atomic_write

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def write_data_yaml(root: Path, train: list[Path] | None = None, val: list[Path] | None = None) -> Path:
    """Write ``root/data.yaml`` with absolute paths and the fixed tile-code class list."""
    root = root.resolve()
    train = train or [root / "images" / "train"]
    val = val or [root / "images" / "val"]
    lines = ["# written by taicam; class order is the tile-code order and never changes"]
    lines.append("train:")
    lines += [f"  - {p.resolve()}" for p in train]
    lines.append("val:")
    lines += [f"  - {p.resolve()}" for p in val]
    lines.append(f"nc: {len(TILE_CODES)}")
    lines.append("names:")
    lines += [f"  {i}: '{code}'" for i, code in enumerate(TILE_CODES)]
    path = root / "data.yaml"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def list_images(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def read_labels(path: Path) -> list[tuple[int, float, float, float, float]]:
    """YOLO label lines ``class cx cy w h``; a missing file means no boxes."""
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 5:
            raise ValueError(f"{path}:{number}: expected 'class cx cy w h', got {line!r}")
        cls = int(parts[0])
        if not 0 <= cls < len(TILE_CODES):
            raise ValueError(f"{path}:{number}: class {cls} is outside 0..{len(TILE_CODES) - 1}")
        rows.append((cls, float(parts[1]), float(parts[2]), float(parts[3]), float(parts[4])))
    return rows


def pixel_boxes(labels: Sequence[Sequence[float]], width: int, height: int) -> np.ndarray:
    """(n, 4) float32 xyxy boxes in pixels of a ``width`` × ``height`` image, from YOLO label rows
    ``(class, cx, cy, w, h)`` (``read_labels``), normalised to the image."""
    rows = np.array([row[1:] for row in labels], np.float64).reshape(-1, 4)
    centres, sides = rows[:, :2] * (width, height), rows[:, 2:] * (width, height)
    return np.concatenate([centres - sides / 2, centres + sides / 2], axis=1).astype(np.float32)
