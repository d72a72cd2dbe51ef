"""Pattern checks. Each is a small function of one interpretation and its preset parameters.

A check returns ``(units, why)`` when the pattern applies, else ``None``. The preset data
gives each pattern its name, its 台 per unit and what it excludes; nothing here knows values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .interpret import (
    CLOSED,
    DRAGON_IDX,
    EDGE,
    FLOWER_SETS,
    FLOWER_WIN,
    PAIRS_AND_TRIPLET,
    SHANPON,
    SINGLE,
    SIXTEEN_UNRELATED,
    STANDARD,
    THIRTEEN_ORPHANS,
    TWO_SIDED,
    WIND_IDX,
    Interpretation,
    SetView,
    fact,
)
from .tiles import PLAYING_TILES, SEAT_FLOWERS, chinese_name

Hit = tuple[int, str] | None
WaitShape = Literal["single", "shanpon", "closed", "edge", "two_sided"]


@dataclass(frozen=True)
class Params:
    """A check's preset parameters. Subclasses declare the fields; the preset loader builds them
    from the ``params`` object and refuses unknown, missing or mistyped keys."""

    def options_read(self) -> tuple[str, ...]:
        """The preset options this pattern reads: each must be declared by the preset."""
        return ()


@dataclass(frozen=True)
class NoParams(Params):
    pass


Check = Callable[[Interpretation, Any], Hit]


@dataclass(frozen=True)
class CheckSpec:
    check: Check
    params: type[Params]
    scores_flower_win: bool  # still counts when the hand is a 八仙過海/七搶一 flower win
    # Reads only the situation (``it.ctx``, the flowers, the melds' kinds, whether the reading is a
    # flower win), never the tiles' decomposition: the scorer runs it once per hand, not once per reading.
    situational: bool
    # The forms of reading on which it can score at all (it returns None on the others, so the
    # scorer need not call it there); empty for every form.
    forms: tuple[str, ...]
    # A fact of the reading without which it never scores (several checks share one, so the scorer
    # reads it once and skips them all); empty when there is none.
    needs: str
    # (what of the reading, which param): the check scores only when the reading's value equals the
    # param (or is among them, for a tuple), so the scorer reads the value once and runs only the
    # rules it picks, say the one 暗刻 count of 三暗刻/四暗刻/五暗刻; empty when there is none.
    picked_by: tuple[str, str] | tuple[()] = ()


CHECKS: dict[str, Check] = {}
CHECK_SPECS: dict[str, CheckSpec] = {}

TERMINAL_IDX = frozenset(i for i in range(27) if i % 9 in (0, 8))
TERMINALS_AND_HONOURS = TERMINAL_IDX | frozenset(range(27, len(PLAYING_TILES)))


def check(
    pattern_id: str,
    params: type[Params] = NoParams,
    *,
    scores_flower_win: bool = False,
    situational: bool = False,
    forms: tuple[str, ...] = (),
    needs: str = "",
    picked_by: tuple[str, str] | tuple[()] = (),
) -> Callable[[Check], Check]:
    def register(func: Check) -> Check:
        if needs and not isinstance(getattr(Interpretation, needs, None), fact):
            raise TypeError(f"check {pattern_id!r} needs {needs!r}, which is not a fact of a reading")
        if picked_by:
            value, param = picked_by
            readable = isinstance(getattr(Interpretation, value, None), fact) or value in Interpretation.__dataclass_fields__
            if not readable or param not in params.__dataclass_fields__:
                raise TypeError(f"check {pattern_id!r} is picked by {picked_by!r}: not a reading's value and a param")
        CHECKS[pattern_id] = func
        CHECK_SPECS[pattern_id] = CheckSpec(func, params, scores_flower_win, situational, forms, needs, picked_by)
        return func

    return register


def _names(indices) -> str:
    return "、".join([chinese_name(PLAYING_TILES[i]) for i in indices])


# --- dealer ------------------------------------------------------------------------------
@dataclass(frozen=True)
class DealerTotalParams(Params):
    only_with_streak: bool = False


@check("dealer_total", DealerTotalParams, situational=True, needs="dealer_won")
def dealer_total(it: Interpretation, p: DealerTotalParams) -> Hit:
    """莊家連N拉N / 臨庄: the dealer's 2N+1 as one entry."""
    if not it.ctx.dealer:
        return None
    n = it.ctx.dealer_streak
    if p.only_with_streak and n == 0:
        return None
    return 2 * n + 1, f"dealer on 連{n}: 2×{n}+1" if n else "dealer wins"


