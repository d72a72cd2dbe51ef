"""The hand and its situation: parsed from the hand JSON, validated, immutable."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .tiles import FLOWERS, PLAYING_TILES, TILE_INDEX, WIND_LETTERS, chinese_name

MELD_KINDS = ("chow", "pung", "kong", "concealed_kong")
FLOWER_WINS = (None, "eight", "seven_rob_one")
HAND_TILES = 17


class HandError(ValueError):
    """A hand that cannot be scored. ``code`` is stable; ``message`` speaks to a player."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


@dataclass(frozen=True)
class Meld:
    kind: str  # chow, pung, kong (exposed: 明槓 or 加槓), concealed_kong (暗槓)
    tiles: tuple[str, ...]

    @property
    def is_open(self) -> bool:
        return self.kind != "concealed_kong"

    @property
    def is_kong(self) -> bool:
        return self.kind in ("kong", "concealed_kong")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "tiles": list(self.tiles)}


@dataclass(frozen=True)
class Settlement:
    base: float
    per_tai: float
    discarder_seat: str | None = None
    dealer_seat: str | None = None


@dataclass(frozen=True)
class WinContext:
    """What the photo cannot show: how and where the hand was won."""

    self_drawn: bool = False
    seat_wind: str = "E"
    round_wind: str = "E"
    dealer: bool = False
    dealer_streak: int = 0
    last_tile: bool = False
    kong_replacement: bool = False
    flower_replacement: bool = False
    robbing_kong: bool = False
    declared_ready: bool = False
    heavenly: bool = False
    earthly: bool = False
    human: bool = False
    heavenly_ready: bool = False
    earthly_ready: bool = False
    flower_win: str | None = None
    consecutive_kongs: int = 0
    own_discards: int | None = None


@dataclass(frozen=True)
class Hand:
    concealed: tuple[str, ...]  # without the winning tile
    melds: tuple[Meld, ...]
    flowers: tuple[str, ...]
    winning_tile: str
    preset: str = "taiwan"
    context: WinContext = field(default_factory=WinContext)
    options: tuple[tuple[str, Any], ...] = ()
    settlement: Settlement | None = None

    @property
    def is_concealed(self) -> bool:
        """門清: no chow, pung or exposed kong (a concealed kong is fine)."""
        return not any(meld.is_open for meld in self.melds)

    def all_tiles(self) -> list[str]:
        tiles = [*self.concealed, self.winning_tile]
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles


_CONTEXT_BOOLS = (
    "self_drawn", "dealer", "last_tile", "kong_replacement", "flower_replacement", "robbing_kong",
    "declared_ready", "heavenly", "earthly", "human", "heavenly_ready", "earthly_ready",
)  # fmt: skip
_HAND_KEYS = {"preset", "concealed", "melds", "flowers", "winning_tile", "options", "settlement"}
_CONTEXT_KEYS = set(_CONTEXT_BOOLS) | {
    "seat_wind", "round_wind", "dealer_streak", "flower_win", "consecutive_kongs", "own_discards",
}  # fmt: skip


def _tile(value: Any, where: str, allowed: tuple[str, ...] = PLAYING_TILES) -> str:
    if not isinstance(value, str) or value not in allowed:
        kind = "flower (1f–8f)" if allowed is FLOWERS else "tile (1m–9m, 1p–9p, 1s–9s, 1z–7z)"
        raise HandError("bad_tile", f"{where}: {value!r} is not a {kind}", {"tile": value})
    return value


def _int(data: dict, key: str, default: int, low: int = 0) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise HandError("bad_field", f"'{key}' must be a whole number ≥ {low}, got {value!r}")
    return value


