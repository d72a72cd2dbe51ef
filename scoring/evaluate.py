"""Scoring: a pure function of (hand, preset). Every interpretation is scored; the best wins."""

from __future__ import annotations

from collections import OrderedDict
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from operator import attrgetter, itemgetter
from typing import Any, Generic, TypeVar

from .decompose import (
    GROUP_STARTS,
    _suit_splits,
    decompositions,
    group_fits,
    is_pairs_and_triplet,
    is_sixteen_unrelated,
    is_standard_win,
    number_sum,
    orphan_counts,
    thirteen_orphans_split,
    to_counts,
)
from .errors import ErrorCode
from .hand import Hand, HandError
from .interpret import (
    FLOWER_WIN,
    PAIRS_AND_TRIPLET,
    SINGLE,
    SIXTEEN_UNRELATED,
    STANDARD,
    THIRTEEN_ORPHANS,
    Interpretation,
    SetView,
    share_hand_facts,
    wait_shape,
)
from .patterns import CHECK_SPECS, CHECKS, Check, Params
from .payments import payments_for
from .rules import PatternRule, Preset, get_preset
from .tiles import PLAYING_TILES, TILE_INDEX, chinese_name

SETS_PER_HAND = 5


@dataclass(frozen=True)
class ScoreItem:
    id: str
    name: str
    tai: int
    why: str


@dataclass(frozen=True, init=False)
class ScoreResult:
    preset: str
    unit: str
    total: int
    items: tuple[ScoreItem, ...]
    interpretation: Interpretation
    payments: dict[str, float] | None

    def __init__(
        self,
        preset: str,
        unit: str,
        total: int,
        items: tuple[ScoreItem, ...],
        interpretation: Interpretation,
        payments: dict[str, float] | None,
    ) -> None:
        # The fields in one update, as ``Interpretation`` sets them (object.__setattr__ each is slow).
        self.__dict__.update(
            preset=preset, unit=unit, total=total, items=items, interpretation=interpretation, payments=payments
        )

    def to_json(self) -> dict[str, Any]:
        """The score JSON of the contract."""
        out: dict[str, Any] = {
            "preset": self.preset,
            "total": self.total,
            "patterns": [{"name": i.name, "tai": i.tai, "why": i.why} for i in self.items],
            "decomposition": self.interpretation.describe(),
            "waits": [PLAYING_TILES[i] for i in sorted(self.interpretation.waits)],
            "winning_group": self.interpretation.winning_group_tiles(),
        }
        if self.payments is not None:
            out["payments"] = self.payments
        return out


# The set views are values over a small domain (a meld: 228 kinds; a set in hand: a kind, a tile,
# concealed or not), so each is built once and shared; the bounds only guard the domain.
@lru_cache(maxsize=512)  # found by the meld's kind and tiles, which hash in C (a ``Meld`` hashes in Python)
def _meld_view(kind: str, tiles: tuple[str, ...]) -> SetView:
    return SetView(
        kind="chow" if kind == "chow" else ("pung" if kind == "pung" else "kong"),
        index=TILE_INDEX[tiles[0]],
        melded=True,
        is_open=kind != "concealed_kong",
        concealed_pung=kind == "concealed_kong",
        concealed_kong=kind == "concealed_kong",
    )


@lru_cache(maxsize=512)
def _concealed_set(kind: str, first: int, concealed_pung: bool) -> SetView:
    return SetView(kind=kind, index=first, melded=False, is_open=False, concealed_pung=concealed_pung)


def is_complete(counts: tuple[int, ...], meld_count: int, forms: tuple[str, ...]) -> bool:
    """Whether ``counts`` (concealed tiles plus winning tile) completes a hand with ``meld_count`` melds."""
    if sum(counts) == 3 * (SETS_PER_HAND - meld_count) + 2 and is_standard_win(counts):
        return True
    return not meld_count and _is_special_form(counts, forms)