@dataclass(frozen=True)
class DealerParams(Params):
    only_without_streak: bool = False


@check("dealer", DealerParams, situational=True, needs="dealer_won")
def dealer(it: Interpretation, p: DealerParams) -> Hit:
    if not it.ctx.dealer or (p.only_without_streak and it.ctx.dealer_streak):
        return None
    return 1, "the dealer wins"


@check("dealer_streak", situational=True, needs="dealer_won")
def dealer_streak(it: Interpretation, p: NoParams) -> Hit:
    n = it.ctx.dealer_streak
    return (n, f"連{n}拉{n}: 2 per streak") if it.ctx.dealer and n else None


# --- how the hand was won ----------------------------------------------------------------
@check("self_draw", situational=True, needs="self_drawn")
def self_draw(it: Interpretation, p: NoParams) -> Hit:
    return (1, "won on own draw") if it.ctx.self_drawn and it.form != FLOWER_WIN else None


@check("concealed", situational=True)
def concealed(it: Interpretation, p: NoParams) -> Hit:
    return (1, "no chow, pung or exposed kong") if it.concealed_hand and it.form != FLOWER_WIN else None


@check("concealed_self_draw", situational=True, needs="self_drawn")
def concealed_self_draw(it: Interpretation, p: NoParams) -> Hit:
    if it.concealed_hand and it.ctx.self_drawn and it.form != FLOWER_WIN:
        return 1, "concealed hand won on own draw"
    return None


@check("declared_ready", situational=True, needs="rare_situation")
def declared_ready(it: Interpretation, p: NoParams) -> Hit:
    return (1, "declared ready (聽牌)") if it.ctx.declared_ready else None


@check("robbing_kong", situational=True, needs="rare_situation")
def robbing_kong(it: Interpretation, p: NoParams) -> Hit:
    return (1, "won on a tile added to a kong") if it.ctx.robbing_kong else None


@dataclass(frozen=True)
class KongFlowerParams(Params):
    flower_replacement: bool = True  # a flower replacement draw counts too


@check("kong_flower", KongFlowerParams, situational=True, needs="self_drawn")
def kong_flower(it: Interpretation, p: KongFlowerParams) -> Hit:
    if not it.ctx.self_drawn:
        return None
    if it.ctx.kong_replacement:
        return 1, "self-drawn on a kong replacement"
    if it.ctx.flower_replacement and p.flower_replacement:
        return 1, "self-drawn on a flower replacement"
    return None


@dataclass(frozen=True)
class ConsecutiveKongsParams(Params):
    kongs: int = 2
    exact: bool = False  # exactly ``kongs``, not more


@check("consecutive_kongs", ConsecutiveKongsParams, situational=True, needs="self_drawn")
def consecutive_kongs(it: Interpretation, p: ConsecutiveKongsParams) -> Hit:
    need = p.kongs
    n = it.ctx.consecutive_kongs
    if it.ctx.self_drawn and (n == need or (not p.exact and n > need)):
        return 1, f"won after {n} consecutive kongs"
    return None


@check("last_tile_draw", situational=True, needs="self_drawn")
def last_tile_draw(it: Interpretation, p: NoParams) -> Hit:
    return (1, "self-drawn on the last tile") if it.ctx.last_tile and it.ctx.self_drawn else None


@check("last_discard", situational=True, needs="rare_situation")
def last_discard(it: Interpretation, p: NoParams) -> Hit:
    return (1, "won on the last discard") if it.ctx.last_tile and not it.ctx.self_drawn else None


@dataclass(frozen=True)
class HeavenlyWinParams(Params):
    allow_concealed_kong: bool = True


