"""Table scenes laid out from real tile pixels: crops cut from real-hk-v4 photos, finished hands.

Our renders draw every face in code; the detector reads them well and real tiles lying flat on a
table poorly. These scenes take each face from a real photo instead: every labeled box of a
real-hk-v4 split is cut out, brought to a tile's aspect (Roboflow squashed the photos to 640 × 640)
and laid flat on a cloth as a winning hand by the renderer's own layout code (``scenes._lay_hand``):
the concealed row, the winning tile set apart, melds with a sideways claimed tile, concealed kongs
with backs (real-hk-v4 has no backs: those are drawn), flowers and discards. A camera then looks at
the table from any side, at any in-plane angle and with perspective, into 1280 × 720, 1920 × 1080 or
4000 × 3000 frames, with blur, noise, light and JPEG.

The val split's crops make the benchmark (``bench.real_scenes``); the train split's, with other
seeds, make training scenes (``python -m taicam_datasets.real_scenes``). Nothing here is written
into the repository: crops live in memory, scenes are rebuilt from their seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import BACK, TILE_CODES

from .faces import FACE_H, FACE_W, FaceStyle, draw_face
from .layout import list_images, pixel_boxes, read_labels, write_data_yaml
from .scenes import (
    CANVAS_H,
    CANVAS_W,
    CLASS_ID,
    MIN_VISIBLE,
    Scene,
    _Canvas,
    _lay_background,
    _lay_hand,
    _remaining_tiles,
    random_winning_layout,
)
from .storage import SHARED, atomic_write

# ../shared beside the checkout, as the tests expect it; TAICAM_REAL_HK points elsewhere (a worktree).
REAL_HK = Path(os.environ.get("TAICAM_REAL_HK") or Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-hk-v4")
FRAMES = ((1280, 720), (1920, 1080), (4000, 3000))
FRAMINGS = ("table", "hand")  # the whole table, or the winner's side of it
MIN_CROP_PX = 14  # narrower real crops are too blurred to be worth a tile on the table
# Augmented real-hk-v4 copies are turned with black corners; a crop touching them is not a clean face.
MAX_BLACK_SHARE = 0.02
FACE_WHITE_QUANTILE = 90  # the percentile of a crop's brightness taken as its tile's ivory


@dataclass(frozen=True)
class CropBank:
    """Real tile faces by code, cut from one split of a YOLO-layout folder (no backs)."""

    crops: dict[str, tuple[np.ndarray, ...]]

    @classmethod
    def from_dataset(cls, root: Path, split: str = "val", per_code: int | None = None, seed: int = 0) -> CropBank:
        """Every usable labeled box of ``root/images/split``; at most ``per_code`` a code, chosen by ``seed``."""
        images_dir = root / "images" / split
        if not images_dir.is_dir():
            raise FileNotFoundError(f"{images_dir}: no such split (expected a YOLO layout)")
        found: dict[str, list[np.ndarray]] = {}
        for path in list_images(images_dir):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            for crop, code in _cut(image, read_labels(root / "labels" / split / f"{path.stem}.txt")):
                found.setdefault(code, []).append(crop)
        rng = random.Random(seed)
        chosen = {code: rng.sample(items, min(per_code, len(items))) if per_code else items for code, items in found.items()}
        return cls({code: tuple(items) for code, items in sorted(chosen.items())})

    def __len__(self) -> int:
        return sum(len(v) for v in self.crops.values())

    def face(self, code: str, style: FaceStyle, rng: random.Random) -> np.ndarray:
        """An upright ``FACE_H × FACE_W`` face: a real crop of ``code``, lit like ``style``'s ivory.

        Crops come from many photos and lights; scaling each crop's white to one set's ivory keeps
        the tiles of one table alike, as one set under one lamp is. Backs are drawn.
        """
        if code == BACK or code not in self.crops:
            return draw_face(code, style, rng)
        crop = rng.choice(self.crops[code])
        face = cv2.resize(crop, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA if crop.shape[1] > FACE_W else cv2.INTER_LINEAR)
        white = np.percentile(face.reshape(-1, 3), FACE_WHITE_QUANTILE, axis=0)
        gain = np.array(style.face_rgb[::-1], np.float32) / np.maximum(white, 1.0)
        return np.clip(face * np.clip(gain, 0.6, 1.8), 0, 255).astype(np.uint8)


def _cut(image: np.ndarray, labels: list[tuple[int, float, float, float, float]]) -> Iterator[tuple[np.ndarray, str]]:
    h, w = image.shape[:2]
    for cls, cx, cy, bw, bh in labels:
        x1, y1 = max(0, round((cx - bw / 2) * w)), max(0, round((cy - bh / 2) * h))
        x2, y2 = min(w, round((cx + bw / 2) * w)), min(h, round((cy + bh / 2) * h))
        if x2 - x1 < MIN_CROP_PX or y2 - y1 < MIN_CROP_PX:
            continue
        crop = image[y1:y2, x1:x2]
        if (crop.max(axis=2) < 20).mean() > MAX_BLACK_SHARE:
            continue
        yield crop.copy(), TILE_CODES[cls]


@dataclass(frozen=True)
class RealScene:
    """A photographed real-tile scene: ``scene`` as the renderer's, with its frame and framing."""

    scene: Scene
    seed: int
    framing: str
    quads: np.ndarray  # (n, 4, 2) each labeled face's corners in the photo: top-left, top-right, bottom-right, bottom-left

    @property
    def boxes(self) -> np.ndarray:
        """(n, 4) xyxy truth boxes in photo pixels."""
        h, w = self.scene.image.shape[:2]
        return pixel_boxes(self.scene.labels, w, h)