def _is_special_form(counts: tuple[int, ...], forms: tuple[str, ...]) -> bool:
    """Whether the 17 concealed tiles ``counts`` complete one of the special ``forms``."""
    return (
        ("pairs_and_triplet" in forms and is_pairs_and_triplet(counts))
        or ("thirteen_orphans" in forms and bool(thirteen_orphans_split(counts)))
        or ("sixteen_unrelated" in forms and is_sixteen_unrelated(counts))
    )


def wait_set(concealed: tuple[str, ...], melds_tiles: list[str], meld_count: int, forms: tuple[str, ...]) -> frozenset[int]:
    """W: every kind that completes the 16 tiles, leaving out kinds already held four times."""
    base = to_counts(concealed)
    held = list(base)
    for tile in melds_tiles:
        held[TILE_INDEX[tile]] += 1
    return _wait_set(base, held, meld_count, forms)


def _wait_set(base_counts: tuple[int, ...], held: list[int], meld_count: int, forms: tuple[str, ...]) -> frozenset[int]:
    """W of the concealed ``base_counts``; ``held`` counts the melds' tiles too (16 tiles in all),
    so that a kind held four times is left out: no fifth tile can complete the hand."""
    waits = _standard_waits(base_counts) if sum(base_counts) + 1 == 3 * (SETS_PER_HAND - meld_count) + 2 else []
    special_forms = _possible_special_forms(base_counts, forms) if not meld_count and forms != STANDARD_ONLY else ()
    if special_forms:  # (only without melds) a kind not among the standard waits can only complete these
        base = list(base_counts)
        for kind in range(len(PLAYING_TILES)):
            if kind in waits:
                continue
            base[kind] += 1
            if _is_special_form(tuple(base), special_forms):
                waits.append(kind)
            base[kind] -= 1
    if max(held) >= FOUR_OF_A_KIND:
        return frozenset([kind for kind in waits if held[kind] < FOUR_OF_A_KIND])
    return frozenset(waits)


STANDARD_ONLY = (STANDARD,)
FOUR_OF_A_KIND = 4  # every copy of a kind: no fifth can complete a hand


def _wait_targets(remainders: tuple[int, ...], fits: tuple[bool, ...]) -> tuple[int, ...]:
    """The suits a completing tile can go to, given each suit's count mod 3 and whether it splits
    as it stands: it must end with three suits of sets (0 mod 3) and one with the pair (2 mod 3),
    so it goes to the suit 1 mod 3 when the others are all 0, or to either suit 2 mod 3 of two;
    every other suit must split as it stands."""
    if remainders.count(0) == 3 and 1 in remainders:
        targets = [remainders.index(1)]
    elif remainders.count(0) == 2 and remainders.count(2) == 2:
        targets = [g for g in range(4) if remainders[g] == 2]
    else:
        return ()
    return tuple(g for g in targets if all(fit for other, fit in enumerate(fits) if other != g))


# Every (remainders, fits) of the four suits, worked out once: a fixed domain of 3⁴ × 2⁴.
_WAIT_TARGETS = {
    (remainders, fits): _wait_targets(remainders, fits)
    for remainders in product(range(3), repeat=4)
    for fits in product((False, True), repeat=4)
}


def _standard_waits(base: tuple[int, ...]) -> list[int]:
    """The kinds that complete ``base`` as sets and a pair, worked out suit by suit (see
    ``_wait_targets``). What one suit needs is memoised on its own counts."""
    m, p, s, z = (
        _suit_wait_profile(base[0:9], False),
        _suit_wait_profile(base[9:18], False),
        _suit_wait_profile(base[18:27], False),
        _suit_wait_profile(base[27:34], True),
    )
    targets = _WAIT_TARGETS[(m[0], p[0], s[0], z[0]), (m[1], p[1], s[1], z[1])]
    if not targets:
        return []
    profiles = (m, p, s, z)
    waits: list[int] = []
    for g in targets:
        waits += _kinds_at(profiles[g][2], GROUP_STARTS[g])
    return waits


