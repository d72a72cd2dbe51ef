"""The hand and its situation: parsed from the hand JSON, validated, immutable."""

from __future__ import annotations

import typing
from collections import Counter
from dataclasses import dataclass, field, fields
from functools import lru_cache
from operator import eq
from typing import Any

from .errors import ErrorCode, TaicamError
from .tiles import FLOWERS, PLAYING_TILES, TILE_INDEX, WIND_LETTERS, chinese_name

MELD_KINDS = ("chow", "pung", "kong", "concealed_kong")
HAND_TILES = 17


class HandError(TaicamError):
    """A hand that cannot be scored. ``code`` is stable; ``message`` speaks to a player."""


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


def _situation(default: Any, help: str, choices: tuple[str, ...] = (), flag: str = "") -> Any:
    """A ``WinContext`` field with what every edge needs: ``help`` names the pattern in Chinese,
    ``choices`` limit a text value, ``flag`` is a short command-line alias."""
    return field(default=default, metadata={"help": help, "choices": choices, "flag": flag})


@dataclass(frozen=True)
class WinContext:
    """What the photo cannot show: how and where the hand was won.

    The one list of situational facts. The hand JSON, the HTTP form and WebSocket query, and
    the command-line flags are all generated from these fields: a new situational win is one
    field here plus its pattern check.
    """

    self_drawn: bool = _situation(False, "won by self-draw (自摸)")
    seat_wind: str = _situation("E", "seat wind (門風), default E", WIND_LETTERS, "--seat")
    round_wind: str = _situation("E", "round wind (圈風), default E", WIND_LETTERS, "--round")
    dealer: bool = _situation(False, "the winner is the dealer (莊家)")
    dealer_streak: int = _situation(0, "dealer streak N (連N拉N)", flag="--streak")
    last_tile: bool = _situation(False, "won on the last tile (海底撈月/海底撈魚)")
    kong_replacement: bool = _situation(False, "self-drawn on a kong replacement (槓上開花)")
    flower_replacement: bool = _situation(False, "self-drawn on a flower replacement (花上開花, scored as 槓上開花)")
    robbing_kong: bool = _situation(False, "won by robbing a kong (搶槓)")
    declared_ready: bool = _situation(False, "had declared ready (報聽/宣布聽牌)")
    heavenly: bool = _situation(False, "天胡: the dealer's dealt hand is complete")
    earthly: bool = _situation(False, "地胡: a non-dealer self-draws on the first draw")
    human: bool = _situation(False, "人胡: a non-dealer wins on a discard in the first go-round")
    heavenly_ready: bool = _situation(False, "天聽: the dealer is ready from the first discard")
    earthly_ready: bool = _situation(False, "地聽: ready within the first go-round")
    flower_win: str | None = _situation(None, "八仙過海 (eight) or 七搶一 (seven_rob_one)", ("eight", "seven_rob_one"))
    consecutive_kongs: int = _situation(0, "kongs declared in a row before a self-drawn win (槓上槓)")
    own_discards: int | None = _situation(None, "own discards before the win (三子內/七子內/十子內)")


CONTEXT_TYPES: dict[str, Any] = typing.get_type_hints(WinContext)
CONTEXT_FIELDS = tuple(fields(WinContext))


@dataclass(frozen=True, init=False)
class Hand:
    concealed: tuple[str, ...]  # without the winning tile
    melds: tuple[Meld, ...]
    flowers: tuple[str, ...]
    winning_tile: str
    preset: str = "taiwan"
    context: WinContext = field(default_factory=WinContext)
    options: tuple[tuple[str, Any], ...] = ()
    settlement: Settlement | None = None

    def __init__(
        self,
        concealed: tuple[str, ...],
        melds: tuple[Meld, ...],
        flowers: tuple[str, ...],
        winning_tile: str,
        preset: str = "taiwan",
        context: WinContext | None = None,
        options: tuple[tuple[str, Any], ...] = (),
        settlement: Settlement | None = None,
    ) -> None:
        # The fields in one update: a frozen dataclass's own __init__ sets each through
        # object.__setattr__, which took a microsecond of every hand's parsing.
        self.__dict__.update(
            concealed=concealed, melds=melds, flowers=flowers, winning_tile=winning_tile, preset=preset,
            context=WinContext() if context is None else context, options=options, settlement=settlement,
        )  # fmt: skip

    @property
    def is_concealed(self) -> bool:
        """門清: no chow, pung or exposed kong (a concealed kong is fine)."""
        return not any(meld.is_open for meld in self.melds)

    def all_tiles(self) -> list[str]:
        tiles = [*self.concealed, self.winning_tile]
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles


