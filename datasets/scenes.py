"""Synthetic table scenes at the end of a hand, with YOLO labels and the true layout.

A scene is laid out on a flat table canvas (top view), then photographed by a random camera:
a homography for viewpoint and rotation, lens distortion, blur, glare, shadows, low light and
JPEG artefacts. Labels are the face boxes of tiles that stay at least half visible.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from scoring.tiles import BACK, FLOWERS, PLAYING_TILES, SUITED, TILE_CODES

from .faces import FACE_H, FACE_W, FaceStyle, SuitArt, draw_face

CANVAS_W, CANVAS_H = 1600, 1200
CLASS_ID = {code: i for i, code in enumerate(TILE_CODES)}
MIN_VISIBLE = 0.5
WINNING_APART = (0.4, 1.2)  # tile widths between the concealed row and the winning tile
MELD_ROW_STEP = 1.3  # tile heights between a row of melds and the row of melds or flowers above it

CLOTHS = [(40, 110, 40), (60, 90, 30), (120, 70, 20), (40, 40, 140), (90, 90, 90), (30, 60, 100), (150, 140, 120)]
SKIN = [(120, 150, 200), (90, 120, 170), (150, 180, 225), (70, 95, 140)]


@dataclass
class PlacedTile:
    code: str
    quad: np.ndarray  # 4×2 face corners on the canvas
    role: str  # concealed, winning, meld, concealed_kong, flower, background
    group: int = -1


@dataclass
class Scene:
    image: np.ndarray
    labels: list[tuple[int, float, float, float, float]]
    layout: dict = field(default_factory=dict)
    roles: list[tuple[str, int]] = field(default_factory=list)  # (role, meld group) per label

    def shows_whole_hand(self) -> bool:
        """Whether the photo shows every tile of the layout (a camera framing part of the table cuts some off)."""
        layout = self.layout
        laid = len(layout["concealed"]) + sum(len(m["tiles"]) for m in layout["melds"]) + len(layout["flowers"]) + 1
        return sum(role != "background" for role, _ in self.roles) == laid


def random_winning_layout(rng: random.Random) -> dict:
    """A plausible 17-tile winning hand: concealed tiles, melds, flowers and a winning tile."""
    counts: Counter[str] = Counter()

    def take(tiles: list[str]) -> bool:
        if any(counts[t] + tiles.count(t) > 4 for t in set(tiles)):
            return False
        counts.update(tiles)
        return True

    sets: list[tuple[str, list[str]]] = []
    suits = rng.sample("mps", rng.choice([1, 2, 3]))
    while len(sets) < 5:
        kind = rng.choices(["chow", "pung", "kong"], [0.6, 0.32, 0.08])[0]
        if kind == "chow":
            suit, start = rng.choice(suits), rng.randint(1, 7)
            tiles = [f"{start + i}{suit}" for i in range(3)]
        else:
            pool = [t for t in PLAYING_TILES if t[1] in suits or t[1] == "z"]
            tiles = [rng.choice(pool)] * (4 if kind == "kong" else 3)
        if take(tiles):
            sets.append((kind, tiles))
    while True:
        pair_tile = rng.choice([t for t in PLAYING_TILES if t[1] in suits or t[1] == "z"])
        if take([pair_tile, pair_tile]):
            break
    n_open = rng.choices([0, 1, 2, 3, 4], [0.3, 0.25, 0.2, 0.15, 0.1])[0]
    melds, concealed = [], [pair_tile, pair_tile]
    for i, (kind, tiles) in enumerate(sets):
        if kind == "kong":
            melds.append({"kind": rng.choice(["kong", "concealed_kong"]), "tiles": tiles})
        elif i < n_open:
            melds.append({"kind": kind, "tiles": tiles})
        else:
            concealed.extend(tiles)
    rng.shuffle(concealed)
    winning = concealed.pop()
    concealed.sort(key=TILE_CODES.index)
    flowers = sorted(rng.sample(FLOWERS, rng.choice([0, 0, 1, 1, 2, 3, 4])), key=TILE_CODES.index)
    return {"concealed": concealed, "melds": melds, "flowers": flowers, "winning_tile": winning}


class _Canvas:
    """Paints tiles and occluders on the table and keeps an id map for visibility."""

    def __init__(self, rng: random.Random, faces: Callable[[str, FaceStyle], np.ndarray] | None = None):
        self.rng = rng
        self.faces = faces  # another source of face pixels (real tile crops); drawn procedurally when None
        cloth = np.array(rng.choice(CLOTHS), np.float32) * rng.uniform(0.7, 1.2)
        # Felt texture: coarse noise, upscaled, is as convincing as per-pixel noise and far cheaper.
        noise = np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(3, 12), (CANVAS_H // 4, CANVAS_W // 4, 1))
        noise = cv2.resize(noise.astype(np.float32), (CANVAS_W, CANVAS_H))[..., None]
        self.image = np.clip(cloth + noise, 0, 255).astype(np.uint8)
        self.ids = np.full((CANVAS_H, CANVAS_W), -1, np.int32)
        self.tiles: list[PlacedTile] = []

    def tile(self, code: str, style: FaceStyle, centre, width: float, angle: float, role: str, group: int = -1) -> None:
        height = width * FACE_H / FACE_W
        c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
        corners = np.array(
            [[-width / 2, -height / 2], [width / 2, -height / 2], [width / 2, height / 2], [-width / 2, height / 2]]
        )
        quad = corners @ np.array([[c, s], [-s, c]]) + np.asarray(centre, np.float64)
        depth = height * style.thickness * 0.35
        body = quad + np.array([0, depth])
        side = np.array(style.face_rgb, np.float64) * 0.75
        if self.rng.random() < 0.7:  # most sets have a coloured back layer on the side
            side = np.array(style.back_rgb, np.float64)
        hull = cv2.convexHull(np.vstack([quad, body]).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(self.image, hull + np.array([3, 4], np.int32), (0, 0, 0), cv2.LINE_AA)  # contact shadow
        cv2.fillConvexPoly(self.image, hull, tuple(int(v) for v in side), cv2.LINE_AA)
        cv2.fillConvexPoly(self.ids, hull, -1)
        face = self.faces(code, style) if self.faces is not None else draw_face(code, style, self.rng)
        # Warp only into the tile's bounding box: a full-canvas warp per tile is 20× slower.
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, CANVAS_W), min(y1, CANVAS_H)
        if x1 <= x0 or y1 <= y0:
            return
        local = (quad - np.array([x0, y0])).astype(np.float32)
        src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H]], np.float32)
        matrix = cv2.getAffineTransform(src, local[:3])
        roi = self.image[y0:y1, x0:x1]
        warped = cv2.warpAffine(face, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(local).astype(np.int32), 1)
        roi[mask > 0] = warped[mask > 0]
        self.ids[y0:y1, x0:x1][mask > 0] = len(self.tiles)
        self.tiles.append(PlacedTile(code, quad, role, group))

    def occluder(self, kind: str) -> None:
        rng = self.rng
        x, y = rng.uniform(0, CANVAS_W), rng.uniform(0, CANVAS_H)
        mask = np.zeros((CANVAS_H, CANVAS_W), np.uint8)
        if kind == "hand":
            colour = rng.choice(SKIN)
            cv2.ellipse(
                mask, (int(x), int(y)), (rng.randint(90, 150), rng.randint(60, 100)), rng.uniform(0, 180), 0, 360, 1, -1
            )
            for _ in range(4):
                angle = rng.uniform(0, 2 * np.pi)
                tip = (int(x + np.cos(angle) * rng.randint(120, 220)), int(y + np.sin(angle) * rng.randint(120, 220)))
                cv2.line(mask, (int(x), int(y)), tip, 1, rng.randint(22, 34))
        elif kind == "cup":
            colour = rng.choice([(230, 230, 230), (40, 40, 40), (60, 120, 200)])
            cv2.circle(mask, (int(x), int(y)), rng.randint(50, 90), 1, -1)
        else:  # chips
            colour = rng.choice([(40, 40, 200), (200, 200, 200), (30, 160, 220), (180, 60, 60)])
            for _ in range(rng.randint(3, 8)):
                cv2.circle(mask, (int(x + rng.uniform(-50, 50)), int(y + rng.uniform(-50, 50))), rng.randint(14, 22), 1, -1)
        shade = np.clip(np.array(colour) * rng.uniform(0.7, 1.1), 0, 255).astype(np.uint8)
        self.image[mask > 0] = shade
        self.ids[mask > 0] = -1


def _lay_hand(canvas: _Canvas, layout: dict, style: FaceStyle, rng: random.Random, tile_w: float) -> None:
    """Lay the winner's tiles in rows along the bottom edge, melds above, flowers apart.

    Every tile lies on the cloth: a row that would run past its right edge starts further left,
    wraps (melds) or goes where the other choice puts it (flowers). A tile off the canvas is in no
    photo, and a hand missing it cannot be read. Those moves take no random draws, so a hand that
    fits is laid exactly as before.
    """
    gap = tile_w * rng.uniform(0.0, 0.06)
    x = rng.uniform(60, 200)
    row = len(layout["concealed"]) * (tile_w + gap)
    if x > CANVAS_W - row - tile_w * (1 + WINNING_APART[0]):
        # The winning tile would lie off the cloth wherever it was set apart: the row starts far enough
        # left for the furthest, so that such hands are not all laid with their winning tile nearest.
        x = max(0.0, CANVAS_W - row - tile_w * (1 + WINNING_APART[1]))
    y = CANVAS_H - tile_w * 1.1 - rng.uniform(40, 160)
    for code in layout["concealed"]:
        canvas.tile(code, style, (x + tile_w / 2, y), tile_w, rng.uniform(-1.5, 1.5), "concealed")
        x += tile_w + gap
    x += min(tile_w * rng.uniform(*WINNING_APART), CANVAS_W - x - tile_w)
    canvas.tile(layout["winning_tile"], style, (x + tile_w / 2, y + rng.uniform(-8, 8)), tile_w, rng.uniform(-4, 4), "winning")
    tile_h = tile_w * FACE_H / FACE_W
    mx = row_start = rng.uniform(60, 300)
    my = y - tile_h * rng.uniform(1.15, 1.5)
    for group, meld in enumerate(layout["melds"]):
        tiles = meld["tiles"]
        claimed = rng.randrange(len(tiles)) if meld["kind"] != "concealed_kong" else -1
        if mx + len(tiles) * (tile_w + gap) - gap + (tile_h - tile_w) * (claimed >= 0) > CANVAS_W:
            mx, my = row_start, my - tile_h * MELD_ROW_STEP
        hidden = {1, 2} if rng.random() < 0.6 else {0, 3}
        for i, code in enumerate(tiles):
            if meld["kind"] == "concealed_kong" and (i in hidden or rng.random() < 0.1):
                code = BACK
            if i == claimed:  # the claimed tile lies sideways
                canvas.tile(code, style, (mx + tile_h / 2, my + (tile_h - tile_w) / 2), tile_w, 90, "meld", group)
                mx += tile_h + gap
            else:
                canvas.tile(code, style, (mx + tile_w / 2, my), tile_w, rng.uniform(-1.5, 1.5), "meld", group)
                mx += tile_w + gap
        mx += tile_w * rng.uniform(0.3, 0.8)
    if layout["flowers"]:
        beside_melds, at_right_edge = mx + tile_w, CANVAS_W - tile_w * (len(layout["flowers"]) + 2)
        fx = rng.choice([beside_melds, at_right_edge])
        if fx + len(layout["flowers"]) * (tile_w + gap) - gap > CANVAS_W:
            fx = at_right_edge
        fy = my if fx > mx else my - tile_h * MELD_ROW_STEP
        for code in layout["flowers"]:
            canvas.tile(code, style, (fx + tile_w / 2, fy), tile_w, rng.uniform(-3, 3), "flower")
            fx += tile_w + gap


def _remaining_tiles(layout: dict) -> list[str]:
    """The set's tiles the winner does not hold (4 of each kind). Flowers are never discarded."""
    held = Counter(layout["concealed"] + [layout["winning_tile"]])
    for meld in layout["melds"]:
        held.update(meld["tiles"])
    return [t for t in PLAYING_TILES for _ in range(4 - held[t])]