@check("heavenly_win", HeavenlyWinParams, situational=True, needs="rare_situation")
def heavenly_win(it: Interpretation, p: HeavenlyWinParams) -> Hit:
    if not it.ctx.heavenly:
        return None
    if not p.allow_concealed_kong and any(m.kind == "concealed_kong" for m in it.hand.melds):
        return None
    return 1, "dealer's dealt hand is complete"


@check("earthly_win", situational=True, needs="rare_situation")
def earthly_win(it: Interpretation, p: NoParams) -> Hit:
    return (1, "non-dealer self-draws on the first draw") if it.ctx.earthly else None


@check("human_win", situational=True, needs="rare_situation")
def human_win(it: Interpretation, p: NoParams) -> Hit:
    return (1, "non-dealer wins on a discard in the first go-round") if it.ctx.human else None


@check("heavenly_ready", situational=True, needs="dealer_won")
def heavenly_ready(it: Interpretation, p: NoParams) -> Hit:
    return (1, "ready from the dealer's first discard") if it.ctx.heavenly_ready and it.ctx.dealer else None


@dataclass(frozen=True)
class EarthlyReadyParams(Params):
    requires_concealed: bool = False


@check("earthly_ready", EarthlyReadyParams, situational=True, needs="rare_situation")
def earthly_ready(it: Interpretation, p: EarthlyReadyParams) -> Hit:
    if not it.ctx.earthly_ready or (p.requires_concealed and not it.concealed_hand):
        return None
    return 1, "ready within the first go-round"


@dataclass(frozen=True)
class OwnDiscardsParams(Params):
    at_most: int
    above: int = -1


@check("own_discards", OwnDiscardsParams, situational=True, needs="rare_situation")
def own_discards(it: Interpretation, p: OwnDiscardsParams) -> Hit:
    n = it.ctx.own_discards
    if n is None or not (p.above < n <= p.at_most):
        return None
    return 1, f"won after {n} own discards (≤ {p.at_most})"


# --- flowers -------------------------------------------------------------------------------
@check("seat_flower", situational=True, needs="has_flowers")
def seat_flower(it: Interpretation, p: NoParams) -> Hit:
    if it.form == FLOWER_WIN:
        return None
    return _own_seat_flowers(it.hand.flowers, it.ctx.seat_wind)


@lru_cache(maxsize=4 * 2**8)  # every seat with every set of flowers: bounded, and they repeat
def _own_seat_flowers(flowers: tuple[str, ...], seat_wind: str) -> Hit:
    """正花: the own-seat flowers that are not part of a full set of four (花槓 counts those)."""
    held = set(flowers)
    full: set[str] = set()
    for group in FLOWER_SETS:
        if held >= group:
            full.update(group)
    own = [f for f in flowers if f in SEAT_FLOWERS[seat_wind] and f not in full]
    return (len(own), f"own-seat flower(s) {'、'.join(chinese_name(f) for f in own)}") if own else None


@dataclass(frozen=True)
class AnyFlowerParams(Params):
    seat_bonus: bool = False  # hk: one more per own-seat flower


@check("any_flower", AnyFlowerParams, situational=True, needs="has_flowers")
def any_flower(it: Interpretation, p: AnyFlowerParams) -> Hit:
    """見花見台, or hk 花: every flower counts; hk adds one more for each own-seat flower."""
    if it.form == FLOWER_WIN or not it.hand.flowers:
        return None
    return _flowers_counted(it.hand.flowers, it.ctx.seat_wind, p.seat_bonus)


@lru_cache(maxsize=2 * 4 * 2**8)  # every set of flowers at every seat, with the bonus or not
def _flowers_counted(flowers: tuple[str, ...], seat_wind: str, seat_bonus: bool) -> Hit:
    own = [f for f in flowers if f in SEAT_FLOWERS[seat_wind]]
    units = len(flowers) + (len(own) if seat_bonus else 0)
    why = f"{len(flowers)} flower(s)"
    if seat_bonus and own:
        why += f", +{len(own)} for own-seat"
    return units, why


@check("flower_set", situational=True, needs="has_flowers")
def flower_set(it: Interpretation, p: NoParams) -> Hit:
    if it.form == FLOWER_WIN or not it.flower_sets:
        return None
    return it.flower_sets, "all four 春夏秋冬 or 梅蘭菊竹"