def parse_hand(data: Any) -> Hand:
    """Build a ``Hand`` from the hand JSON, or raise ``HandError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise HandError("bad_field", "a hand must be a JSON object")
    unknown = set(data) - _HAND_KEYS - _CONTEXT_KEYS
    if unknown:
        raise HandError("bad_field", f"unknown field(s): {', '.join(sorted(unknown))}")
    for key in ("concealed", "winning_tile"):
        if key not in data:
            raise HandError("bad_field", f"missing field '{key}'")
    if not isinstance(data["concealed"], list):
        raise HandError("bad_field", "'concealed' must be a list of tile codes")
    concealed = tuple(_tile(t, "concealed") for t in data["concealed"])
    if data["winning_tile"] is None:
        raise HandError("no_winning_tile", "the winning tile is unknown: set it apart from the hand or name it")
    winning = _tile(data["winning_tile"], "winning_tile")
    melds = tuple(_parse_meld(m, i) for i, m in enumerate(data.get("melds") or []))
    flowers_raw = data.get("flowers") or []
    if not isinstance(flowers_raw, list):
        raise HandError("bad_field", "'flowers' must be a list of flower codes")
    flowers = tuple(sorted((_tile(f, "flowers", FLOWERS) for f in flowers_raw), key=FLOWERS.index))
    repeated = [f for f, n in Counter(flowers).items() if n > 1]
    if repeated:
        raise HandError(
            "duplicate_flower",
            f"each flower exists once; {chinese_name(repeated[0])} ({repeated[0]}) is listed twice",
            {"tile": repeated[0]},
        )
    context = _parse_context(data)
    preset = data.get("preset", "taiwan")
    if not isinstance(preset, str):
        raise HandError("bad_field", "'preset' must be a preset name")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise HandError("bad_field", "'options' must be an object of option names to values")
    hand = Hand(concealed, melds, flowers, winning, preset, context, tuple(sorted(options.items())), _parse_settlement(data))
    _check_counts(hand)
    return hand


def _parse_meld(raw: Any, index: int) -> Meld:
    where = f"meld {index + 1}"
    if not isinstance(raw, dict) or set(raw) != {"kind", "tiles"}:
        raise HandError("bad_meld", f'{where}: write it as {{"kind": ..., "tiles": [...]}}')
    kind, tiles = raw["kind"], raw["tiles"]
    if kind not in MELD_KINDS:
        raise HandError("bad_meld", f"{where}: kind must be one of {', '.join(MELD_KINDS)}, got {kind!r}")
    if not isinstance(tiles, list):
        raise HandError("bad_meld", f"{where}: 'tiles' must be a list")
    codes = tuple(_tile(t, where) for t in tiles)
    expected = 4 if kind in ("kong", "concealed_kong") else 3
    if len(codes) != expected:
        raise HandError("bad_meld", f"{where}: a {kind} has {expected} tiles, got {len(codes)}")
    if kind == "chow":
        ordered = sorted(codes, key=lambda t: TILE_INDEX[t])
        suit = ordered[0][1]
        numbers = [int(t[0]) for t in ordered]
        if suit == "z" or any(t[1] != suit for t in ordered) or numbers != list(range(numbers[0], numbers[0] + 3)):
            raise HandError("bad_meld", f"{where}: a chow is three consecutive tiles of one suit, got {' '.join(codes)}")
        codes = tuple(ordered)
    elif len(set(codes)) != 1:
        raise HandError("bad_meld", f"{where}: a {kind} is {expected} identical tiles, got {' '.join(codes)}")
    return Meld(kind, codes)


def _parse_context(data: dict) -> WinContext:
    values: dict[str, Any] = {}
    for key in _CONTEXT_BOOLS:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise HandError("bad_field", f"'{key}' must be true or false, got {value!r}")
        values[key] = value
    for key in ("seat_wind", "round_wind"):
        value = data.get(key, "E")
        if value not in WIND_LETTERS:
            raise HandError("bad_field", f"'{key}' must be one of E, S, W, N, got {value!r}")
        values[key] = value
    values["dealer_streak"] = _int(data, "dealer_streak", 0)
    values["consecutive_kongs"] = _int(data, "consecutive_kongs", 0)
    own = data.get("own_discards")
    values["own_discards"] = None if own is None else _int(data, "own_discards", 0)
    if data.get("flower_win") not in FLOWER_WINS:
        raise HandError("bad_field", f'\'flower_win\' must be null, "eight" or "seven_rob_one", got {data.get("flower_win")!r}')
    values["flower_win"] = data.get("flower_win")
    context = WinContext(**values)
    if context.robbing_kong and context.self_drawn:
        raise HandError("bad_context", "robbing a kong wins on another player's tile, so self_drawn must be false")
    if context.heavenly and not context.dealer:
        raise HandError("bad_context", "天胡 (heavenly) is the dealer's win; set dealer to true")
    if (context.earthly or context.human) and context.dealer:
        raise HandError("bad_context", "地胡/人胡 are non-dealer wins; set dealer to false")
    return context


def _parse_settlement(data: dict) -> Settlement | None:
    raw = data.get("settlement")
    if raw is None:
        return None
    allowed = {"base", "per_tai", "discarder_seat", "dealer_seat"}
    if not isinstance(raw, dict) or not set(raw) <= allowed or not {"base", "per_tai"} <= set(raw):
        raise HandError("bad_field", "'settlement' needs 'base' and 'per_tai', and may add 'discarder_seat', 'dealer_seat'")
    for key in ("base", "per_tai"):
        if not isinstance(raw[key], int | float) or isinstance(raw[key], bool) or raw[key] < 0:
            raise HandError("bad_field", f"settlement '{key}' must be a number ≥ 0")
    for key in ("discarder_seat", "dealer_seat"):
        if raw.get(key) is not None and raw[key] not in WIND_LETTERS:
            raise HandError("bad_field", f"settlement '{key}' must be one of E, S, W, N")
    return Settlement(raw["base"], raw["per_tai"], raw.get("discarder_seat"), raw.get("dealer_seat"))


def _check_counts(hand: Hand) -> None:
    size = len(hand.concealed) + 1 + 3 * len(hand.melds)
    if size != HAND_TILES:
        kongs = sum(m.is_kong for m in hand.melds)
        detail = f"{len(hand.concealed)} concealed + 1 winning + {len(hand.melds)} meld(s) × 3"
        if kongs:
            detail += " (a kong counts as 3)"
        raise HandError(
            "tile_count",
            f"a winning hand has 17 tiles counting each meld as 3; this one has {size} ({detail})",
            {"count": size},
        )
    for tile, n in Counter(hand.all_tiles()).items():
        if n > 4:
            raise HandError(
                "too_many_copies",
                f"{chinese_name(tile)} ({tile}) appears {n} times; a set has only 4",
                {"tile": tile, "count": n},
            )