def _lay_background(
    canvas: _Canvas, style: FaceStyle, rng: random.Random, tile_w: float, avoid_y: float, pool: list[str]
) -> None:
    """Discards in the middle, a wall and the other players' racks near the far edges."""
    small = tile_w * rng.uniform(0.6, 0.85)
    rng.shuffle(pool)
    for _ in range(rng.randint(0, 28)):
        code = pool.pop() if pool and rng.random() < 0.95 else BACK
        cx, cy = rng.uniform(300, CANVAS_W - 300), rng.uniform(250, avoid_y - small * 2)
        if cy <= 250:
            break
        canvas.tile(code, style, (cx, cy), small, rng.choice([0, 90, 180, 270]) + rng.uniform(-15, 15), "background")
    if rng.random() < 0.7:  # a wall of face-down tiles
        wx, wy = rng.uniform(150, 400), rng.uniform(80, 200)
        for i in range(rng.randint(5, 14)):
            canvas.tile(BACK, style, (wx + i * small * 1.02, wy), small, rng.uniform(-1, 1), "background")
    if rng.random() < 0.5:  # an opponent's melds, upside down across the table
        ox, oy = rng.uniform(400, 900), rng.uniform(60, 140)
        suited = [t for t in pool if t in SUITED]
        for code in suited[: rng.randint(3, 9)]:
            pool.remove(code)
            canvas.tile(code, style, (ox, oy), small, 180 + rng.uniform(-2, 2), "background")
            ox += small * 1.03