@check("eight_flowers", scores_flower_win=True, situational=True, needs="rare_situation")
def eight_flowers(it: Interpretation, p: NoParams) -> Hit:
    return (1, "all eight flowers") if it.ctx.flower_win == "eight" else None


@check("seven_rob_one", scores_flower_win=True, situational=True, needs="rare_situation")
def seven_rob_one(it: Interpretation, p: NoParams) -> Hit:
    return (1, "seven flowers robbing the eighth") if it.ctx.flower_win == "seven_rob_one" else None


# --- honour sets -------------------------------------------------------------------------------
@check("dragon_pung", needs="honour_pungs")
def dragon_pung(it: Interpretation, p: NoParams) -> Hit:
    found = [s.index for s in it.pungs if s.index in DRAGON_IDX]
    return (len(found), f"pung of {_names(found)}") if found else None


@check("round_wind_pung", needs="honour_pungs")
def round_wind_pung(it: Interpretation, p: NoParams) -> Hit:
    return (1, f"pung of the round wind {_names([it.round_wind_index])}") if it.pung_of(it.round_wind_index) else None


@check("seat_wind_pung", needs="honour_pungs")
def seat_wind_pung(it: Interpretation, p: NoParams) -> Hit:
    return (1, f"pung of the seat wind {_names([it.seat_wind_index])}") if it.pung_of(it.seat_wind_index) else None


@check("any_wind_pung", needs="honour_pungs")
def any_wind_pung(it: Interpretation, p: NoParams) -> Hit:
    found = [s.index for s in it.pungs if s.index in WIND_IDX]
    return (len(found), f"pung of {_names(found)}") if found else None


@check("honour_pung_bonus", needs="honour_pungs")
def honour_pung_bonus(it: Interpretation, p: NoParams) -> Hit:
    """hk 字: 1 per honour pung, +1 dragon, +1 round wind, +1 seat wind; family sets excluded."""
    honours = tuple([s.index for s in it.pungs if s.index >= 27])
    return _honour_pung_units(honours, it.pair, it.round_wind_index, it.seat_wind_index)


@lru_cache(maxsize=4096)  # a few honour pungs, a pair, two winds: few enough, and they repeat
def _honour_pung_units(honours: tuple[int, ...], pair: int | None, round_wind: int, seat_wind: int) -> Hit:
    wind_pungs = sum(1 for i in honours if i in WIND_IDX)
    dragon_pungs = sum(1 for i in honours if i in DRAGON_IDX)
    winds_used = (wind_pungs == 2 and pair in WIND_IDX) or wind_pungs >= 3
    dragons_used = dragon_pungs == 3 or (dragon_pungs == 2 and pair in DRAGON_IDX)
    units, parts = 0, []
    for index in honours:
        if (index in WIND_IDX and winds_used) or (index in DRAGON_IDX and dragons_used):
            continue
        value = 1 + (index in DRAGON_IDX) + (index == round_wind) + (index == seat_wind)
        units += value
        parts.append(f"{_names([index])} {value}")
    return (units, "honour pungs: " + ", ".join(parts)) if units else None


@check("small_dragons", needs="two_dragon_pungs")
def small_dragons(it: Interpretation, p: NoParams) -> Hit:
    if it.dragon_pungs == 2 and it.pair in DRAGON_IDX:
        return 1, "two dragon pungs and a dragon pair"
    return None


@check("big_dragons", needs="two_dragon_pungs")
def big_dragons(it: Interpretation, p: NoParams) -> Hit:
    return (1, "pungs of 中、發、白") if it.dragon_pungs == 3 else None


@check("small_three_winds", needs="two_wind_pungs")
def small_three_winds(it: Interpretation, p: NoParams) -> Hit:
    return (1, "two wind pungs and a wind pair") if it.wind_pungs == 2 and it.pair in WIND_IDX else None


@check("big_three_winds", needs="two_wind_pungs")
def big_three_winds(it: Interpretation, p: NoParams) -> Hit:
    return (1, "three wind pungs") if it.wind_pungs == 3 else None


