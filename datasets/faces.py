"""Procedural tile faces: every one of the 43 classes drawn in our own code.

A face is drawn upright on a canvas of ``FACE_W × FACE_H`` pixels; scenes warp it into place.
Two families of sets exist at real tables: Taiwan sets (larger, no corner numerals) and
Hong Kong sets (corner numerals or letters). ``FaceStyle`` captures one physical set.
"""

from __future__ import annotations

import functools
import os
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.errors import ErrorCode, TaicamError
from scoring.tiles import BACK, TILE_CODES

FACE_W, FACE_H = 120, 160

# The fonts a tile set is drawn with: one per set, picked by the scene's seed. The list is fixed, not
# "whatever is installed", so that one seed renders one scene on every machine: the end-to-end figures
# of ``python -m bench accuracy`` and the floors in the tests were measured with all five. The Makefile
# installs their Debian packages; a missing one is an error (FontsMissingError), never a quiet change
# of scenes. Each entry: (font file, the Debian package that installs it).
RENDER_FONTS: tuple[tuple[str, str], ...] = (
    ("/usr/share/fonts/truetype/arphic/ukai.ttc", "fonts-arphic-ukai"),
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", "fonts-noto-cjk"),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "fonts-noto-cjk"),
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", "fonts-noto-cjk"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
)

NUMERALS = "一二三四五六七八九"
HONOUR_GLYPHS = {"1z": "東", "2z": "南", "3z": "西", "4z": "北", "6z": "發", "7z": "中"}
FLOWER_GLYPHS = "春夏秋冬梅蘭菊竹"
HK_CORNER = {"1z": "E", "2z": "S", "3z": "W", "4z": "N"}

RED = (200, 30, 30)
GREEN = (20, 120, 60)
BLUE = (25, 50, 140)
BLACK = (25, 25, 30)


class FontsMissingError(TaicamError, RuntimeError):
    """A font of ``RENDER_FONTS`` is not installed, so scenes would not be the ones measured.

    A ``RuntimeError`` as well, as it was before taicam's errors had one base.
    """

    def __init__(self, message: str):
        super().__init__(ErrorCode.NO_FONT, message)


def render_fonts() -> tuple[str, ...]:
    """The font files tile sets are drawn with: all of ``RENDER_FONTS``, each required.

    ``TAICAM_FONTS`` may name a folder of .ttf/.ttc/.otf files to draw with instead (training on a
    machine without the Debian fonts); scenes then differ from the measured ones.
    """
    folder = os.environ.get("TAICAM_FONTS")
    if folder:
        fonts = tuple(sorted(str(p) for p in Path(folder).iterdir() if p.suffix.lower() in (".ttf", ".ttc", ".otf")))
        if not fonts:
            raise FontsMissingError(f"TAICAM_FONTS={folder} holds no .ttf, .ttc or .otf file")
        return fonts
    missing = [(path, package) for path, package in RENDER_FONTS if not Path(path).exists()]
    if missing:
        packages = " ".join(dict.fromkeys(package for _, package in missing))
        raise FontsMissingError(
            f"the tile renderer draws with {len(RENDER_FONTS)} fixed CJK fonts; missing: "
            f"{', '.join(path for path, _ in missing)}. Install them with 'apt-get install {packages}'"
            " (make test does), or set TAICAM_FONTS to a folder of fonts to draw with instead"
        )
    return tuple(path for path, _ in RENDER_FONTS)