@lru_cache(maxsize=20_000)
def _suit_wait_profile(group: tuple[int, ...], honours: bool) -> tuple[int, bool, tuple[int, ...]]:
    """One suit's tile count mod 3, whether it splits into sets (plus a pair when 2 mod 3) as it
    stands, and the positions where one more tile lets it split (asked only when not 0 mod 3:
    a suit of sets given one more tile is left with one over)."""
    remainder = sum(group) % 3
    return remainder, group_fits(group, honours), _suit_completers(group, honours) if remainder else ()


@lru_cache(maxsize=1024)  # a few positions of 9 in a suit that starts at one of 4 places: few, and they repeat
def _kinds_at(positions: tuple[int, ...], start: int) -> tuple[int, ...]:
    """The tile indices of a suit's ``positions`` when the suit starts at ``start``."""
    return tuple([start + k for k in positions])


def _suit_completers(group: tuple[int, ...], honours: bool) -> tuple[int, ...]:
    """Positions in one suit where one more tile lets the suit split into sets (and a pair)."""
    remainder = sum(group) % 3
    if remainder == 2:  # one more tile must leave sets only
        return _set_completers(group, honours)
    if remainder == 0:  # one more tile leaves one over
        return ()
    # One more tile must leave sets and a pair: either the pair is held already and the tile
    # completes the rest into sets, or the tile pairs a held one and the rest is sets as it stands.
    found: set[int] = set()
    for i, n in enumerate(group):
        if n >= 2:
            rest = list(group)
            rest[i] -= 2
            found.update(_set_completers(tuple(rest), honours))
    held_sum = number_sum(group)
    for i, n in enumerate(group):
        # Sets add up to a multiple of 3 in their positions: so must what the pair leaves.
        if n and (honours or (held_sum - i) % 3 == 0) and i not in found:
            rest = list(group)
            rest[i] -= 1
            if _suit_splits(tuple(rest), honours):
                found.add(i)
    return tuple(sorted(found))


@lru_cache(maxsize=20_000)
def _set_completers(suit: tuple[int, ...], honours: bool) -> tuple[int, ...]:
    """Positions where one more tile lets a suit of 2 mod 3 tiles split into sets only (memoised:
    what is left of a suit once its pair is set aside recurs across suits and hands)."""
    if honours:  # only a kind held already can join a pung
        candidates = [k for k, n in enumerate(suit) if n]
    else:
        # The positions must add up to a multiple of 3 (one in three), and only a tile within 2
        # of one held can join a chow or pung.
        candidates = [k for k in range(-number_sum(suit) % 3, len(suit), 3) if any(suit[max(0, k - 2) : k + 3])]
    completers = []
    for k in candidates:
        changed = list(suit)
        changed[k] += 1
        if _suit_splits(tuple(changed), honours):
            completers.append(k)
    return tuple(completers)


def _possible_special_forms(base: tuple[int, ...], forms: tuple[str, ...]) -> tuple[str, ...]:
    """The special forms one more tile could still complete (the hand has no melds): cheap necessary
    conditions on the 16 tiles, so the per-kind check runs only for the rare hands that pass them."""
    if sum(base) != 16:
        return ()
    possible = []
    # (Kinds held once are odd counts too: more than two of them rule out 哩咕哩咕 at a glance.)
    if "pairs_and_triplet" in forms and base.count(1) <= 2 and sum(n % 2 for n in base) <= 2:
        possible.append("pairs_and_triplet")
    if "thirteen_orphans" in forms and orphan_counts(base).count(0) <= 1:
        possible.append("thirteen_orphans")
    if "sixteen_unrelated" in forms and max(base) <= 2 and base[27:].count(0) <= 1:
        possible.append("sixteen_unrelated")
    return tuple(possible)


