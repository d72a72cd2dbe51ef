"""Tile vocabulary: the codes every layer speaks, their order and their names.

The order of ``TILE_CODES`` is the detector's class order and never changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUITS = ("m", "p", "s")
WINDS = ("1z", "2z", "3z", "4z")
DRAGONS = ("5z", "6z", "7z")
FLOWERS = ("1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f")
BACK = "back"

SUITED = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
HONOURS = WINDS + DRAGONS
PLAYING_TILES = SUITED + HONOURS  # the 34 kinds that form sets
TILE_CODES: tuple[str, ...] = PLAYING_TILES + FLOWERS + (BACK,)  # 43 detector classes

TILE_INDEX = {code: i for i, code in enumerate(PLAYING_TILES)}

WIND_LETTERS = ("E", "S", "W", "N")
WIND_TILE = dict(zip(WIND_LETTERS, WINDS, strict=True))
# Own-seat flowers: 東 = 春梅, 南 = 夏蘭, 西 = 秋菊, 北 = 冬竹.
SEAT_FLOWERS = {"E": ("1f", "5f"), "S": ("2f", "6f"), "W": ("3f", "7f"), "N": ("4f", "8f")}

_NUMERALS = "一二三四五六七八九"
_SUIT_NAMES = {"m": "萬", "p": "筒", "s": "條"}
_HONOUR_NAMES = dict(zip(HONOURS, "東南西北白發中", strict=True))
_FLOWER_NAMES = dict(zip(FLOWERS, "春夏秋冬梅蘭菊竹", strict=True))


class TileError(ValueError):
    """A tile code or notation that does not name a tile."""


def chinese_name(code: str) -> str:
    """The name a player says: ``3m`` → 三萬, ``7z`` → 中, ``6f`` → 蘭."""
    if code in _HONOUR_NAMES:
        return _HONOUR_NAMES[code]
    if code in _FLOWER_NAMES:
        return _FLOWER_NAMES[code]
    if code == BACK:
        return "牌背"
    if code in TILE_INDEX:
        return _NUMERALS[int(code[0]) - 1] + _SUIT_NAMES[code[1]]
    raise TileError(f"unknown tile code {code!r}")


def is_flower(code: str) -> bool:
    return code in _FLOWER_NAMES


_GROUP = re.compile(r"([0-9]+)([mpszf])")


def parse_tiles(text: str) -> list[str]:
    """Parse compact notation such as ``123m 456p 11z 5f`` into tile codes.

    Single codes (``back``) and Chinese names (``三萬``, ``中``) are accepted too.
    """
    codes: list[str] = []
    for word in text.split():
        if word == BACK:
            codes.append(BACK)
            continue
        if word in _BY_NAME:
            codes.append(_BY_NAME[word])
            continue
        pos = 0
        for match in _GROUP.finditer(word):
            if match.start() != pos:
                break
            digits, suit = match.groups()
            for digit in digits:
                code = f"{digit}{suit}"
                if code not in _ALL_CODES:
                    raise TileError(f"{code!r} is not a tile (in {word!r})")
                codes.append(code)
            pos = match.end()
        if pos != len(word):
            raise TileError(f"cannot read {word!r} as tiles; write e.g. '123m 11z 5f'")
    return codes


def format_tiles(codes: Iterable[str]) -> str:
    """The compact notation of ``codes`` in their given order, suits merged when adjacent."""
    parts: list[str] = []
    digits = ""
    suit = ""
    for code in codes:
        if code == BACK:
            if digits:
                parts.append(digits + suit)
                digits = ""
            parts.append(BACK)
            continue
        if code[1] != suit and digits:
            parts.append(digits + suit)
            digits = ""
        digits += code[0]
        suit = code[1]
    if digits:
        parts.append(digits + suit)
    return " ".join(parts)


_ALL_CODES = frozenset(TILE_CODES)
_BY_NAME = {chinese_name(code): code for code in TILE_CODES}