@check("small_winds", needs="two_wind_pungs")
def small_winds(it: Interpretation, p: NoParams) -> Hit:
    return (1, "three wind pungs and a wind pair") if it.wind_pungs == 3 and it.pair in WIND_IDX else None


@check("big_winds", needs="two_wind_pungs")
def big_winds(it: Interpretation, p: NoParams) -> Hit:
    return (1, "pungs of all four winds") if it.wind_pungs == 4 else None


# --- suits and tiles ------------------------------------------------------------------------
@check("half_flush", needs="one_suit")
def half_flush(it: Interpretation, p: NoParams) -> Hit:
    return (1, "one suit plus honours") if len(it.suits) == 1 and it.has_honours else None


@check("full_flush", needs="one_suit")
def full_flush(it: Interpretation, p: NoParams) -> Hit:
    return (1, "one suit, no honours") if len(it.suits) == 1 and not it.has_honours else None


@check("all_honours", needs="honours_only")
def all_honours(it: Interpretation, p: NoParams) -> Hit:
    return (1, "honour tiles only") if not it.suits and it.form != FLOWER_WIN else None


@check("no_honours", needs="honourless")
def no_honours(it: Interpretation, p: NoParams) -> Hit:
    return (1, "no honour tile") if not it.has_honours and it.form != FLOWER_WIN else None


@check("no_flowers", situational=True)
def no_flowers(it: Interpretation, p: NoParams) -> Hit:
    return (1, "no flower") if not it.hand.flowers and it.form != FLOWER_WIN else None


@check("no_honours_no_flowers", needs="honourless")
def no_honours_no_flowers(it: Interpretation, p: NoParams) -> Hit:
    if it.has_honours or it.hand.flowers or it.form == FLOWER_WIN:
        return None
    return 1, "no honour tile and no flower"


@check("missing_suit", needs="honourless")
def missing_suit(it: Interpretation, p: NoParams) -> Hit:
    return (1, "exactly two suits, no honours") if len(it.suits) == 2 and not it.has_honours else None


@check("all_simples", needs="honourless")
def all_simples(it: Interpretation, p: NoParams) -> Hit:
    if it.form == FLOWER_WIN or it.has_honours or it.kinds_present & TERMINAL_IDX:
        return None
    return 1, "no 1, no 9, no honours"


@check("terminals_and_honours", needs="has_honours")
def terminals_and_honours(it: Interpretation, p: NoParams) -> Hit:
    """花么九: every tile a terminal or an honour, both kinds present."""
    if it.suits and it.has_honours and it.kinds_present <= TERMINALS_AND_HONOURS:
        return 1, "only 1s, 9s and honours"
    return None


@check("all_terminals", needs="honourless")
def all_terminals(it: Interpretation, p: NoParams) -> Hit:
    return (1, "only 1s and 9s") if it.kinds_present and it.kinds_present <= TERMINAL_IDX else None


@check("pair_258", forms=(STANDARD,))
def pair_258(it: Interpretation, p: NoParams) -> Hit:
    if it.form != STANDARD or it.pair is None or it.pair >= 27 or it.pair % 9 not in (1, 4, 7):
        return None
    return 1, f"pair of {_names([it.pair])}"


@dataclass(frozen=True)
class FiveGatesParams(Params):
    pair_allowed: bool  # 小五門齊: one family only as the pair