def interpretations(hand: Hand, preset: Preset, options_key: tuple[tuple[str, Any], ...]) -> list[Interpretation]:
    """Every reading of the hand: decomposition × group completed by the winning tile."""
    base = to_counts(hand.concealed)
    winning = TILE_INDEX[hand.winning_tile]
    full = list(base)
    full[winning] += 1
    counts = tuple(full)  # the concealed tiles and the winning tile
    for meld in hand.melds:
        for tile in meld.tiles:
            full[TILE_INDEX[tile]] += 1
    every_tile = tuple(full)
    full[winning] -= 1  # the 16 tiles before the win
    melds = tuple([_meld_view(meld.kind, meld.tiles) for meld in hand.melds]) if hand.melds else ()
    waits = _wait_set(base, full, len(hand.melds), preset.forms)
    opts = options_key  # the resolved options, sorted
    ctx = hand.context
    if ctx.flower_win:
        need = 8 if ctx.flower_win == "eight" else 7
        if len(hand.flowers) < need:
            raise HandError(
                "bad_context",
                f"a {'八仙過海' if need == 8 else '七搶一'} win needs {need} flowers; {len(hand.flowers)} listed",
            )
        return [Interpretation(hand, FLOWER_WIN, melds, None, None, None, waits, every_tile, opts)]
    found: list[Interpretation] = []
    need = SETS_PER_HAND - len(hand.melds)
    self_drawn = ctx.self_drawn
    for pair, groups in decompositions(counts):
        if len(groups) != need:
            continue
        # Each set in hand as a concealed pung would be; a pung the winning tile completed by
        # another player's discard is not concealed (暗刻), so that one view is swapped per reading.
        views = [_concealed_set(kind, first, kind == "pung") for kind, first in groups]
        if pair == winning:
            found.append(Interpretation(hand, STANDARD, (*views, *melds), pair, -1, SINGLE, waits, every_tile, opts))
        seen = set()
        for position, group in enumerate(groups):
            kind, first = group
            if not (first <= winning <= first + 2 if kind == "chow" else first == winning) or group in seen:
                continue
            seen.add(group)
            sets = views
            if kind == "pung" and not self_drawn:
                sets = views.copy()
                sets[position] = _concealed_set(kind, first, False)
            wait = wait_shape(group, winning)
            found.append(Interpretation(hand, STANDARD, (*sets, *melds), pair, position, wait, waits, every_tile, opts))
    if not hand.melds and preset.forms != STANDARD_ONLY:
        for form, special_sets, special_pair in _special_form_readings(counts, preset.forms):
            found.append(Interpretation(hand, form, special_sets, special_pair, None, None, waits, every_tile, opts))
    if not found:
        raise _not_winning(hand, preset, waits)
    return found


SpecialReading = tuple[str, tuple[SetView, ...], int | None]  # (form, sets, pair)


def _special_form_readings(counts: tuple[int, ...], forms: tuple[str, ...]) -> list[SpecialReading]:
    """(form, sets, pair) of each special form the 17 concealed tiles complete."""
    found: list[SpecialReading] = []
    if "pairs_and_triplet" in forms and is_pairs_and_triplet(counts):
        found.append((PAIRS_AND_TRIPLET, (), None))
    if "thirteen_orphans" in forms:
        for pair, (extra,) in thirteen_orphans_split(counts):
            view = SetView(kind=extra[0], index=extra[1], melded=False, is_open=False, concealed_pung=False)
            found.append((THIRTEEN_ORPHANS, (view,), pair))
    if "sixteen_unrelated" in forms and is_sixteen_unrelated(counts):
        found.append((SIXTEEN_UNRELATED, (), None))
    return found


