"""Interpretations: one decomposition of the hand plus the group the winning tile completed.

Everything a pattern check needs is computed here once, so each check stays a few lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Any, Generic, TypeVar, overload

from .decompose import Counts, Group
from .hand import CONTEXT_FIELDS, Hand, WinContext
from .tiles import PLAYING_TILES, SEAT_FLOWERS, TILE_INDEX, WIND_TILE

DRAGON_IDX = (31, 32, 33)
WIND_IDX = (27, 28, 29, 30)
DRAGONS_START = DRAGON_IDX[0]  # winds from HONOURS_START, then dragons from here

# Forms of a winning hand.
STANDARD = "standard"
PAIRS_AND_TRIPLET = "pairs_and_triplet"  # 哩咕哩咕
THIRTEEN_ORPHANS = "thirteen_orphans"  # 十三么
SIXTEEN_UNRELATED = "sixteen_unrelated"  # 十六不搭
FLOWER_WIN = "flower_win"  # 八仙過海, 七搶一
SPECIAL_FORMS = (PAIRS_AND_TRIPLET, THIRTEEN_ORPHANS, SIXTEEN_UNRELATED)

# Wait shapes of the group the winning tile completed.
SINGLE, SHANPON, CLOSED, EDGE, TWO_SIDED = "single", "shanpon", "closed", "edge", "two_sided"

# Preset options read here rather than by a pattern: a preset may declare them.
CONCEALED_KONG_IS_ANKE = "concealed_kong_is_anke"
ENGINE_OPTIONS = (CONCEALED_KONG_IS_ANKE,)

EVERYDAY_CONTEXT = ("self_drawn", "seat_wind", "round_wind", "dealer", "dealer_streak")
RARE_CONTEXT_DEFAULTS = tuple((f.name, f.default) for f in CONTEXT_FIELDS if f.name not in EVERYDAY_CONTEXT)
# The rare fields read in one call, against their defaults in one comparison.
_RARE_CONTEXT_VALUES = attrgetter(*(name for name, _ in RARE_CONTEXT_DEFAULTS))
RARE_CONTEXT_DEFAULT_VALUES = tuple(default for _, default in RARE_CONTEXT_DEFAULTS)

T = TypeVar("T")


class fact(Generic[T]):
    """``functools.cached_property`` without the lock that Python 3.11 takes on each first read:
    every check reads facts for the first time on a fresh interpretation, and the lock was
    a tenth of the scoring profile."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> fact[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object, owner: type | None = None) -> fact[T] | T:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


class fact_of(fact[T]):
    """One of several facts that a single pass computes together: ``compute`` returns them all by
    name, and the first read of any stores them all, so reading the others costs nothing more.
    Each first read of a fact is a call or two, which for the small facts was most of their cost."""

    def __init__(self, compute: Callable[[Any], dict[str, Any]], name: str) -> None:
        self.compute = compute
        self.name = name
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> fact_of[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object, owner: type | None = None) -> fact_of[T] | T:
        if obj is None:
            return self
        values = self.compute(obj)
        obj.__dict__.update(values)
        return values[self.name]


HONOURS_START = 27  # counts[27:] are the honours
SUIT_NUMBERS = (0, 1, 2)  # 萬, 筒, 條: counts[0:9], counts[9:18], counts[18:27]
FLOWER_SETS = (frozenset(("1f", "2f", "3f", "4f")), frozenset(("5f", "6f", "7f", "8f")))  # 春夏秋冬, 梅蘭菊竹
KINDS = range(len(PLAYING_TILES))
# The tiles of each set, by kind and first tile index (a chow's lowest tile).
_SET_TILES: dict[str, dict[int, tuple[str, ...]]] = {
    "chow": {i: tuple(PLAYING_TILES[i : i + 3]) for i in range(HONOURS_START) if i % 9 <= 6},
    "pung": {i: (tile,) * 3 for i, tile in enumerate(PLAYING_TILES)},
    "kong": {i: (tile,) * 4 for i, tile in enumerate(PLAYING_TILES)},
}