# The five families of 五門齊 by tile index: 萬, 筒, 索, winds, dragons.
_FAMILY = tuple(i // 9 if i < 27 else (3 if i in WIND_IDX else 4) for i in range(len(PLAYING_TILES)))


@check("five_gates", FiveGatesParams, forms=(STANDARD,), needs="has_honours")
def five_gates(it: Interpretation, p: FiveGatesParams) -> Hit:
    """五門齊: 萬, 筒, 索, winds and dragons all present; ``pair_allowed`` picks 小 or 大."""
    if it.form != STANDARD:
        return None
    in_sets = {_FAMILY[s.index] for s in it.sets}
    pair_family = _FAMILY[it.pair] if it.pair is not None else -1
    if p.pair_allowed:
        if len(in_sets) == 4 and pair_family not in in_sets:
            return 1, "five families, one of them only as the pair"
        return None
    return (1, "萬、筒、索、風、三元 each own a set") if len(in_sets) == 5 else None


# --- set structure ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class AllChowsParams(Params):
    """平胡 conditions; the ``*_option`` switches let the preset's options decide."""

    no_honours: bool = False
    no_flowers: bool = False
    discard_only: bool = False
    two_sided: bool = False
    concealed_option: bool = False  # reads REQUIRES_CONCEALED_OPTION
    multiwait_option: bool = False  # reads MULTIWAIT_OPTION

    REQUIRES_CONCEALED_OPTION = "pinghu_requires_concealed"
    MULTIWAIT_OPTION = "pinghu_multiwait"

    def options_read(self) -> tuple[str, ...]:
        return (
            *((self.REQUIRES_CONCEALED_OPTION,) if self.concealed_option else ()),
            *((self.MULTIWAIT_OPTION,) if self.multiwait_option else ()),
        )


@check("all_chows", AllChowsParams, forms=(STANDARD,), needs="only_chows")
def all_chows(it: Interpretation, p: AllChowsParams) -> Hit:
    """平胡 family; ``params`` choose the preset's conditions."""
    if it.form != STANDARD or it.chows != it.sets:
        return None
    if p.no_honours and it.has_honours:
        return None
    if p.no_flowers and it.hand.flowers:
        return None
    if p.discard_only and it.ctx.self_drawn:
        return None
    if p.two_sided and it.wait != TWO_SIDED:
        return None
    if p.concealed_option and it.opts[p.REQUIRES_CONCEALED_OPTION] and not it.concealed_hand:
        return None
    if p.multiwait_option and not it.opts[p.MULTIWAIT_OPTION] and it.wait_count >= 3:
        return None
    return 1, "five chows" + ("" if not p.two_sided else ", two-sided wait")


@check("all_pungs", forms=(STANDARD,), needs="only_pungs")
def all_pungs(it: Interpretation, p: NoParams) -> Hit:
    return (1, "five pungs or kongs") if it.form == STANDARD and len(it.pungs) == 5 else None


@dataclass(frozen=True)
class ConcealedPungsParams(Params):
    count: int


@check("concealed_pungs", ConcealedPungsParams, forms=(STANDARD,), picked_by=("concealed_pungs", "count"))
def concealed_pungs(it: Interpretation, p: ConcealedPungsParams) -> Hit:
    n = it.concealed_pungs
    if it.form != STANDARD or n != p.count:
        return None
    return 1, f"{n} concealed pungs (暗刻)"


@check("all_concealed_pungs_no_kong", forms=(STANDARD,), needs="only_pungs")
def all_concealed_pungs_no_kong(it: Interpretation, p: NoParams) -> Hit:
    """hk 簡簡糊: five concealed pungs and no kong anywhere."""
    if it.form != STANDARD or it.concealed_pungs != 5 or any(m.is_kong for m in it.hand.melds):
        return None
    return 1, "five concealed pungs, no kong"


@dataclass(frozen=True)
class AllMeldedParams(Params):
    self_drawn: bool = False


@check("all_melded", AllMeldedParams, forms=(STANDARD,), needs="all_melded")
def all_melded(it: Interpretation, p: AllMeldedParams) -> Hit:
    if it.form != STANDARD or not it.all_melded:
        return None
    if it.ctx.self_drawn != p.self_drawn:
        return None
    return 1, "five called melds, won on a single tile" + (" by self-draw" if it.ctx.self_drawn else "")


@dataclass(frozen=True)
class KongsParams(Params):
    kind: Literal["kong", "concealed_kong"]


@check("kongs", KongsParams, situational=True, needs="declared_kongs")
def kongs(it: Interpretation, p: KongsParams) -> Hit:
    n = sum(1 for m in it.hand.melds if m.kind == p.kind)
    return (n, f"{n} {'concealed' if p.kind == 'concealed_kong' else 'exposed'} kong(s)") if n else None


# --- waits -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WaitParams(Params):
    shapes: tuple[WaitShape, ...]
    any_count_option: str | None = None  # an option that lets the wait count with |W| > 1
    multi: bool = False  # 假獨: only when more than one tile is waited on

    def options_read(self) -> tuple[str, ...]:
        return (self.any_count_option,) if self.any_count_option else ()


@check("wait", WaitParams, forms=(STANDARD,), picked_by=("wait", "shapes"))
def wait(it: Interpretation, p: WaitParams) -> Hit:
    """邊張/崁張/獨聽/獨獨/假獨: the wait shape in ``shapes`` with |W| = 1 (or ``multi``)."""
    if it.form != STANDARD or it.wait not in p.shapes:
        return None
    lone = it.wait_count == 1
    if p.multi:
        if lone:
            return None
    elif not lone and not (p.any_count_option and it.opts[p.any_count_option]):
        return None
    return 1, f"{_WAIT_NAMES.get(it.wait or '', it.wait)} wait, {it.wait_count} tile(s) waited on"


_WAIT_NAMES = {SINGLE: "single (單吊)", EDGE: "edge (邊張)", CLOSED: "closed (崁張)", SHANPON: "shanpon (對碰)"}


@check("shanpon", forms=(STANDARD,))
def shanpon(it: Interpretation, p: NoParams) -> Hit:
    return (1, "won on one of two pairs (對碰)") if it.form == STANDARD and it.wait == SHANPON else None


# --- hk sequences ----------------------------------------------------------------------------


@dataclass(frozen=True)
class IdenticalChowsParams(Params):
    level: Literal["single", "double", "triple"]


@check("identical_chows", IdenticalChowsParams, forms=(STANDARD,), needs="repeated_chows")
def identical_chows(it: Interpretation, p: IdenticalChowsParams) -> Hit:
    """一般高 (one pair of identical chows), 雙般高 (two pairs), 太般高 (three identical)."""
    if it.form != STANDARD:
        return None
    triple = pairs = 0
    for n in it.chow_counts.values():
        triple += n >= 3
        pairs += n == 2 or n >= 4  # four of one chow are two pairs of them
    if p.level == "triple":
        found = triple >= 1
    elif p.level == "double":
        found = pairs >= 2
    else:
        found = pairs == 1 and not triple
    return (1, "identical chows in one suit") if found else None


@check("sisters", forms=(STANDARD,), needs="shared_numbers")
def sisters(it: Interpretation, p: NoParams) -> Hit:
    n = sum(1 for k in it.same_number_suits if k == 2) if it.form == STANDARD else 0
    return (n, "same sets in two suits") if n else None


@check("three_suit_sets", forms=(STANDARD,), needs="shared_numbers")
def three_suit_sets(it: Interpretation, p: NoParams) -> Hit:
    n = sum(1 for k in it.same_number_suits if k == 3) if it.form == STANDARD else 0
    return (n, "same sets in all three suits") if n else None


def _hidden_chow(it: Interpretation, s: SetView) -> bool:
    """Concealed, and not the chow a discard completed. Of twin chows 清龍 takes the last, so the
    winning group is compared with the last position that chow holds. A discard that completed
    the pair (winning group -1) completed no chow.
    """
    if it.ctx.self_drawn or it.winning_group is None or it.winning_group < 0:
        return not s.melded
    completed = it.winning_group % len(it.sets)
    return not s.melded and completed != it.chow_positions[s.index]


@dataclass(frozen=True)
class DragonParams(Params):
    kind: Literal["pure", "mixed"]  # 清龍 or 雜龍
    hidden: bool


@check("dragon", DragonParams, forms=(STANDARD,), needs="dragon_chows")
def dragon(it: Interpretation, p: DragonParams) -> Hit:
    if it.form != STANDARD:
        return None
    found = it.dragon_chows
    if not found or found[0] != p.kind:
        return None
    hidden = all(_hidden_chow(it, s) for s in found[1])
    if hidden != p.hidden:
        return None
    return 1, ("123-456-789 of one suit" if p.kind == "pure" else "123, 456 and 789 across three suits") + (
        ", all concealed" if hidden else ""
    )


@dataclass(frozen=True)
class FourInHandParams(Params):
    variant: Literal["single", "double", "pair"]


@check("four_in_hand", FourInHandParams, forms=(STANDARD,), needs="fours_in_hand")
def four_in_hand(it: Interpretation, p: FourInHandParams) -> Hit:
    """四歸一 family: all four copies among concealed tiles and the winning tile, not a kong."""
    if it.form != STANDARD:
        return None
    fours = it.fours_in_hand
    two_as_pair = [i for i in fours if i == it.pair]
    variant = p.variant
    if variant == "pair" and two_as_pair:
        return 1, f"all four {_names(two_as_pair)}, two of them the pair"
    plain = [i for i in fours if i != it.pair]
    if variant == "double" and len(plain) >= 2:
        return 1, f"all four of {_names(plain)}"
    if variant == "single" and len(plain) == 1:
        return 1, f"all four {_names(plain)} in hand"
    return None


@dataclass(frozen=True)
class OldYoungParams(Params):
    variant: Literal["plain", "double", "honour_pair", "terminal_pair"]


@check("old_young", OldYoungParams, forms=(STANDARD,), needs="old_young_suits")
def old_young(it: Interpretation, p: OldYoungParams) -> Hit:
    if it.form != STANDARD:
        return None
    found = it.old_young_suits
    variant = p.variant
    if variant == "double":
        return (1, "two 老少") if len(found) >= 2 else None
    if len(found) != 1:
        return None
    honour_pair = it.pair is not None and it.pair >= 27
    terminal_pair = it.pair is not None and it.pair in TERMINAL_IDX
    if variant == "honour_pair":
        return (1, "老少 with an honour pair") if honour_pair else None
    if variant == "terminal_pair":
        return (1, "老少 with a 1/9 pair") if terminal_pair else None
    return (1, "123+789 or 111+999 of one suit") if not honour_pair and not terminal_pair else None


# --- special forms -------------------------------------------------------------------------
@dataclass(frozen=True)
class PairsAndTripletParams(Params):
    variant: Literal["plain", "eight_pairs_wait", "one_four", "two_fours"] = "plain"


@check("pairs_and_triplet", PairsAndTripletParams, forms=(PAIRS_AND_TRIPLET,))
def pairs_and_triplet(it: Interpretation, p: PairsAndTripletParams) -> Hit:
    if it.form != PAIRS_AND_TRIPLET:
        return None
    variant = p.variant
    fours = sum(1 for n in it.counts if n == 4)
    before = list(it.counts)
    before[PLAYING_TILES.index(it.hand.winning_tile)] -= 1
    eight_pairs = sum(n // 2 for n in before) == 8 and all(n % 2 == 0 for n in before)
    if variant == "eight_pairs_wait" and eight_pairs:
        return 1, "the 16 tiles before the win were eight pairs (叫八飛)"
    if variant == "one_four" and fours == 1:
        return 1, "seven pairs and a triplet, one kind held four times"
    if variant == "two_fours" and fours >= 2:
        return 1, "seven pairs and a triplet, two kinds held four times"
    if variant == "plain":
        return 1, "seven pairs and a triplet (八對半)"
    return None


@dataclass(frozen=True)
class ThirteenOrphansParams(Params):
    terminal_pung: bool  # the extra set is a 么九 pung


@check("thirteen_orphans", ThirteenOrphansParams, forms=(THIRTEEN_ORPHANS,))
def thirteen_orphans(it: Interpretation, p: ThirteenOrphansParams) -> Hit:
    if it.form != THIRTEEN_ORPHANS:
        return None
    extra = it.sets[0]
    terminal_pung = extra.is_pung and (extra.index in TERMINAL_IDX or extra.index >= 27)
    if p.terminal_pung != terminal_pung:
        return None
    return 1, "thirteen orphans plus a set" + (" that is a 么九 pung" if terminal_pung else "")


@check("sixteen_unrelated", forms=(SIXTEEN_UNRELATED,))
def sixteen_unrelated(it: Interpretation, p: NoParams) -> Hit:
    return (1, "sixteen unrelated kinds and a pair") if it.form == SIXTEEN_UNRELATED else None