def _not_winning(hand: Hand, preset: Preset, waits: frozenset[int]) -> HandError:
    tile = hand.winning_tile
    if waits:
        wanted = "、".join(f"{chinese_name(PLAYING_TILES[i])} ({PLAYING_TILES[i]})" for i in sorted(waits))
        message = f"{chinese_name(tile)} ({tile}) does not complete this hand under '{preset.name}'; it waits on {wanted}"
    else:
        message = (
            f"not a winning hand under '{preset.name}': the tiles do not form 5 sets and a pair"
            f" with {chinese_name(tile)} ({tile}), and no tile would complete the 16 before it"
        )
    return HandError(ErrorCode.NOT_WINNING, message, {"waits": [PLAYING_TILES[i] for i in sorted(waits)]})


K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """A memo table that forgets its least recently used entry beyond ``size``.

    Its keys come from callers (option values), so it must not grow without bound:
    unbounded, 100,000 distinct zimo_tai values once held 1.3 GB. Several threads (the service's
    pool) may share it; a lost race costs a recomputation, never a wrong value.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            # Not contextlib.suppress: its enter and exit cost a microsecond on every hand.
            try:  # noqa: SIM105
                self._entries.move_to_end(key)
            except KeyError:  # another thread has just evicted it
                pass
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        if len(self._entries) > self.size:
            with suppress(KeyError):
                self._entries.popitem(last=False)


# One rule the options switch on: (order in the preset, check, params, 台 per unit, ids it excludes
# under these options, pattern id, name, whether the name shows the dealer's streak).
ActiveRule = tuple[int, Check, Params, int, frozenset[str], str, str, bool]
RuleHit = tuple[int, frozenset[str], ScoreItem]  # (order in the preset, ids it excludes, what it scored)
# (fact they need or "", the rules, what of the reading picks among them or "", the rules by the value
# that picks them); a picked bucket's rules are the ones its value picks, the others' are all of them.
RuleBucket = tuple[str, tuple[ActiveRule, ...], str, dict[Any, tuple[ActiveRule, ...]]]
RuleBuckets = tuple[RuleBucket, ...]


@dataclass(frozen=True)
class RulePlan:
    """The rules one (preset, options) switches on, split by what they read.

    Situational rules read only the situation, so they run once per hand; the others run on
    each reading, only those that can score on its form. Rules come in buckets by the fact
    they need, read once to skip a whole bucket; the hits are put back in preset order.
    """

    situational: RuleBuckets
    flower_win_situational: RuleBuckets  # the ones a 八仙過海/七搶一 win still scores
    per_reading: dict[str, RuleBuckets]  # by the reading's form


READING_FORMS = (STANDARD, PAIRS_AND_TRIPLET, THIRTEEN_ORPHANS, SIXTEEN_UNRELATED, FLOWER_WIN)


def _by_need(rules: list[tuple[PatternRule, ActiveRule]]) -> RuleBuckets:
    """The rules in buckets by the fact they need and by what picks them (rules in preset order)."""
    by_need: dict[tuple[str, str], list[tuple[PatternRule, ActiveRule, str]]] = {}
    for rule, active in rules:
        spec = CHECK_SPECS[rule.check]
        picked_by, param = spec.picked_by or ("", "")
        by_need.setdefault((spec.needs, picked_by), []).append((rule, active, param))
    buckets: list[RuleBucket] = []
    for (need, picked_by), bucket in by_need.items():
        if not picked_by:
            buckets.append((need, tuple(active for _, active, _ in bucket), "", {}))
            continue
        by_value: dict[Any, list[ActiveRule]] = {}
        for rule, active, param in bucket:
            wanted = getattr(rule.params, param)
            for value in wanted if isinstance(wanted, tuple) else (wanted,):
                by_value.setdefault(value, []).append(active)
        buckets.append((need, (), picked_by, {value: tuple(picked) for value, picked in by_value.items()}))
    return tuple(buckets)


@dataclass(frozen=True)
class ScoringSetup:
    """What a hand's preset and options decide before its tiles are read: worked out once per
    (preset, options as the hand gives them), since hands at one table share them."""

    preset: Preset
    options_key: tuple[tuple[str, Any], ...]  # the preset's defaults with the hand's options applied, sorted
    plan: RulePlan


ACTIVE_CACHE_SIZE = 256
_ACTIVE_CACHE: BoundedMemo[tuple[int, tuple], ScoringSetup] = BoundedMemo(ACTIVE_CACHE_SIZE)


def _setup(hand: Hand) -> ScoringSetup:
    """The hand's preset, its resolved options and its rule plan (cached; options checked on a miss)."""
    preset = get_preset(hand.preset)
    given = hand.options
    # 1 == True == 1.0 as keys, but each is a different (and differently valid) option value.
    key = (id(preset), tuple((name, value, type(value)) for name, value in given) if given else ())
    try:
        cached = _ACTIVE_CACHE.get(key)
    except TypeError:  # an unhashable option value: resolving it names the problem
        cached = None
    if cached is not None and cached.preset is preset:
        return cached
    options = preset.resolve_options(dict(given))
    options_key = tuple(sorted(options.items()))
    setup = ScoringSetup(preset, options_key, _rule_plan(preset, options))
    _ACTIVE_CACHE.put(key, setup)
    return setup