@functools.lru_cache(maxsize=64)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@dataclass(frozen=True)
class FaceStyle:
    """One physical tile set: colours, font and whether corners carry numerals."""

    face_rgb: tuple[int, int, int]
    back_rgb: tuple[int, int, int]
    font: str
    hk_corners: bool
    ink_jitter: int
    thickness: float  # side depth as a fraction of face height
    blank_white_dragon: bool
    # Flowers as real sets draw them: each plant its own drawing (``_PLANTS``), numeral and character
    # small in the corners on Hong Kong sets. Off by default: the shipped models were trained on the
    # single blossom, and with these faces they read far fewer renders (models/README.md).
    plant_flowers: bool = False
    # How the set draws its circles, sticks and 1s bird; None is the one drawing the shipped models first
    # learned. Real sets vary it (a wheel of spokes, petals, chains of links), and a reader that saw
    # one drawing took another set's 2p for 西 (models/README.md): ``SuitArt.random`` varies it.
    suit_art: SuitArt | None = None

    @classmethod
    def random(cls, rng: random.Random) -> FaceStyle:
        ivory = rng.choice([(245, 242, 232), (250, 250, 245), (238, 232, 210), (230, 236, 228)])
        back = rng.choice([(30, 120, 70), (40, 90, 170), (230, 180, 40), (220, 110, 40), (170, 40, 50), (60, 150, 150)])
        return cls(
            face_rgb=tuple(max(0, min(255, c + rng.randint(-12, 8))) for c in ivory),  # type: ignore[arg-type]
            back_rgb=back,
            font=rng.choice(render_fonts()),
            hk_corners=rng.random() < 0.5,
            ink_jitter=rng.randint(0, 30),
            thickness=rng.uniform(0.35, 0.7),
            blank_white_dragon=rng.random() < 0.2,
        )


PIP_KINDS = ("ring", "wheel", "rosette", "target", "sunburst")
STICK_KINDS = ("rod", "chain", "bone", "bent")
BIRD_KINDS = ("sparrow", "peacock", "crane")  # the 1s: sets draw many a bird
SUIT_INKS = {  # (circles' colours in turn, sticks' colour, the sticks' marked colour)
    "tricolour": ((BLUE, GREEN, RED), GREEN, RED),
    "dark": ((BLACK, (30, 70, 50), BLACK), (30, 70, 50), RED),
    "blue": ((BLUE, BLUE, RED), BLUE, RED),
    "green": ((GREEN, (40, 40, 40), RED), (40, 110, 40), BLUE),
}
# Sets space and size their pips a little differently: each pip's place moves by up to this share
# of the face, and pips are scaled within SUIT_ART_SIZES; the 9 circles of a 9p still never touch.
LAYOUT_JITTER = 0.01
SUIT_ART_SIZES = (0.8, 0.95)


@dataclass(frozen=True)
class SuitArt:
    """One set's drawing of the 筒 circles, the 條 sticks and the 1s bird: the count and arrangement
    of the pips name the tile, whatever each pip looks like, so training faces vary the look."""

    pip: str  # PIP_KINDS
    spokes: int  # of a wheel, a rosette or a sunburst
    stick: str  # STICK_KINDS
    inks: str  # SUIT_INKS
    size: float  # pips' size against the default drawing's
    shift: tuple[tuple[float, float], ...]  # each pip's offset from its place (unit coordinates)
    bird: str = "sparrow"  # BIRD_KINDS
    facing: int = -1  # the bird looks left (-1) or right (+1)

    @classmethod
    def random(cls, rng: random.Random) -> SuitArt:
        return cls(
            pip=rng.choice(PIP_KINDS),
            spokes=rng.choice([4, 5, 6, 8, 12]),
            stick=rng.choice(STICK_KINDS),
            inks=rng.choice(sorted(SUIT_INKS)),
            size=rng.uniform(*SUIT_ART_SIZES),
            shift=tuple(
                (rng.uniform(-LAYOUT_JITTER, LAYOUT_JITTER), rng.uniform(-LAYOUT_JITTER, LAYOUT_JITTER)) for _ in range(9)
            ),
            bird=rng.choice(BIRD_KINDS),
            facing=rng.choice([-1, 1]),
        )


# The drawing of a set without its own art: the one the shipped models first learned.
DEFAULT_SUIT_ART = SuitArt("ring", 8, "rod", "tricolour", 1.0, ((0.0, 0.0),) * 9, "sparrow", -1)