FRAMINGS = ("random", "table", "hand")


def _camera(
    image: np.ndarray, ids: np.ndarray, rng: random.Random, framing: str = "random"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random viewpoint: returns the photo, the warped id map and the homography.

    ``random`` frames any window, as training wants. ``table`` keeps the whole table in a 4:3
    phone photo. ``hand`` is the snap a player takes of a winning hand: the winner's side of
    the table, landscape, from the winner's or the opposite side.
    """
    if framing not in FRAMINGS:
        raise ValueError(f"framing must be one of {FRAMINGS}")
    if framing == "table":
        out_w, out_h = rng.choice([(1600, 1200), (1200, 1600)])
    elif framing == "hand":
        out_w, out_h = 1920, 1080
    elif rng.random() < 0.35:
        out_w, out_h = 640, 640  # squashed square frames, as in the Roboflow-exported photos
    else:
        out_w, out_h = rng.choice([(960, 720), (720, 960), (1024, 576)])
    src = np.array([[0, 0], [CANVAS_W, 0], [CANVAS_W, CANVAS_H], [0, CANVAS_H]], np.float32)
    tilt = rng.uniform(0, 0.28)  # far edge shrinks under an oblique phone
    shrink = CANVAS_W * tilt / 2
    dst = np.array([[shrink, 0], [CANVAS_W - shrink, 0], [CANVAS_W, CANVAS_H], [0, CANVAS_H]], np.float32)
    dst += np.array([[rng.uniform(-60, 60), rng.uniform(-60, 60)] for _ in range(4)], np.float32)
    if framing == "table":
        view_w, view_h = CANVAS_W / 0.62, CANVAS_H / 0.62
        vx, vy = (CANVAS_W - view_w) / 2, (CANVAS_H - view_h) / 2
    elif framing == "hand":
        view_w = CANVAS_W * 1.12
        view_h = view_w * out_h / out_w
        vx, vy = (CANVAS_W - view_w) / 2, CANVAS_H - view_h + 40
    else:  # zoom toward the winner's hand most of the time
        zoom = rng.uniform(1.0, 2.2)
        view_w, view_h = CANVAS_W / zoom, CANVAS_H / zoom
        vx = rng.uniform(0, CANVAS_W - view_w)
        vy = rng.uniform(max(0.0, (CANVAS_H - view_h) * 0.4), CANVAS_H - view_h)
    if framing == "hand":
        angle = rng.choice([0, 180]) + rng.uniform(-8, 8)
    else:
        angle = rng.choice([0, 0, 0, 90, 180, 270]) + rng.uniform(-20, 20)
    rot = cv2.getRotationMatrix2D((out_w / 2, out_h / 2), angle, 1.0)
    scale = np.array([[out_w / view_w, 0, -vx * out_w / view_w], [0, out_h / view_h, -vy * out_h / view_h], [0, 0, 1]])
    homography = np.vstack([rot, [0, 0, 1]]) @ scale @ cv2.getPerspectiveTransform(src, dst)
    fill = tuple(int(v) for v in image[CANVAS_H // 2, 10])
    photo = cv2.warpPerspective(image, homography, (out_w, out_h), flags=cv2.INTER_AREA, borderValue=fill)
    id_map = cv2.warpPerspective(ids, homography, (out_w, out_h), flags=cv2.INTER_NEAREST, borderValue=-1)
    return photo, id_map, homography


def _degrade(photo: np.ndarray, rng: random.Random) -> np.ndarray:
    """Lens, blur, light and compression: what a phone or a cheap USB camera adds."""
    h, w = photo.shape[:2]
    out = photo.astype(np.float32)
    if rng.random() < 0.4:  # glare: a soft bright spot
        gx, gy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(60, 250)
        yy, xx = np.mgrid[0:h, 0:w]
        out += rng.uniform(40, 110) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))[..., None]
    if rng.random() < 0.4:  # a shadow across part of the table
        ramp = np.linspace(rng.uniform(0.45, 0.8), 1.0, w if rng.random() < 0.5 else h, dtype=np.float32)
        out *= ramp[None, :, None] if len(ramp) == w else ramp[:, None, None]
    out *= rng.uniform(0.45, 1.15)  # exposure, low light included
    out += np.array([rng.uniform(-12, 12) for _ in range(3)], np.float32)  # white balance
    if rng.random() < 0.3:
        out += np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(2, 9), out.shape)
    photo = np.clip(out, 0, 255).astype(np.uint8)
    blur = rng.random()
    if blur < 0.2:
        k = rng.choice([3, 5, 7])
        photo = cv2.GaussianBlur(photo, (k, k), 0)
    elif blur < 0.35:  # motion blur
        k = rng.randint(5, 11)
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((k / 2, k / 2), rng.uniform(0, 180), 1), (k, k))
        photo = cv2.filter2D(photo, -1, kernel / max(kernel.sum(), 1e-6))
    quality = rng.randint(35, 95)
    ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else photo


def _distort(photo: np.ndarray, id_map: np.ndarray, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Barrel or pincushion distortion of a cheap wide lens, applied to photo and ids alike."""
    h, w = photo.shape[:2]
    k = rng.uniform(-0.12, 0.08)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    factor = 1 + k * (nx * nx + ny * ny)
    map_x, map_y = nx * factor * (w / 2) + w / 2, ny * factor * (h / 2) + h / 2
    photo = cv2.remap(photo, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    id_map = cv2.remap(id_map.astype(np.float32), map_x, map_y, cv2.INTER_NEAREST, borderValue=-1).astype(np.int32)
    return photo, id_map


def render_scene(seed: int, framing: str = "random", plant_flowers: bool = False, varied_suits: bool = False) -> Scene:
    """One photographed table scene, reproducible from ``seed`` (framings: see ``_camera``);
    ``plant_flowers`` draws the flowers as real sets do (``FaceStyle.plant_flowers``), ``varied_suits``
    the set's circles and sticks its own way (``SuitArt``): each a scene of its own, since those
    drawings take other random draws."""
    rng = random.Random(seed)
    style = replace(FaceStyle.random(rng), plant_flowers=plant_flowers)
    if varied_suits:
        style = replace(style, suit_art=SuitArt.random(rng))
    canvas = _Canvas(rng)
    tile_w = rng.uniform(62, 84)
    layout = random_winning_layout(rng)
    hand_y = CANVAS_H - tile_w * 1.1 - 160
    _lay_background(canvas, style, rng, tile_w, hand_y - tile_w * 3, _remaining_tiles(layout))
    _lay_hand(canvas, layout, style, rng, tile_w)
    for _ in range(0 if framing != "random" else rng.choice([0, 0, 1, 2, 3])):
        canvas.occluder(rng.choice(["hand", "hand", "cup", "chips"]))
    canvas_visible = np.bincount(canvas.ids[canvas.ids >= 0].ravel(), minlength=len(canvas.tiles))
    photo, id_map, homography = _camera(canvas.image, canvas.ids, rng, framing)
    if rng.random() < 0.3:
        photo, id_map = _distort(photo, id_map, rng)
    photo = _degrade(photo, rng)
    h, w = photo.shape[:2]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    ys, xs = np.nonzero(id_map >= 0)
    owners = id_map[ys, xs]
    n = len(canvas.tiles)
    box_x1, box_y1 = np.full(n, w), np.full(n, h)
    box_x2, box_y2 = np.full(n, -1), np.full(n, -1)
    np.minimum.at(box_x1, owners, xs)
    np.minimum.at(box_y1, owners, ys)
    np.maximum.at(box_x2, owners, xs + 1)
    np.maximum.at(box_y2, owners, ys + 1)
    labels = []
    roles = []
    for index, tile in enumerate(canvas.tiles):
        face_area = cv2.contourArea(tile.quad.astype(np.float32))
        if canvas_visible[index] < MIN_VISIBLE * face_area or box_x2[index] < 0:
            continue  # hidden under other tiles, a hand or a cup
        projected = cv2.perspectiveTransform(tile.quad.reshape(1, 4, 2).astype(np.float32), homography)[0]
        inside, _ = cv2.intersectConvexConvex(projected, frame)
        if inside < MIN_VISIBLE * cv2.contourArea(projected):
            continue  # mostly outside the photo
        x1, y1, x2, y2 = box_x1[index], box_y1[index], box_x2[index], box_y2[index]
        labels.append((CLASS_ID[tile.code], (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h))
        roles.append((tile.role, tile.group))
    layout["seed"] = seed
    return Scene(photo, labels, layout, roles)