_HAND_KEYS = {"preset", "concealed", "melds", "flowers", "winning_tile", "options", "settlement"}
CONTEXT_KEYS = tuple(f.name for f in CONTEXT_FIELDS)
_KNOWN_KEYS = frozenset(_HAND_KEYS | set(CONTEXT_KEYS))
# What every edge (form, query, flags) passes on to the hand JSON besides the tiles.
SITUATION_KEYS = (*CONTEXT_KEYS, "options", "settlement")


_AS_SET = {PLAYING_TILES: frozenset(PLAYING_TILES), FLOWERS: frozenset(FLOWERS)}  # a set answers `in` at once
_FLOWER_ORDER = {code: i for i, code in enumerate(FLOWERS)}


def _tile(value: Any, where: str, allowed: tuple[str, ...] = PLAYING_TILES) -> str:
    if not isinstance(value, str) or value not in _AS_SET[allowed]:
        kind = "flower (1f–8f)" if allowed is FLOWERS else "tile (1m–9m, 1p–9p, 1s–9s, 1z–7z)"
        raise HandError(ErrorCode.BAD_TILE, f"{where}: {value!r} is not a {kind}", {"tile": value})
    return value


def _tiles(values: list, where: str) -> tuple[str, ...]:
    """The tile codes in ``values``, or a ``HandError`` naming the first that is not one."""
    # Not contextlib.suppress: its three calls cost more than the check on every hand.
    try:
        if _AS_SET[PLAYING_TILES].issuperset(values):  # the usual case, checked in one pass
            return tuple(values)
    except TypeError:  # an unhashable value: the slow path names it
        pass
    return tuple(_tile(v, where) for v in values)


def _flower_codes(values: tuple) -> tuple[str, ...]:
    """The flower codes in ``values``, or a ``HandError`` naming the first that is not one."""
    try:  # (not contextlib.suppress, as in _tiles)
        if _AS_SET[FLOWERS].issuperset(values):
            return values
    except TypeError:  # an unhashable value: the slow path names it
        pass
    return tuple([_tile(v, "flowers", FLOWERS) for v in values])


def _int(data: dict, key: str, default: int, low: int = 0) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise HandError(ErrorCode.BAD_FIELD, f"'{key}' must be a whole number ≥ {low}, got {value!r}")
    return value