def real_scene(bank: CropBank, seed: int, frame: tuple[int, int] | None = None, framing: str | None = None) -> RealScene:
    """One scene, reproducible from ``seed`` and the bank; frame and framing follow from the seed unless given."""
    rng = random.Random(seed)
    frame = frame or FRAMES[seed % len(FRAMES)]
    framing = framing or FRAMINGS[(seed // len(FRAMES)) % len(FRAMINGS)]
    style = FaceStyle.random(rng)
    canvas = _Canvas(rng, faces=lambda code, s: bank.face(code, s, rng))
    tile_w = rng.uniform(62, 84)
    layout = random_winning_layout(rng)
    hand_y = CANVAS_H - tile_w * 1.1 - 160
    _lay_background(canvas, style, rng, tile_w, hand_y - tile_w * 3, _remaining_tiles(layout))
    _lay_hand(canvas, layout, style, rng, tile_w)
    visible = np.bincount(canvas.ids[canvas.ids >= 0].ravel(), minlength=len(canvas.tiles))
    photo, homography = _photograph(canvas, rng, frame, framing, tile_w)
    photo = _degrade(photo, rng)
    h, w = photo.shape[:2]
    labels, roles, quads = [], [], []
    for index, tile in enumerate(canvas.tiles):
        if visible[index] < MIN_VISIBLE * cv2.contourArea(tile.quad.astype(np.float32)):
            continue  # under another tile
        quad = cv2.perspectiveTransform(tile.quad.reshape(1, 4, 2).astype(np.float32), homography)[0]
        x1, y1 = np.maximum(quad.min(axis=0), 0)
        x2, y2 = np.minimum(quad.max(axis=0), (w, h))
        full = np.prod(quad.max(axis=0) - quad.min(axis=0))
        if x2 <= x1 or y2 <= y1 or (x2 - x1) * (y2 - y1) < MIN_VISIBLE * full:
            continue  # mostly outside the photo
        labels.append((CLASS_ID[tile.code], (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h))
        roles.append((tile.role, tile.group))
        quads.append(quad)
    layout["seed"] = seed
    return RealScene(Scene(photo, labels, layout, roles), seed, framing, np.array(quads, np.float32).reshape(-1, 4, 2))


def face_crops(scene: RealScene, side: int, margin: float, rng: random.Random | None = None, jitter: float = 0.0) -> np.ndarray:
    """(n, side, side, 3) crops of the scene's faces, each turned upright and squashed square.

    The pipeline reads tiles from a level view of the hand, so the classifier should learn faces
    turned upright; ``jitter`` moves each corner by up to that share of the face, as boxes stray.
    """
    crops = np.empty((len(scene.quads), side, side, 3), np.uint8)
    target = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    for i, quad in enumerate(scene.quads.astype(np.float64)):
        centre = quad.mean(axis=0)
        size = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[0])
        corners = centre + (quad - centre) * (1 + 2 * margin)
        if rng is not None and jitter:
            corners += np.array([[rng.uniform(-jitter, jitter) for _ in range(2)] for _ in range(4)]) * size / 2
        matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
        crops[i] = cv2.warpPerspective(
            scene.scene.image, matrix, (side, side), flags=cv2.INTER_AREA, borderValue=(114, 114, 114)
        )
    return crops


def _photograph(
    canvas: _Canvas, rng: random.Random, frame: tuple[int, int], framing: str, tile_w: float
) -> tuple[np.ndarray, np.ndarray]:
    """Look at the table from any side and angle, with perspective; the photo and the homography."""
    out_w, out_h = frame
    src = np.array([[0, 0], [CANVAS_W, 0], [CANVAS_W, CANVAS_H], [0, CANVAS_H]], np.float32)
    shrink = CANVAS_W * rng.uniform(0, 0.3) / 2  # the far edge shrinks under an oblique camera
    dst = np.array([[shrink, 0], [CANVAS_W - shrink, 0], [CANVAS_W, CANVAS_H], [0, CANVAS_H]], np.float32)
    dst += np.array([[rng.uniform(-50, 50), rng.uniform(-50, 50)] for _ in range(4)], np.float32)
    angle = np.radians(rng.uniform(0, 360))
    turn = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])
    seen = turn @ cv2.getPerspectiveTransform(src, dst)
    if framing == "table":
        region, fill = src, rng.uniform(0.85, 1.0)
    else:  # the winner's tiles, with a margin of table around them
        hand = np.concatenate([t.quad for t in canvas.tiles if t.role != "background"])
        margin = tile_w * rng.uniform(1.0, 3.0)
        region, fill = np.vstack([hand.min(axis=0) - margin, hand.max(axis=0) + margin]).astype(np.float32), 1.0
        region = np.array([region[0], [region[1, 0], region[0, 1]], region[1], [region[0, 0], region[1, 1]]], np.float32)
    corners = cv2.perspectiveTransform(region.reshape(1, -1, 2), seen)[0]
    low, high = corners.min(axis=0), corners.max(axis=0)
    scale = fill * min(out_w / (high[0] - low[0]), out_h / (high[1] - low[1]))
    slack = np.array([out_w, out_h]) - scale * (high - low)
    offset = slack * np.array([rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)]) - scale * low
    homography = np.array([[scale, 0, offset[0]], [0, scale, offset[1]], [0, 0, 1]]) @ seen
    floor = tuple(int(v) for v in np.array(rng.choice([(40, 60, 90), (70, 70, 70), (30, 40, 50), (120, 150, 170)])))
    source = canvas.image
    local = float(np.sqrt(abs(np.linalg.det(homography[:2, :2] / homography[2, 2]))))
    if local < 0.8:  # shrink first: warpPerspective samples, it does not average, and fine faces alias
        source = cv2.resize(source, None, fx=local, fy=local, interpolation=cv2.INTER_AREA)
        homography = homography @ np.diag([1 / local, 1 / local, 1])
    photo = cv2.warpPerspective(source, homography, (out_w, out_h), flags=cv2.INTER_LINEAR, borderValue=floor)
    if local < 0.8:
        homography = homography @ np.diag([local, local, 1])
    return photo, homography


