"""Human output of the CLI: tiles by name in the order a player lays them, columns that line up in CJK.

``--codes`` gives the compact codes (``123m 777z``); English output names tiles by code, since
the codes are how an English-speaking player writes them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from scoring.tiles import TILE_CODES, chinese_name, format_tiles

MELD_NAMES = {
    "chow": ("吃", "chow"),
    "pung": ("碰", "pung"),
    "kong": ("明槓", "kong"),
    "concealed_kong": ("暗槓", "concealed kong"),
}
SEPARATOR = " ｜ "


def in_playing_order(codes: Iterable[str]) -> list[str]:
    return sorted(codes, key=TILE_CODES.index)


def tiles_text(codes: Iterable[str], chinese: bool) -> str:
    """``一萬二萬三萬`` by name, or ``123m`` by code; suits grouped and sorted either way."""
    ordered = in_playing_order(codes)
    return "".join(chinese_name(c) for c in ordered) if chinese else format_tiles(ordered)


def hand_line(hand: dict[str, Any], chinese: bool) -> str:
    """The hand as a player lays it: concealed tiles, each meld as a set, flowers, the winning tile."""
    parts = [tiles_text(hand["concealed"], chinese)]
    for meld in hand.get("melds") or []:
        zh, en = MELD_NAMES[meld["kind"]]
        parts.append(f"{zh if chinese else en} {tiles_text(meld['tiles'], chinese)}")
    if hand.get("flowers"):
        flowers = in_playing_order(hand["flowers"])
        parts.append(("花 " if chinese else "flowers ") + " ".join(chinese_name(f) if chinese else f for f in flowers))
    winning = hand.get("winning_tile")
    if winning:
        parts.append(("胡 " if chinese else "won on ") + (chinese_name(winning) if chinese else winning))
    return SEPARATOR.join(parts)


def display_width(text: str) -> int:
    """Columns a terminal gives ``text``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def pad(text: str, width: int) -> str:
    return text + " " * max(width - display_width(text), 0)


def pad_left(text: str, width: int) -> str:
    return " " * max(width - display_width(text), 0) + text


def rules_lines(preset: Any, options: dict[str, Any]) -> list[str]:
    """``taicam rules`` for one preset: patterns with their value, what each excludes by name, and the
    options with their current values and how to set them. ``options`` are the values in force."""
    names = {rule.id: rule.name for rule in preset.patterns}
    name_width = max(display_width(rule.name) for rule in preset.patterns) + 2
    lines = [f"{preset.name} ({preset.unit}) — {preset.description}"]
    for rule in preset.patterns:
        from_option = isinstance(rule.tai, str)  # the value is an option's
        value = options[rule.tai] if from_option else rule.tai
        notes = f"  (option {rule.tai})" if from_option else ""
        notes += f"  [only with option {rule.when_option}]" if rule.when_option else ""
        notes += f"  [not with option {rule.unless_option}]" if rule.unless_option else ""
        if rule.excludes:
            notes += "  不計 " + "、".join(names.get(e.pattern, e.pattern) for e in rule.excludes)
        lines.append(f"  {pad(rule.name, name_width)}{pad_left(str(value), 3)}{notes}")
    if preset.options:
        meanings = dict(preset.option_meanings)
        option_width = max(len(f"{name} = {options[name]}") for name, _ in preset.options) + 2
        lines.append('  options (set with --option NAME=VALUE, the hand JSON\'s "options", or a house preset):')
        for name, default in preset.options:
            shown = f"{name} = {_option_text(options[name])}"
            changed = "" if options[name] == default else f" (default {_option_text(default)})"
            lines.append(f"    {pad(shown, option_width)}{meanings.get(name, '')}{changed}")
    return lines


def _option_text(value: object) -> str:
    """An option value as the preset JSON and ``--option`` spell it: true/false, not True/False."""
    return str(value).lower() if isinstance(value, bool) else str(value)