def parse_hand(data: Any) -> Hand:
    """Build a ``Hand`` from the hand JSON, or raise ``HandError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise HandError(ErrorCode.BAD_FIELD, "a hand must be a JSON object")
    if not _KNOWN_KEYS.issuperset(data):
        unknown = data.keys() - _KNOWN_KEYS
        raise HandError(ErrorCode.BAD_FIELD, f"unknown field(s): {', '.join(sorted(unknown))}")
    for key in ("concealed", "winning_tile"):
        if key not in data:
            raise HandError(ErrorCode.BAD_FIELD, f"missing field '{key}'")
    if not isinstance(data["concealed"], list):
        raise HandError(ErrorCode.BAD_FIELD, "'concealed' must be a list of tile codes")
    concealed = _tiles(data["concealed"], "concealed")
    if data["winning_tile"] is None:
        raise HandError(ErrorCode.NO_WINNING_TILE, "the winning tile is unknown: set it apart from the hand or name it")
    winning = _tile(data["winning_tile"], "winning_tile")
    melds_raw = data.get("melds")
    melds = tuple([_parse_meld(m, i) for i, m in enumerate(melds_raw)]) if melds_raw else ()
    flowers_raw = data.get("flowers") or []
    if not isinstance(flowers_raw, list):
        raise HandError(ErrorCode.BAD_FIELD, "'flowers' must be a list of flower codes")
    flowers = _checked_flowers(flowers_raw) if flowers_raw else ()
    context = _parse_context(data)
    preset = data.get("preset", "taiwan")
    if not isinstance(preset, str):
        raise HandError(ErrorCode.BAD_FIELD, "'preset' must be a preset name")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise HandError(ErrorCode.BAD_FIELD, "'options' must be an object of option names to values")
    options_given = tuple(sorted(options.items())) if options else ()
    settlement = _parse_settlement(data["settlement"]) if data.get("settlement") is not None else None
    hand = Hand(concealed, melds, flowers, winning, preset, context, options_given, settlement)
    _check_counts(hand)
    return hand


def _checked_flowers(written: list) -> tuple[str, ...]:
    """The flowers in their order (春夏秋冬梅蘭菊竹), or a ``HandError`` naming a bad or repeated one."""
    try:
        return _flowers_in_order(tuple(written))
    except TypeError:  # an unhashable value: checking it afresh names it
        return _flowers_in_order.__wrapped__(tuple(written))


@lru_cache(maxsize=1024)  # a few flowers in the order written: bounded, and hands repeat them
def _flowers_in_order(written: tuple) -> tuple[str, ...]:
    flowers = tuple(sorted(_flower_codes(written), key=_FLOWER_ORDER.__getitem__))
    repeated = [f for f, n in Counter(flowers).items() if n > 1] if len(set(flowers)) < len(flowers) else []
    if repeated:
        raise HandError(
            ErrorCode.DUPLICATE_FLOWER,
            f"each flower exists once; {chinese_name(repeated[0])} ({repeated[0]}) is listed twice",
            {"tile": repeated[0]},
        )
    return flowers


_MELD_KEYS = frozenset({"kind", "tiles"})


def _parse_meld(raw: Any, index: int) -> Meld:
    # Most melds are ones already checked: found by what was written, before any checking.
    if type(raw) is dict and len(raw) == 2 and type(raw.get("tiles")) is list:
        try:
            known = _VALID_MELDS.get((raw.get("kind", ""), tuple(raw["tiles"])))
        except TypeError:  # something unhashable: the checks below name it
            known = None
        if known is not None:
            return known
    where = f"meld {index + 1}"
    if not isinstance(raw, dict) or raw.keys() != _MELD_KEYS:
        raise HandError(ErrorCode.BAD_MELD, f'{where}: write it as {{"kind": ..., "tiles": [...]}}')
    kind, tiles = raw["kind"], raw["tiles"]
    if kind not in MELD_KINDS:
        raise HandError(ErrorCode.BAD_MELD, f"{where}: kind must be one of {', '.join(MELD_KINDS)}, got {kind!r}")
    if not isinstance(tiles, list):
        raise HandError(ErrorCode.BAD_MELD, f"{where}: 'tiles' must be a list")
    codes = _tiles(tiles, where)
    written = codes
    known = _VALID_MELDS.get((kind, written))
    if known is not None:
        return known
    expected = 4 if kind in ("kong", "concealed_kong") else 3
    if len(codes) != expected:
        raise HandError(ErrorCode.BAD_MELD, f"{where}: a {kind} has {expected} tiles, got {len(codes)}")
    if kind == "chow":
        ordered = sorted(codes, key=lambda t: TILE_INDEX[t])
        suit = ordered[0][1]
        numbers = [int(t[0]) for t in ordered]
        if suit == "z" or any(t[1] != suit for t in ordered) or numbers != list(range(numbers[0], numbers[0] + 3)):
            raise HandError(
                ErrorCode.BAD_MELD, f"{where}: a chow is three consecutive tiles of one suit, got {' '.join(codes)}"
            )
        codes = tuple(ordered)
    elif len(set(codes)) != 1:
        raise HandError(ErrorCode.BAD_MELD, f"{where}: a {kind} is {expected} identical tiles, got {' '.join(codes)}")
    meld = _VALID_MELDS[kind, written] = Meld(kind, codes)
    return meld


# Melds already checked, by (kind, tiles as written). Only valid melds enter, and there are 228
# of them (each chow in its 6 orders, each pung, kong and concealed kong), so it stays small.
_VALID_MELDS: dict[tuple[str, tuple[str, ...]], Meld] = {}


@dataclass(frozen=True)
class _FieldRule:
    """How the hand JSON's value for one ``WinContext`` field is checked (worked out once)."""

    name: str
    default: Any
    kind: type  # bool, int or str
    choices: tuple[str, ...]
    optional: bool  # null is allowed

    def read(self, data: dict) -> Any:
        value = data.get(self.name, self.default)
        if value is None and self.optional:
            return None
        if self.choices:
            if value not in self.choices:
                allowed = ", ".join(f'"{c}"' if self.optional else c for c in self.choices)
                allowed = f"null, {allowed}" if self.optional else allowed
                raise HandError(ErrorCode.BAD_FIELD, f"'{self.name}' must be one of {allowed}, got {value!r}")
            return value
        if self.kind is bool:
            if not isinstance(value, bool):
                raise HandError(ErrorCode.BAD_FIELD, f"'{self.name}' must be true or false, got {value!r}")
            return value
        return _int(data, self.name, self.default)