def _degrade(photo: np.ndarray, rng: random.Random) -> np.ndarray:
    """Light, shadow, sensor noise, focus and JPEG, scaled to the frame's size."""
    h, w = photo.shape[:2]
    out = photo.astype(np.float32) * rng.uniform(0.6, 1.15)
    out += np.array([rng.uniform(-12, 12) for _ in range(3)], np.float32)  # white balance
    if rng.random() < 0.4:  # a shadow across part of the table
        ramp = np.linspace(rng.uniform(0.5, 0.85), 1.0, w, dtype=np.float32)
        out *= (ramp[::-1] if rng.random() < 0.5 else ramp)[None, :, None]
    if rng.random() < 0.3:
        out += np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(2, 8), (h, w, 1)).astype(np.float32)
    photo = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # out of focus or a shaking hand, in proportion to the frame
        sigma = rng.uniform(0.5, 1.6) * w / 1920
        photo = cv2.GaussianBlur(photo, (0, 0), sigma)
    ok, buffer = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 95)])
    return cv2.imdecode(buffer, cv2.IMREAD_COLOR) if ok else photo


def write_training_scenes(bank: CropBank, out: Path, seeds: range, val_every: int = 10) -> Path:
    """Scenes of ``seeds`` as a YOLO-layout folder (every ``val_every``-th seed to val); its data.yaml."""
    out = out.resolve()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    layouts = []
    for seed in seeds:
        made = real_scene(bank, seed)
        split = "val" if seed % val_every == 0 else "train"
        stem = f"real_scene_{seed:07d}"
        cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), made.scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        lines = "".join(f"{c} {x:.6f} {y:.6f} {bw:.6f} {bh:.6f}\n" for c, x, y, bw, bh in made.scene.labels)
        atomic_write(out / "labels" / split / f"{stem}.txt", lines, SHARED)
        layouts.append({"image": f"images/{split}/{stem}.jpg", **made.scene.layout})
    atomic_write(out / "layouts.jsonl", "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in layouts), SHARED)
    return write_data_yaml(out)


# Training scenes take seeds from here on, far from the benchmark's (0–59 and 1000–1059).
TRAINING_SEED_BASE = 5_000_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write real-tile training scenes (crops of a real-hk-v4 split)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--data", type=Path, default=REAL_HK)
    parser.add_argument("--split", default="train", help="the split whose crops are laid out (never val for training)")
    parser.add_argument("--seed", type=int, default=TRAINING_SEED_BASE)
    parser.add_argument(
        "--val-every", type=int, default=10, help="every Nth seed goes to val; 1 writes the benchmark's scenes all to val"
    )
    args = parser.parse_args(argv)
    bank = CropBank.from_dataset(args.data, args.split)
    print(f"{len(bank)} crops from {args.data}/{args.split}")
    print(write_training_scenes(bank, args.out, range(args.seed, args.seed + args.n), max(args.val_every, 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