def _ink(rgb: tuple[int, int, int], style: FaceStyle, rng: random.Random) -> tuple[int, int, int]:
    j = style.ink_jitter
    return tuple(max(0, min(255, c + rng.randint(-j, j))) for c in rgb)  # type: ignore[return-value]


def _text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], glyph: str, size: int, fill, font: str) -> None:
    draw.text(xy, glyph, font=_font(font, size), fill=fill, anchor="mm")


def _corner(draw: ImageDraw.ImageDraw, label: str, style: FaceStyle) -> None:
    draw.text((10, 4), label, font=_font(style.font, 24), fill=BLUE)


# Standard pip layouts for 筒 (circles), in a 3×3-ish grid of unit coordinates.
PIN_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.27), (0.5, 0.73)],
    3: [(0.25, 0.22), (0.5, 0.5), (0.75, 0.78)],
    4: [(0.3, 0.28), (0.7, 0.28), (0.3, 0.72), (0.7, 0.72)],
    5: [(0.28, 0.25), (0.72, 0.25), (0.5, 0.5), (0.28, 0.75), (0.72, 0.75)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.52), (0.7, 0.52), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.22, 0.15), (0.5, 0.24), (0.78, 0.33), (0.3, 0.6), (0.7, 0.6), (0.3, 0.85), (0.7, 0.85)],
    8: [(0.3, y) for y in (0.14, 0.38, 0.62, 0.86)] + [(0.7, y) for y in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
}

# 條 sticks: (x, y) centres of vertical sticks in unit coordinates.
SOU_LAYOUT = {
    2: [(0.5, 0.28), (0.5, 0.72)],
    3: [(0.5, 0.28), (0.3, 0.72), (0.7, 0.72)],
    4: [(0.3, 0.28), (0.7, 0.28), (0.3, 0.72), (0.7, 0.72)],
    5: [(0.25, 0.28), (0.75, 0.28), (0.5, 0.5), (0.25, 0.72), (0.75, 0.72)],
    6: [(x, y) for y in (0.28, 0.72) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.18)] + [(x, y) for y in (0.5, 0.82) for x in (0.2, 0.5, 0.8)],
    8: [(x, y) for y in (0.28, 0.72) for x in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
}


PIP_RADIUS = {1: 38, 2: 20, 3: 15, 4: 17, 5: 14, 6: 14, 7: 11, 8: 11, 9: 12}


def _draw_pin(draw: ImageDraw.ImageDraw, n: int, style: FaceStyle, rng: random.Random) -> None:
    x0, y0, w, h = 14, 16, FACE_W - 28, FACE_H - 32
    art = style.suit_art or DEFAULT_SUIT_ART
    radius = PIP_RADIUS[n] * art.size
    circles = [_ink(rgb, style, rng) for rgb in SUIT_INKS[art.inks][0]]
    for i, (ux, uy) in enumerate(PIN_LAYOUT[n]):
        dx, dy = art.shift[i]
        cx, cy = x0 + (ux + dx) * w, y0 + (uy + dy) * h
        _pip(draw, (cx, cy), radius, art, circles[(i + n) % 3], circles[(i + n + 1) % 3], style.face_rgb)
        if n == 1 and art.pip == "ring":  # the big circle of 1p holds a ring of dots
            for k in range(8):
                angle = k * np.pi / 4
                px, py = cx + np.cos(angle) * radius * 0.78, cy + np.sin(angle) * radius * 0.78
                draw.ellipse([px - 4, py - 4, px + 4, py + 4], fill=circles[2])