def _rule_plan(preset: Preset, options: dict[str, Any]) -> RulePlan:
    """The plan for the rules the options switch on."""
    active: list[tuple[PatternRule, ActiveRule]] = []
    for order, rule in enumerate(preset.patterns):
        if rule.when_option and not options.get(rule.when_option):
            continue
        if rule.unless_option and options.get(rule.unless_option):
            continue
        per_unit = options[rule.tai] if isinstance(rule.tai, str) else rule.tai
        if per_unit:
            excludes = frozenset(e.pattern for e in rule.excludes if not (e.unless_option and options.get(e.unless_option)))
            check, streak_in_name = CHECKS[rule.check], STREAK_IN_NAME in rule.name
            active.append((rule, (order, check, rule.params, per_unit, excludes, rule.id, rule.name, streak_in_name)))
    situational = [a for a in active if CHECK_SPECS[a[0].check].situational]
    per_reading = [a for a in active if not CHECK_SPECS[a[0].check].situational]

    def on_form(form: str) -> RuleBuckets:
        kept = [a for a in per_reading if not CHECK_SPECS[a[0].check].forms or form in CHECK_SPECS[a[0].check].forms]
        return _by_need([a for a in kept if a[0].scores_flower_win] if form == FLOWER_WIN else kept)

    return RulePlan(
        _by_need(situational),
        _by_need([a for a in situational if a[0].scores_flower_win]),
        {form: on_form(form) for form in READING_FORMS},
    )


def _situational_hits(it: Interpretation, plan: RulePlan) -> list[RuleHit]:
    """What the situational rules give this hand: the same for every reading of it."""
    hits: list[RuleHit] = []
    _add_hits(it, plan.flower_win_situational if it.form == FLOWER_WIN else plan.situational, hits)
    return hits


def _add_hits(it: Interpretation, buckets: RuleBuckets, hits: list[RuleHit]) -> None:
    for need, rules, picked_by, picks in buckets:
        if need and not getattr(it, need):
            continue
        if picked_by:
            rules = picks.get(getattr(it, picked_by), ())
        for order, check, params, per_unit, excludes, pattern_id, name, streak_in_name in rules:
            result = check(it, params)
            if result is not None and result[0]:
                units, why = result
                shown = shown_name(name, it) if streak_in_name else name
                hits.append((order, excludes, _score_item(pattern_id, shown, units * per_unit, why)))


# Hands score the same few items again and again, and a frozen dataclass is slow to build, so
# each is built once; the values (a 台 count from the options, a streak) come from callers: bounded.
@lru_cache(maxsize=4096)
def _score_item(pattern_id: str, name: str, tai: int, why: str) -> ScoreItem:
    return ScoreItem(pattern_id, name, tai, why)


STREAK_IN_NAME = "連N拉N"  # a preset name such as 莊家連N拉N shows the dealer's streak itself