@dataclass(frozen=True)
class SetView:
    """One of the five sets: from the concealed hand or a declared meld."""

    kind: str  # chow, pung, kong
    index: int  # tile index; for a chow, its lowest tile
    melded: bool  # declared (open meld or concealed kong)
    is_open: bool  # chow/pung/exposed kong called from others
    concealed_pung: bool  # 暗刻: a concealed pung or a concealed kong, not completed by a discard
    concealed_kong: bool = False

    @property
    def is_pung(self) -> bool:
        return self.kind != "chow"  # pung or kong

    @fact
    def tiles(self) -> tuple[str, ...]:
        return _SET_TILES[self.kind][self.index]  # views are shared, so each looks its tiles up once


# Facts of the hand rather than of one reading (they read the situation, the tiles' counts, the
# options or the wait set, never the sets): the same on every reading of a hand, so a reading
# takes the ones already worked out on another instead of working them out again.
HAND_FACTS = (
    *("ctx", "dealer_won", "self_drawn", "has_flowers", "rare_situation"),
    *("seat_wind_index", "round_wind_index", "all_melded", "concealed_hand", "declared_kongs"),
    *("suits", "one_suit", "honours_only", "has_honours", "honourless"),
    *("kinds_present", "opts", "wait_count", "flower_sets", "seat_flowers"),
)


def share_hand_facts(scored: Interpretation, other: Interpretation) -> None:
    """Give ``other``, a reading of the same hand, the hand's facts ``scored`` has worked out."""
    known = scored.__dict__
    other.__dict__.update({name: known[name] for name in HAND_FACTS if name in known})