def _pip(draw: ImageDraw.ImageDraw, centre: Point, radius: float, art: SuitArt, ink, second, face) -> None:
    """One circle of a 筒 tile, drawn the set's way."""
    cx, cy = centre

    def disc(r: float, **kwargs) -> None:
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], **kwargs)

    line = max(2, int(radius // 4))
    rays = [(np.cos(2 * np.pi * k / art.spokes), np.sin(2 * np.pi * k / art.spokes)) for k in range(art.spokes)]
    if art.pip == "ring":
        disc(radius, outline=ink, width=line)
        disc(radius * 0.5, fill=second)
    elif art.pip == "wheel":  # a rim, spokes and a hub
        disc(radius, outline=ink, width=line)
        for ux, uy in rays:
            draw.line([(cx, cy), (cx + ux * radius * 0.9, cy + uy * radius * 0.9)], fill=ink, width=max(2, line))
        disc(radius * 0.25, fill=second)
    elif art.pip == "rosette":  # petals round a heart, no rim
        for ux, uy in rays:
            px, py = cx + ux * radius * 0.6, cy + uy * radius * 0.6
            petal = radius * min(0.4, 2.2 / art.spokes + 0.1)  # within the pip: 0.6 + 0.4
            draw.ellipse([px - petal, py - petal, px + petal, py + petal], fill=ink)
        disc(radius * 0.3, fill=second)
    elif art.pip == "target":  # rings in rings
        disc(radius, outline=ink, width=line)
        disc(radius * 0.62, outline=second, width=max(1, line - 1))
        disc(radius * 0.25, fill=ink)
    else:  # sunburst: a full disc with light rays cut into it
        disc(radius, fill=ink)
        for ux, uy in rays:
            draw.line([(cx + ux * radius * 0.35, cy + uy * radius * 0.35), (cx + ux * radius * 0.85, cy + uy * radius * 0.85)],
                      fill=face, width=max(1, line // 2))  # fmt: skip
        disc(radius * 0.2, fill=second)


def _draw_bird(draw: ImageDraw.ImageDraw, style: FaceStyle, rng: random.Random) -> None:
    green, red = _ink(GREEN, style, rng), _ink(RED, style, rng)
    art = style.suit_art or DEFAULT_SUIT_ART
    cx, cy, f = FACE_W / 2, FACE_H / 2 + 6, -art.facing  # f: +1 when the bird looks left, as drawn below

    def x(dx: float) -> float:
        return cx + f * dx

    if art.bird == "peacock":  # a fan of eyed feathers behind a small body
        blue = _ink(BLUE, style, rng)
        for k in range(9):
            angle = np.pi * (0.15 + 0.7 * k / 8)
            ex, ey = x(12 + np.cos(angle) * 34), cy + 8 - np.sin(angle) * 42
            draw.line([(x(10), cy + 12), (ex, ey)], fill=green, width=2)
            draw.ellipse([ex - 7, ey - 7, ex + 7, ey + 7], fill=green)
            draw.ellipse([ex - 3, ey - 3, ex + 3, ey + 3], fill=blue)
        draw.ellipse([x(-14) - 14, cy - 4, x(-14) + 14, cy + 28], fill=blue)  # body
        draw.ellipse([x(-22) - 8, cy - 26, x(-22) + 8, cy - 10], fill=blue)  # head
        draw.polygon([(x(-30), cy - 20), (x(-40), cy - 16), (x(-30), cy - 14)], fill=red)  # beak
        draw.line([(x(-12), cy + 28), (x(-12), cy + 46)], fill=red, width=3)
        return
    if art.bird == "crane":  # a long neck bent over a round body, legs like stilts
        draw.ellipse([x(-6) - 24, cy - 6, x(-6) + 24, cy + 22], fill=green)  # body
        draw.line([(x(-20), cy), (x(-26), cy - 24), (x(-14), cy - 44)], fill=green, width=5, joint="curve")  # neck
        draw.ellipse([x(-14) - 7, cy - 51, x(-14) + 7, cy - 37], fill=red)  # crown
        draw.line([(x(-20), cy - 44), (x(-36), cy - 40)], fill=BLACK, width=3)  # bill
        draw.polygon([(x(14), cy), (x(40), cy - 14), (x(34), cy + 10)], fill=_ink(BLUE, style, rng))  # tail
        for leg in (-10, 4):
            draw.line([(x(leg), cy + 20), (x(leg), cy + 50)], fill=BLACK, width=2)
        return
    draw.ellipse(_sorted_box(x(-26), cy - 18, x(22), cy + 26), fill=green)  # body
    draw.polygon([(x(14), cy + 10), (x(46), cy + 44), (x(30), cy + 8)], fill=_ink(BLUE, style, rng))  # tail
    draw.ellipse(_sorted_box(x(-30), cy - 48, x(-6), cy - 24), fill=green)  # head
    draw.polygon([(x(-30), cy - 38), (x(-44), cy - 32), (x(-30), cy - 30)], fill=red)  # beak
    draw.ellipse(_sorted_box(x(-22), cy - 42, x(-16), cy - 36), fill=BLACK)  # eye
    draw.line([(x(-8), cy + 26), (x(-12), cy + 46)], fill=red, width=3)
    draw.line([(x(6), cy + 26), (x(8), cy + 46)], fill=red, width=3)


def _sorted_box(x1: float, y1: float, x2: float, y2: float) -> list[float]:
    """An ellipse's box with its corners in order, whichever way the drawing was mirrored."""
    return [min(x1, x2), y1, max(x1, x2), y2]


def _draw_sou(draw: ImageDraw.ImageDraw, n: int, style: FaceStyle, rng: random.Random) -> None:
    if n == 1:
        _draw_bird(draw, style, rng)
        return
    x0, y0, w, h = 12, 14, FACE_W - 24, FACE_H - 28
    art = style.suit_art or DEFAULT_SUIT_ART
    stick_h = h * (0.36 if n < 7 else 0.27)
    stick_w = (9 if n < 8 else 7) * art.size
    _, plain, marked = SUIT_INKS[art.inks]
    plain, marked = _ink(plain, style, rng), _ink(marked, style, rng)
    for i, (ux, uy) in enumerate(SOU_LAYOUT[n]):
        dx, dy = art.shift[i]
        colour = marked if (n in (5, 7, 9) and i in (0, len(SOU_LAYOUT[n]) // 2)) else plain
        _stick(draw, (x0 + (ux + dx) * w, y0 + (uy + dy) * h), stick_w, stick_h, art.stick, colour, style.face_rgb)


def _stick(draw: ImageDraw.ImageDraw, centre: Point, width: float, height: float, kind: str, ink, face) -> None:
    """One stick of a 條 tile, drawn the set's way."""
    cx, cy = centre
    top, bottom = cy - height / 2, cy + height / 2
    if kind == "rod":
        draw.rounded_rectangle([cx - width / 2, top, cx + width / 2, bottom], radius=3, fill=ink)
        for frac in (0.25, 0.5, 0.75):  # bamboo joints
            y = top + frac * height
            draw.line([(cx - width / 2, y), (cx + width / 2, y)], fill=face, width=1)
    elif kind == "chain":  # links stacked end to end
        links = 4
        step = height / links
        for k in range(links):
            y = top + (k + 0.5) * step
            draw.ellipse(
                [cx - width / 2, y - step / 2, cx + width / 2, y + step / 2], outline=ink, width=max(2, round(width / 3))
            )
    elif kind == "bone":  # a thin stalk swelling at its joints
        draw.line([(cx, top), (cx, bottom)], fill=ink, width=max(2, round(width / 2)))
        knot = width / 3
        for y in (top + knot, cy, bottom - knot):
            draw.ellipse([cx - width / 2, y - knot, cx + width / 2, y + knot], fill=ink)
    else:  # bent: a stalk in two strokes with a kink, as brush-drawn sets have it
        bend, stroke = width * 0.5, max(3, round(width * 0.7))
        top, bottom = top + stroke / 2, bottom - stroke / 2  # a wide stroke reaches past its ends
        draw.line([(cx - bend / 2, top), (cx + bend / 2, cy), (cx - bend / 2, bottom)], fill=ink, width=stroke, joint="curve")


def _draw_flower(draw: ImageDraw.ImageDraw, index: int, style: FaceStyle, rng: random.Random) -> None:
    if style.plant_flowers:
        _draw_plant_flower(draw, index, style, rng)
        return
    season = index < 4
    colour = _ink(RED if season else GREEN, style, rng)
    petal = _ink(rng.choice([RED, (220, 120, 40), (150, 60, 160), BLUE]), style, rng)
    cx, cy = FACE_W / 2 + 8, FACE_H / 2 + 18
    for k in range(5):  # a stylised blossom under the glyph
        angle = k * 2 * np.pi / 5 + rng.uniform(0, 0.5)
        px, py = cx + np.cos(angle) * 16, cy + np.sin(angle) * 16
        draw.ellipse([px - 11, py - 11, px + 11, py + 11], fill=petal)
    draw.ellipse([cx - 7, cy - 7, cx + 7, cy + 7], fill=(240, 200, 40))
    draw.line([(cx - 20, cy + 20), (cx - 40, cy + 60)], fill=_ink(GREEN, style, rng), width=4)
    _text(draw, (FACE_W / 2 - 4, 46), FLOWER_GLYPHS[index], 44, colour, style.font)
    # Flowers always carry their numeral 1–4, on both Taiwan and HK sets.
    draw.text((FACE_W - 22, 8), str(index % 4 + 1), font=_font(style.font, 26), fill=_ink(BLUE, style, rng))


def _draw_plant_flower(draw: ImageDraw.ImageDraw, index: int, style: FaceStyle, rng: random.Random) -> None:
    """A flower as real sets draw it: its plant large, its character and its numeral 1–4.

    Hong Kong sets write both small in the top corners, seasons in red and plants in blue, and give
    the face to the drawing; Taiwan sets write the character large above a smaller drawing.
    """
    season = index < 4
    glyph_ink = _ink(RED if season else BLUE, style, rng)
    if style.hk_corners:
        _PLANTS[index if index >= 4 else 0](draw, (FACE_W / 2, FACE_H / 2 + 14), 1.0, style, rng)
        draw.text((8, 4), str(index % 4 + 1), font=_font(style.font, 26), fill=glyph_ink)
        _text(draw, (FACE_W - 24, 22), FLOWER_GLYPHS[index], 30, glyph_ink, style.font)
        return
    _PLANTS[index if index >= 4 else 0](draw, (FACE_W / 2 + 6, FACE_H / 2 + 30), 0.7, style, rng)
    _text(draw, (FACE_W / 2 - 4, 46), FLOWER_GLYPHS[index], 44, _ink(RED if season else GREEN, style, rng), style.font)
    # Flowers always carry their numeral 1–4, on both Taiwan and HK sets.
    draw.text((FACE_W - 22, 8), str(index % 4 + 1), font=_font(style.font, 26), fill=_ink(BLUE, style, rng))


Point = tuple[float, float]


def _curve(start: Point, bend: Point, end: Point, steps: int = 12) -> list[Point]:
    """A quadratic Bézier curve through ``bend``'s pull: leaves, stems and vines."""
    t = np.linspace(0, 1, steps)[:, None]
    points = (1 - t) ** 2 * np.array(start) + 2 * (1 - t) * t * np.array(bend) + t**2 * np.array(end)
    return [(float(x), float(y)) for x, y in points]


def _blossom(draw: ImageDraw.ImageDraw, centre: Point, radius: float, petals: int, colour, heart) -> None:
    """Round petals around a heart: plum blossoms and the seasons' flowers."""
    cx, cy = centre
    for k in range(petals):
        angle = k * 2 * np.pi / petals
        px, py = cx + np.cos(angle) * radius * 0.75, cy + np.sin(angle) * radius * 0.75
        draw.ellipse([px - radius * 0.55, py - radius * 0.55, px + radius * 0.55, py + radius * 0.55], outline=colour, width=3)
    draw.ellipse([cx - radius * 0.3, cy - radius * 0.3, cx + radius * 0.3, cy + radius * 0.3], fill=heart)


def _draw_blossoms(draw: ImageDraw.ImageDraw, centre: Point, scale: float, style: FaceStyle, rng: random.Random) -> None:
    """Seasons and 梅: red five-petal blossoms on a curling green stem with leaves."""
    cx, cy = centre
    green, red = _ink(GREEN, style, rng), _ink(RED, style, rng)
    s = 40 * scale
    draw.line(_curve((cx, cy + s * 1.3), (cx - s * 0.9, cy + s * 0.2), (cx, cy - s * 0.9)), fill=green, width=3)
    for side in (-1, 1):
        draw.line(
            _curve((cx, cy + s * 0.6), (cx + side * s * 1.1, cy + s * 0.9), (cx + side * s * 0.9, cy + s * 0.1)),
            fill=green,
            width=3,
        )
    _blossom(draw, (cx, cy + s * 0.1), s * 0.5, 5, red, _ink((230, 150, 40), style, rng))
    _blossom(draw, (cx + rng.uniform(-0.2, 0.2) * s, cy - s * 0.9), s * 0.3, 5, red, red)


def _draw_orchid(draw: ImageDraw.ImageDraw, centre: Point, scale: float, style: FaceStyle, rng: random.Random) -> None:
    """蘭: long thin leaves fanning out from the foot, and a small bud."""
    cx, cy = centre
    green = _ink(GREEN, style, rng)
    s = 44 * scale
    foot = (cx, cy + s * 1.1)
    for lean in (-1.0, -0.5, 0.1, 0.6, 1.0):
        tip = (cx + lean * s * 1.0, cy - s * (1.1 - abs(lean) * 0.4))
        draw.line(_curve(foot, (cx + lean * s * 0.2, cy), tip), fill=green, width=3)
    bud = (cx + s * 0.35, cy - s * 0.5)
    draw.ellipse([bud[0] - 6, bud[1] - 9, bud[0] + 6, bud[1] + 9], fill=_ink(rng.choice([RED, BLUE]), style, rng))


def _draw_chrysanthemum(draw: ImageDraw.ImageDraw, centre: Point, scale: float, style: FaceStyle, rng: random.Random) -> None:
    """菊: a round head of many narrow petals above jagged leaves."""
    cx, cy = centre
    green, petal = _ink(GREEN, style, rng), _ink(rng.choice([RED, (220, 120, 40)]), style, rng)
    s = 40 * scale
    head = (cx, cy - s * 0.25)
    draw.line([(cx, cy + s * 1.2), head], fill=green, width=3)
    for side in (-1, 1):
        draw.line(
            _curve((cx, cy + s * 0.7), (cx + side * s * 0.5, cy + s * 0.2), (cx + side * s * 1.0, cy + s * 0.5)),
            fill=green,
            width=4,
        )
    for k in range(16):
        angle = k * 2 * np.pi / 16
        end = (head[0] + np.cos(angle) * s * 0.6, head[1] + np.sin(angle) * s * 0.6)
        draw.line([head, end], fill=petal, width=3)
    draw.ellipse([head[0] - s * 0.15, head[1] - s * 0.15, head[0] + s * 0.15, head[1] + s * 0.15], fill=petal)


def _draw_bamboo(draw: ImageDraw.ImageDraw, centre: Point, scale: float, style: FaceStyle, rng: random.Random) -> None:
    """竹: upright stalks with joints, and fans of lance leaves."""
    cx, cy = centre
    stalk, leaf = _ink(rng.choice([BLUE, GREEN]), style, rng), _ink(GREEN, style, rng)
    s = 44 * scale
    for offset in (-0.4, 0.0, 0.4):
        x = cx + offset * s
        draw.line([(x, cy + s * 1.1), (x, cy - s * 1.0)], fill=stalk, width=4)
        for joint in (-0.5, 0.1, 0.7):
            draw.line([(x - 4, cy + joint * s), (x + 4, cy + joint * s)], fill=style.face_rgb, width=2)
    for base, side in (((cx - 0.4 * s, cy - 0.5 * s), -1), ((cx + 0.4 * s, cy - 0.2 * s), 1)):
        for rise in (-0.4, 0.0, 0.4):
            tip = (base[0] + side * s * 0.6, base[1] + rise * s * 0.6)
            draw.line(_curve(base, ((base[0] + tip[0]) / 2, base[1] - s * 0.2), tip), fill=leaf, width=3)


# The drawing of each flower: the seasons share the blossoms (as most sets draw them), the four
# plants have their own.
_PLANTS = {0: _draw_blossoms, 4: _draw_blossoms, 5: _draw_orchid, 6: _draw_chrysanthemum, 7: _draw_bamboo}


def _draw_honour(draw: ImageDraw.ImageDraw, code: str, style: FaceStyle, rng: random.Random) -> None:
    if code == "5z":
        if not style.blank_white_dragon:
            blue = _ink(BLUE, style, rng)
            draw.rectangle([18, 18, FACE_W - 18, FACE_H - 18], outline=blue, width=6)
            draw.rectangle([30, 30, FACE_W - 30, FACE_H - 30], outline=blue, width=2)
        return
    colour = {"6z": GREEN, "7z": RED}.get(code, rng.choice([BLACK, BLUE]))
    _text(draw, (FACE_W / 2, FACE_H / 2 + 4), HONOUR_GLYPHS[code], 92, _ink(colour, style, rng), style.font)
    if style.hk_corners and code in HK_CORNER:
        _corner(draw, HK_CORNER[code], style)


def _draw_man(draw: ImageDraw.ImageDraw, n: int, style: FaceStyle, rng: random.Random) -> None:
    _text(draw, (FACE_W / 2, 46), NUMERALS[n - 1], 58, _ink(BLUE if rng.random() < 0.6 else BLACK, style, rng), style.font)
    _text(draw, (FACE_W / 2, 112), "萬", 66, _ink(RED, style, rng), style.font)


def _draw_back(image: Image.Image, style: FaceStyle, rng: random.Random) -> None:
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, FACE_W, FACE_H], fill=style.back_rgb)
    if rng.random() < 0.4:  # some backs carry an embossed pattern
        shade = tuple(max(0, c - 25) for c in style.back_rgb)
        draw.ellipse([30, 50, FACE_W - 30, FACE_H - 50], outline=shade, width=3)


def draw_face(code: str, style: FaceStyle, rng: random.Random) -> np.ndarray:
    """An upright ``FACE_H × FACE_W`` BGR image of the tile's face (or its back)."""
    if code not in TILE_CODES:
        raise ValueError(f"unknown tile code {code!r}")
    image = Image.new("RGB", (FACE_W, FACE_H), style.face_rgb)
    if code == BACK:
        _draw_back(image, style, rng)
    else:
        draw = ImageDraw.Draw(image)
        number, kind = code[0], code[1]
        if kind == "m":
            _draw_man(draw, int(number), style, rng)
        elif kind == "p":
            _draw_pin(draw, int(number), style, rng)
        elif kind == "s":
            _draw_sou(draw, int(number), style, rng)
        elif kind == "z":
            _draw_honour(draw, code, style, rng)
        else:
            _draw_flower(draw, int(number) - 1, style, rng)
        if style.hk_corners and kind in "mps":
            _corner(draw, number, style)
    face = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
    # Rounded, slightly shaded edges: real faces darken toward the rim.
    rim = np.ones((FACE_H, FACE_W), np.float32)
    cv2.rectangle(rim, (0, 0), (FACE_W - 1, FACE_H - 1), 0.8, 3)
    return (face * cv2.GaussianBlur(rim, (7, 7), 0)[..., None]).astype(np.uint8)