def _field_rule(spec: Any) -> _FieldRule:
    kinds = [k for k in typing.get_args(CONTEXT_TYPES[spec.name]) if k is not type(None)] or [CONTEXT_TYPES[spec.name]]
    optional = type(None) in typing.get_args(CONTEXT_TYPES[spec.name])
    return _FieldRule(spec.name, spec.default, kinds[0], spec.metadata["choices"], optional)


_FIELD_RULES = tuple(_field_rule(spec) for spec in CONTEXT_FIELDS)


_FIELD_RULE_BY_NAME = {rule.name: rule for rule in _FIELD_RULES}


def _parse_context(data: dict) -> WinContext:
    # Only the fields given are read: the others keep their defaults, which need no checking.
    # Situations repeat from hand to hand, so each is checked once, found by the values as given
    # (with their types: 1 == True, but only one of them is a valid flag).
    rules = _FIELD_RULE_BY_NAME
    given = tuple([(name, value, type(value)) for name, value in data.items() if name in rules])
    try:
        return _checked_context(given)
    except TypeError:  # an unhashable value: reading it names the problem
        return _read_context(data)


@lru_cache(maxsize=1024)  # values come from callers (a streak is any whole number): bounded
def _checked_context(given: tuple[tuple[str, Any, type], ...]) -> WinContext:
    """The one ``WinContext`` for these field values as given, checked: shared by every hand in it."""
    return _read_context({name: value for name, value, _ in given})


def _read_context(data: dict) -> WinContext:
    rules = _FIELD_RULE_BY_NAME
    try:
        given = {name: rules[name].read(data) for name in data if name in rules}
    except HandError:  # name the first bad field in the fields' own order, whatever the JSON's order
        for rule in _FIELD_RULES:
            if rule.name in data:
                rule.read(data)
        raise
    context = WinContext(**given)
    if context.robbing_kong and context.self_drawn:
        raise HandError(ErrorCode.BAD_CONTEXT, "robbing a kong wins on another player's tile, so self_drawn must be false")
    if context.heavenly and not context.dealer:
        raise HandError(ErrorCode.BAD_CONTEXT, "天胡 (heavenly) is the dealer's win; set dealer to true")
    if (context.earthly or context.human) and context.dealer:
        raise HandError(ErrorCode.BAD_CONTEXT, "地胡/人胡 are non-dealer wins; set dealer to false")
    return context


def _parse_settlement(raw: Any) -> Settlement:
    allowed = {"base", "per_tai", "discarder_seat", "dealer_seat"}
    if not isinstance(raw, dict) or not set(raw) <= allowed or not {"base", "per_tai"} <= set(raw):
        raise HandError(
            ErrorCode.BAD_FIELD, "'settlement' needs 'base' and 'per_tai', and may add 'discarder_seat', 'dealer_seat'"
        )
    for key in ("base", "per_tai"):
        if not isinstance(raw[key], int | float) or isinstance(raw[key], bool) or raw[key] < 0:
            raise HandError(ErrorCode.BAD_FIELD, f"settlement '{key}' must be a number ≥ 0")
    for key in ("discarder_seat", "dealer_seat"):
        if raw.get(key) is not None and raw[key] not in WIND_LETTERS:
            raise HandError(ErrorCode.BAD_FIELD, f"settlement '{key}' must be one of E, S, W, N")
    return Settlement(raw["base"], raw["per_tai"], raw.get("discarder_seat"), raw.get("dealer_seat"))


def _check_counts(hand: Hand) -> None:
    size = len(hand.concealed) + 1 + 3 * len(hand.melds)
    if size != HAND_TILES:
        kongs = sum(m.is_kong for m in hand.melds)
        detail = f"{len(hand.concealed)} concealed + 1 winning + {len(hand.melds)} meld(s) × 3"
        if kongs:
            detail += " (a kong counts as 3)"
        raise HandError(
            ErrorCode.TILE_COUNT,
            f"a winning hand has 17 tiles counting each meld as 3; this one has {size} ({detail})",
            {"count": size},
        )
    tiles = hand.all_tiles()
    tiles.sort()
    if not any(map(eq, tiles, tiles[4:])):  # sorted, a kind five times would span five places
        return
    for tile, n in Counter(hand.all_tiles()).items():
        if n > 4:
            raise HandError(
                ErrorCode.TOO_MANY_COPIES,
                f"{chinese_name(tile)} ({tile}) appears {n} times; a set has only 4",
                {"tile": tile, "count": n},
            )