@dataclass(frozen=True, init=False)
class Interpretation:
    hand: Hand
    form: str
    sets: tuple[SetView, ...]
    pair: int | None
    winning_group: int | None  # index into sets; -1 for the pair; None for special forms
    wait: str | None
    waits: frozenset[int]  # the wait set W of the 16 tiles before the win
    counts: Counts  # all 17 tiles (kongs counted as 3 to keep sums meaningful per kind)
    options: tuple[tuple[str, object], ...]

    def __init__(
        self,
        hand: Hand,
        form: str,
        sets: tuple[SetView, ...],
        pair: int | None,
        winning_group: int | None,
        wait: str | None,
        waits: frozenset[int],
        counts: Counts,
        options: tuple[tuple[str, object], ...],
    ) -> None:
        # The fields in one update: a frozen dataclass's own __init__ sets each through
        # object.__setattr__, which took 2 µs a reading, and a hand has one or more readings.
        self.__dict__.update(
            hand=hand, form=form, sets=sets, pair=pair, winning_group=winning_group,
            wait=wait, waits=waits, counts=counts, options=options,
        )  # fmt: skip

    # -- facts shared by many patterns -------------------------------------------------
    def _situation(self) -> dict[str, Any]:
        """The situation, and what situational checks need, read once to skip them all when false:
        the rare facts (天胡, 搶槓, 海底, ...) are read together, so a hand with none skips them all."""
        ctx = self.hand.context
        kinds = [m.kind for m in self.hand.melds] if self.hand.melds else []
        concealed_kongs = kinds.count("concealed_kong")
        return {
            "ctx": ctx,
            "dealer_won": ctx.dealer,
            "self_drawn": ctx.self_drawn,
            "has_flowers": bool(self.hand.flowers),
            "rare_situation": _RARE_CONTEXT_VALUES(ctx) != RARE_CONTEXT_DEFAULT_VALUES,
            "seat_wind_index": TILE_INDEX[WIND_TILE[ctx.seat_wind]],
            "round_wind_index": TILE_INDEX[WIND_TILE[ctx.round_wind]],
            # 全求人 shape: five called melds and a single concealed tile.
            "all_melded": len(kinds) == 5 and not concealed_kongs,
            "concealed_hand": concealed_kongs == len(kinds),  # 門清: a concealed kong is fine
            "declared_kongs": bool(concealed_kongs) or "kong" in kinds,
        }

    ctx = fact_of[WinContext](_situation, "ctx")
    dealer_won = fact_of[bool](_situation, "dealer_won")
    self_drawn = fact_of[bool](_situation, "self_drawn")
    has_flowers = fact_of[bool](_situation, "has_flowers")
    rare_situation = fact_of[bool](_situation, "rare_situation")
    seat_wind_index = fact_of[int](_situation, "seat_wind_index")
    round_wind_index = fact_of[int](_situation, "round_wind_index")
    all_melded = fact_of[bool](_situation, "all_melded")
    concealed_hand = fact_of[bool](_situation, "concealed_hand")
    declared_kongs = fact_of[bool](_situation, "declared_kongs")  # exposed or concealed: 明槓 and 暗槓 need one

    @fact
    def opts(self) -> dict:
        return dict(self.options)

    @fact
    def kinds_present(self) -> frozenset[int]:
        return frozenset(compress(KINDS, self.counts))

    def _tile_shape(self) -> dict[str, Any]:
        """Which suits the tiles are of, and whether there are honours (清一色, 混一色 need one suit)."""
        counts = self.counts
        suits = frozenset(compress(SUIT_NUMBERS, (any(counts[0:9]), any(counts[9:18]), any(counts[18:27]))))
        has_honours = any(counts[HONOURS_START:])
        return {
            "suits": suits,
            "one_suit": len(suits) == 1,
            "honours_only": not suits,
            "has_honours": has_honours,
            "honourless": not has_honours,
        }

    suits = fact_of[frozenset[int]](_tile_shape, "suits")
    one_suit = fact_of[bool](_tile_shape, "one_suit")
    honours_only = fact_of[bool](_tile_shape, "honours_only")  # 字一色 needs it
    has_honours = fact_of[bool](_tile_shape, "has_honours")
    honourless = fact_of[bool](_tile_shape, "honourless")  # 斷么, 無字, 缺一門, 清么九 need it

    def _set_shape(self) -> dict[str, Any]:
        """The pungs (and kongs) and the chows; whether all sets are chows (平胡 needs it) or all
        pungs (碰碰胡 and 簡簡糊 need it); whether some pung is of winds or dragons (every
        honour-pung pattern needs one); how many are 暗刻 (a concealed kong counts unless the
        preset's option says not)."""
        pungs: list[SetView] = []
        chows: list[SetView] = []
        concealed = concealed_kongs = dragon_pungs = wind_pungs = 0
        for s in self.sets:
            if s.kind == "chow":
                chows.append(s)
            else:
                pungs.append(s)
                if s.index >= DRAGONS_START:
                    dragon_pungs += 1
                elif s.index >= HONOURS_START:
                    wind_pungs += 1
            if s.concealed_pung:
                concealed += 1
                concealed_kongs += s.concealed_kong
        if concealed_kongs and not self.opts.get(CONCEALED_KONG_IS_ANKE, True):
            concealed -= concealed_kongs
        return {
            "pungs": tuple(pungs),
            "chows": tuple(chows),
            "only_chows": not pungs,
            "only_pungs": not chows,
            "honour_pungs": bool(dragon_pungs or wind_pungs),
            "dragon_pungs": dragon_pungs,
            "wind_pungs": wind_pungs,
            "two_dragon_pungs": dragon_pungs >= 2,
            "two_wind_pungs": wind_pungs >= 2,
            "concealed_pungs": concealed,
        }

    pungs = fact_of[tuple[SetView, ...]](_set_shape, "pungs")
    chows = fact_of[tuple[SetView, ...]](_set_shape, "chows")
    only_chows = fact_of[bool](_set_shape, "only_chows")
    only_pungs = fact_of[bool](_set_shape, "only_pungs")
    honour_pungs = fact_of[bool](_set_shape, "honour_pungs")
    dragon_pungs = fact_of[int](_set_shape, "dragon_pungs")
    wind_pungs = fact_of[int](_set_shape, "wind_pungs")
    two_dragon_pungs = fact_of[bool](_set_shape, "two_dragon_pungs")  # 小三元, 大三元 need them
    two_wind_pungs = fact_of[bool](_set_shape, "two_wind_pungs")  # 小三風 and up need them
    concealed_pungs = fact_of[int](_set_shape, "concealed_pungs")

    def pung_of(self, index: int) -> bool:
        return any(s.index == index for s in self.pungs)

    @fact
    def flower_sets(self) -> int:
        flowers = set(self.hand.flowers)
        return sum(1 for group in FLOWER_SETS if flowers >= group)

    @fact
    def seat_flowers(self) -> tuple[str, ...]:
        return tuple(f for f in self.hand.flowers if f in SEAT_FLOWERS[self.ctx.seat_wind])

    @fact
    def wait_count(self) -> int:
        return len(self.waits)

    def _suited_sets(self) -> dict[str, Any]:
        """The suited sets by where they start, in one pass: how many chows start at each tile
        (一般高 and its kin), the chow at each start (the last of twins), whether some chow appears
        twice or more (一般高 and its kin need one), and whether some set appears in two suits or
        more (姊妹, 三相逢 need one)."""
        chow_counts: dict[int, int] = {}
        chow_starts: dict[int, SetView] = {}
        suit_of: dict[tuple[bool, int], int] = {}  # (chow or not, number) → the first suit seen with it
        shared = False
        for s in self.sets:
            index = s.index
            if index >= HONOURS_START:
                continue
            if s.kind == "chow":
                chow_counts[index] = chow_counts.get(index, 0) + 1
                chow_starts[index] = s
            if suit_of.setdefault((s.kind == "chow", index % 9), index // 9) != index // 9:
                shared = True
        return {
            "chow_counts": chow_counts,
            "chow_starts": chow_starts,
            "repeated_chows": any([n >= 2 for n in chow_counts.values()]),
            "shared_numbers": shared,
        }

    chow_counts = fact_of[dict[int, int]](_suited_sets, "chow_counts")
    chow_starts = fact_of[dict[int, SetView]](_suited_sets, "chow_starts")
    repeated_chows = fact_of[bool](_suited_sets, "repeated_chows")
    shared_numbers = fact_of[bool](_suited_sets, "shared_numbers")

    @fact
    def fours_in_hand(self) -> list[int]:
        """Kinds held four times among the concealed sets and the pair (四歸一), never a kong."""
        if 4 not in self.counts:  # what is in hand is never more than the whole hand
            return []
        # Only a kind held four times in all can be, and not one declared as a kong.
        kongs = {s.index for s in self.sets if s.kind == "kong"}
        candidates = [i for i, n in enumerate(self.counts) if n == 4 and i not in kongs]
        if not candidates:
            return []
        unmelded = self.unmelded_counts
        return [i for i in candidates if unmelded[i] == 4]

    @fact
    def same_number_suits(self) -> list[int]:
        """For each (kind, number) among the suited sets, how many suits carry it (姊妹, 三相逢)."""
        seen: dict[tuple[str, int], set[int]] = {}
        for s in self.sets:
            if s.index >= HONOURS_START:
                continue
            key = ("chow" if s.kind == "chow" else "pung", s.index % 9)
            seen.setdefault(key, set()).add(s.index // 9)
        return [len(suits) for suits in seen.values()]

    @fact
    def chow_positions(self) -> dict[int, int]:
        """Where each chow stands in ``sets``, by its first tile index (the last of twins)."""
        return {s.index: i for i, s in enumerate(self.sets) if s.kind == "chow"}

    @fact
    def dragon_chows(self) -> tuple[str, list[SetView]] | None:
        """清龍 (123-456-789 of one suit) first; else 雜龍 (123, 456, 789 in three suits)."""
        # Each dragon chow starts on a 1, 4 or 7 (an index that is a multiple of 3): three must.
        if len({s.index for s in self.chows if s.index % 3 == 0}) < 3:
            return None
        by_start = self.chow_starts
        if len(by_start) < 3:
            return None
        for suit in range(3):
            if suit * 9 in by_start and suit * 9 + 3 in by_start and suit * 9 + 6 in by_start:
                return "pure", [by_start[suit * 9 + k] for k in (0, 3, 6)]
        for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
            starts = [order[k] * 9 + 3 * k for k in range(3)]
            if all(start in by_start for start in starts):
                return "mixed", [by_start[start] for start in starts]
        return None

    @fact
    def old_young_suits(self) -> list[int]:
        """Suits holding 123+789 chows, or 111+999 pungs (老少)."""
        # Each of those sets starts on a 1, a 7 or a 9: two must, or there are none.
        if sum(1 for s in self.sets if s.index < HONOURS_START and s.index % 9 in (0, 6, 8)) < 2:
            return []
        suits = []
        chows = self.chow_starts
        pungs = {s.index for s in self.pungs}
        dragon = self.dragon_chows
        dragon_suit = dragon[1][0].index // 9 if dragon and dragon[0] == "pure" else -1
        for suit in range(3):
            if suit * 9 in chows and suit * 9 + 6 in chows and suit != dragon_suit:
                suits.append(suit)
            if suit * 9 in pungs and suit * 9 + 8 in pungs:
                suits.append(suit)
        return suits

    @fact
    def unmelded_counts(self) -> list[int]:
        """Tiles per kind among the concealed sets and the pair (what 四歸一 looks at)."""
        counts = [0] * len(PLAYING_TILES)
        for s in self.sets:
            if s.melded:
                continue
            if s.kind == "chow":
                counts[s.index] += 1
                counts[s.index + 1] += 1
                counts[s.index + 2] += 1
            else:
                counts[s.index] += 4 if s.kind == "kong" else 3
        if self.pair is not None:
            counts[self.pair] += 2
        return counts

    def describe(self) -> list[dict]:
        """The decomposition as JSON: each set and the pair, tiles in order.

        It holds every tile of the hand, whatever the form, except for a flower win (八仙過海, 七搶一),
        which needs no complete hand and lists only the declared melds. Special forms list what is left
        after their sets and pair: 哩咕哩咕 its pairs (a kind held four times as two) and its triplet,
        十三么 and 十六不搭 their unmatched tiles as singles.
        """
        out = [
            {"kind": s.kind if not s.concealed_kong else "concealed_kong", "tiles": list(s.tiles), "melded": s.melded}
            for s in self.sets
        ]
        if self.pair is not None:
            out.append({"kind": "pair", "tiles": [PLAYING_TILES[self.pair]] * 2, "melded": False})
        if self.form in SPECIAL_FORMS:
            out.extend(self._special_form_groups())
        return out

    def _special_form_groups(self) -> list[dict]:
        """The tiles of a special form not in its sets or pair: pairs, one triplet, singles."""
        left = list(self.counts)  # special forms have no melds, so these are the 17 tiles exactly
        for s in self.sets:
            for tile in s.tiles:
                left[TILE_INDEX[tile]] -= 1
        if self.pair is not None:
            left[self.pair] -= 2
        groups = []
        for index, n in enumerate(left):
            tile = PLAYING_TILES[index]
            if n % 2:
                kind, size = ("pung", 3) if n >= 3 else ("single", 1)
                groups.append({"kind": kind, "tiles": [tile] * size, "melded": False})
                n -= size
            groups.extend({"kind": "pair", "tiles": [tile] * 2, "melded": False} for _ in range(n // 2))
        return groups

    def winning_group_tiles(self) -> list[str]:
        if self.winning_group is None:
            return [self.hand.winning_tile]
        if self.winning_group == -1:
            return [PLAYING_TILES[self.pair]] * 2 if self.pair is not None else []
        return list(self.sets[self.winning_group].tiles)


def wait_shape(group: Group | None, winning_index: int) -> str:
    """The wait the winning tile filled: pair → single, pung → shanpon, chow by position."""
    if group is None:
        return SINGLE
    kind, first = group
    if kind == "pung":
        return SHANPON
    position = winning_index - first
    if position == 1:
        return CLOSED
    number = first % 9  # 0 for a 1-2-3 chow
    if (number == 0 and position == 2) or (number == 6 and position == 0):
        return EDGE
    return TWO_SIDED