def shown_name(name: str, it: Interpretation) -> str:
    """The pattern's name as a player says it: 莊家連2拉2 on a streak of 2, 莊家 with none."""
    if STREAK_IN_NAME not in name:
        return name
    streak = it.ctx.dealer_streak
    return name.replace(STREAK_IN_NAME, f"連{streak}拉{streak}" if streak else "")


def _score_one(it: Interpretation, preset: Preset, plan: RulePlan, situational: list[RuleHit]) -> list[ScoreItem]:
    hits = list(situational)
    _add_hits(it, plan.per_reading[it.form], hits)
    hits.sort(key=_PRESET_ORDER)
    # Preset order puts every excluder before what it excludes.
    kept: list[ScoreItem] = []
    excluded: frozenset[str] | set[str] = frozenset()
    for _, excludes, item in hits:
        if item.id in excluded:
            continue
        kept.append(item)
        if excludes:
            excluded = excluded | excludes
    # Most 台 first; a stable sort keeps preset order among equals (reverse=True keeps it too).
    items = sorted(kept, key=_TAI, reverse=True)
    chicken = preset.chicken
    if chicken and it.form != FLOWER_WIN and sum([i.tai for i in items if i.id not in chicken.ignore]) == 0:
        items = [i for i in items if i.id not in chicken.drops]
        items.append(ScoreItem(chicken.id, chicken.name, chicken.tai, "no other scoring pattern (雞糊)"))
    return items


_TAI = attrgetter("tai")
_PRESET_ORDER = itemgetter(0)  # of a rule hit


def _outranks(mine: tuple[int, list[ScoreItem], Interpretation], theirs: tuple[int, list[ScoreItem], Interpretation]) -> bool:
    """Whether a reading beats another: the highest total; ties go to the most patterns, then to
    the patterns in a stable order, then to the decomposition's text (each built only on a tie)."""
    (total, items, it), (best_total, best_items, best_it) = mine, theirs
    if (total, len(items)) != (best_total, len(best_items)):
        return (total, len(items)) > (best_total, len(best_items))
    ranked, best_ranked = sorted((i.id, i.tai) for i in items), sorted((i.id, i.tai) for i in best_items)
    if ranked != best_ranked:
        return ranked > best_ranked
    if _same_description(it, best_it):  # readings of one decomposition, say: the text ties too
        return False
    return repr(it.describe()) > repr(best_it.describe())


def _same_description(it: Interpretation, other: Interpretation) -> bool:
    """Whether two readings of one hand describe alike: the same form, pair, and sets by kind, tiles
    and whether melded (what ``describe`` shows of them). Readings that differ only in the group
    the winning tile completed do, and their text need not be built to say so."""
    if it.form != other.form or it.pair != other.pair or len(it.sets) != len(other.sets):
        return False
    return all(mine is theirs or _SHOWN(mine) == _SHOWN(theirs) for mine, theirs in zip(it.sets, other.sets, strict=True))


_SHOWN = attrgetter("kind", "index", "melded", "concealed_kong")  # what describe shows of a set


def score(hand: Hand) -> ScoreResult:
    """Score ``hand`` under its preset; raises ``HandError`` when it cannot be scored."""
    setup = _setup(hand)
    preset, plan = setup.preset, setup.plan
    readings = interpretations(hand, preset, setup.options_key)
    situational = _situational_hits(readings[0], plan)
    it = readings[0]
    items = _score_one(it, preset, plan, situational)
    total = sum(map(_TAI, items))
    for other in readings[1:]:
        share_hand_facts(readings[0], other)
        other_items = _score_one(other, preset, plan, situational)
        other_total = sum(map(_TAI, other_items))
        if _outranks((other_total, other_items, other), (total, items, it)):
            it, items, total = other, other_items, other_total
    payments = payments_for(hand, total) if hand.settlement else None
    return ScoreResult(preset.name, preset.unit, total, tuple(items), it, payments)
