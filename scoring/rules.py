"""Presets as data: loaded from JSON, validated, unknown keys rejected.

A house adds its own preset by dropping a JSON file in a folder named by ``TAICAM_PRESETS``
(or passing ``extra_dirs``); no code changes.
"""

from __future__ import annotations

import difflib
import json
import os
import types
import typing
from dataclasses import MISSING, dataclass, fields, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import ErrorCode, TaicamError
from .hand import HandError
from .interpret import ENGINE_OPTIONS
from .patterns import CHECK_SPECS, Params

FORMS = ("standard", "pairs_and_triplet", "thirteen_orphans", "sixteen_unrelated")
_PRESET_KEYS = {"name", "unit", "seed", "description", "forms", "options", "patterns", "chicken", "flower_win_keeps"}
_PATTERN_KEYS = {"id", "name", "check", "tai", "params", "excludes", "when_option", "unless_option", "note"}
_OPTION_KEYS = {"default", "meaning"}
# A count option (台 for a plain 自摸, say) above this is a slip of the keyboard: it is over 8 times the
# largest pattern of any bundled preset (120 番), and a hand over the ledger's 10,000 台 cannot be recorded.
MAX_OPTION_TAI = 1000
_CHICKEN_KEYS = {"id", "name", "tai", "ignore", "drops"}


class RulesError(TaicamError):
    """A preset file that does not describe a valid preset."""

    def __init__(self, message: str):
        super().__init__(ErrorCode.BAD_PRESET, message)


@dataclass(frozen=True)
class Exclusion:
    pattern: str
    unless_option: str | None = None


@dataclass(frozen=True)
class PatternRule:
    id: str
    name: str
    check: str
    tai: int | str  # a number, or the name of an option holding the number
    params: Params  # the check's own params type, checked when the preset loads
    excludes: tuple[Exclusion, ...]
    when_option: str | None
    unless_option: str | None
    note: str
    scores_flower_win: bool = False  # kept when the hand is a flower win (八仙過海/七搶一)


@dataclass(frozen=True)
class Chicken:
    """大雞糊: a hand worth nothing once ``ignore`` patterns are set aside."""

    id: str
    name: str
    tai: int
    ignore: tuple[str, ...]
    drops: tuple[str, ...]


@dataclass(frozen=True)
class Preset:
    name: str
    unit: str
    seed: str  # the rule set this preset reads, in words (the JSON key keeps its old name)
    description: str
    forms: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]  # name → default
    option_meanings: tuple[tuple[str, str], ...]
    patterns: tuple[PatternRule, ...]
    chicken: Chicken | None
    flower_win_keeps: tuple[str, ...]

    def resolve_options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        """The preset defaults with ``overrides`` applied; unknown names are an error."""
        values = dict(self.options)
        for key, value in overrides.items():
            if key not in values:
                known = ", ".join(sorted(values)) or "none"
                raise HandError(ErrorCode.UNKNOWN_OPTION, f"preset '{self.name}' has no option '{key}' (options: {known})")
            problem = option_value_problem(values[key], value)
            if problem:
                raise HandError(ErrorCode.BAD_OPTION, f"option '{key}' {problem}", {"option": key, "value": value})
            values[key] = value
        return values

    def to_json(self) -> dict[str, Any]:
        meanings = dict(self.option_meanings)
        return {
            "name": self.name,
            "unit": self.unit,
            "seed": self.seed,
            "description": self.description,
            "forms": list(self.forms),
            "options": [{"name": k, "default": v, "meaning": meanings.get(k, "")} for k, v in self.options],
            "patterns": [
                {
                    "id": p.id,
                    "name": p.name,
                    "tai": p.tai,
                    "excludes": [e.pattern for e in p.excludes],
                    **({"when_option": p.when_option} if p.when_option else {}),
                    **({"unless_option": p.unless_option} if p.unless_option else {}),
                    **({"note": p.note} if p.note else {}),
                }
                for p in self.patterns
            ],
        }


def _require(condition: bool, source: str, message: str) -> None:
    if not condition:
        raise RulesError(f"{source}: {message}")


def _close_to(name: Any, names: Any, hint: str = "did you mean '{}'?") -> str:
    """`` (did you mean 'x'?)`` when one of ``names`` is a typo away from ``name``, else ''."""
    close = difflib.get_close_matches(str(name), sorted(str(n) for n in names if n), n=1)
    return f" ({hint.format(close[0])})" if close else ""


def option_value_problem(default: Any, value: Any) -> str | None:
    """Why ``value`` cannot stand for an option whose default is ``default``, or None.

    Options are switches (true/false) or counts of 台 (whole numbers ≥ 0).
    """
    shown = json.dumps(value, ensure_ascii=False)  # as the preset JSON and the hand JSON spell it
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"takes true or false, got {shown}"
    if not isinstance(value, int) or isinstance(value, bool):
        return f"takes a whole number, got {shown}"
    if value < 0:
        return f"takes a whole number ≥ 0, got {shown}"
    return None if value <= MAX_OPTION_TAI else f"takes at most {MAX_OPTION_TAI}, got {shown}"


def _value_fits(value: Any, expected: Any) -> tuple[bool, Any]:
    """Whether the JSON ``value`` fits the params field type ``expected``; and the value to keep."""
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if expected is bool:
        return isinstance(value, bool), value
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if expected is str:
        return isinstance(value, str), value
    if origin is typing.Literal:
        return value in args, value
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return type(None) in args, None
        return _value_fits(value, next(a for a in args if a is not type(None)))
    if origin is tuple:
        if not isinstance(value, list):
            return False, value
        items = [_value_fits(item, args[0]) for item in value]
        return all(ok for ok, _ in items), tuple(kept for _, kept in items)
    raise TypeError(f"params field type {expected!r} is not supported")  # a programming error in patterns.py


def _type_name(expected: Any) -> str:
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if origin is typing.Literal:
        return "one of " + ", ".join(json.dumps(a) for a in args)
    if origin is tuple:
        return f"a list, each {_type_name(args[0])}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _type_name(a) for a in args)
    return {bool: "true or false", int: "a whole number", str: "a string"}.get(expected, str(expected))


def parse_params(check: str, raw: Any, where: str) -> Params:
    """Build the params of ``check`` from a pattern's ``params`` object; raise ``RulesError`` naming
    ``where`` (file and pattern) and the key for an unknown, missing or mistyped param."""
    params_type = CHECK_SPECS[check].params
    declared = {f.name: f for f in fields(params_type)}
    hints = typing.get_type_hints(params_type)
    if not isinstance(raw, dict):
        raise RulesError(f"{where}: 'params' must be an object")
    known = ", ".join(declared) or "none"
    for key in raw:
        if key not in declared:
            raise RulesError(f"{where}: unknown param '{key}'{_close_to(key, declared)} for check '{check}' (params: {known})")
    values = {}
    for name, spec in declared.items():
        if name not in raw:
            if spec.default is MISSING:
                raise RulesError(f"{where}: missing param '{name}' for check '{check}'")
            continue
        ok, values[name] = _value_fits(raw[name], hints[name])
        if not ok:
            raise RulesError(f"{where}: param '{name}' must be {_type_name(hints[name])}, got {json.dumps(raw[name])}")
    return params_type(**values)


def parse_preset(data: Any, source: str = "preset") -> Preset:
    _require(isinstance(data, dict), source, "a preset is a JSON object")
    unknown = set(data) - _PRESET_KEYS
    _require(not unknown, source, f"unknown key(s) {sorted(unknown)}")
    for key in ("name", "unit", "patterns"):
        _require(key in data, source, f"missing '{key}'")
    forms = tuple(data.get("forms", ["standard"]))
    _require(set(forms) <= set(FORMS), source, f"forms must be among {FORMS}")
    options_raw = data.get("options", {})
    _require(isinstance(options_raw, dict), source, "'options' is an object of option names")
    options, meanings = [], []
    for name, spec in options_raw.items():
        _require(
            isinstance(spec, dict) and set(spec) <= _OPTION_KEYS and "default" in spec,
            source,
            f"option '{name}' needs a 'default'",
        )
        default = spec["default"]
        problem = None if isinstance(default, bool) else option_value_problem(0, default)
        _require(problem is None, source, f"option '{name}': the default {problem}")
        options.append((name, spec["default"]))
        meanings.append((name, spec.get("meaning", "")))
    option_names = {name for name, _ in options}
    count_options = {name for name, default in options if not isinstance(default, bool)}
    switch_options = option_names - count_options
    patterns = []
    for raw in data["patterns"]:
        _require(isinstance(raw, dict), source, "each pattern is an object")
        unknown = set(raw) - _PATTERN_KEYS
        _require(not unknown, source, f"pattern {raw.get('id')!r}: unknown key(s) {sorted(unknown)}")
        for key in ("id", "name", "check", "tai"):
            _require(key in raw, source, f"pattern {raw.get('id')!r}: missing '{key}'")
        _require(raw["check"] in CHECK_SPECS, source, f"pattern {raw['id']!r}: no check named {raw['check']!r}")
        tai = raw["tai"]
        _require(
            (isinstance(tai, int) and not isinstance(tai, bool) and tai >= 0) or tai in count_options,
            source,
            f"pattern {raw['id']!r}: 'tai' must be a whole number ≥ 0 or the name of a whole-number option, got {tai!r}"
            + _close_to(tai, count_options),
        )
        params = parse_params(raw["check"], raw.get("params", {}), f"{source}: pattern {raw['id']!r}")
        for name in params.options_read():
            _require(
                name in switch_options,
                source,
                f"pattern {raw['id']!r}: check '{raw['check']}' reads option '{name}', which this preset does not declare"
                f" as true/false{_close_to(name, option_names, 'it declares {!r}')}",
            )
        excludes = []
        for entry in raw.get("excludes", []):
            if isinstance(entry, str):
                excludes.append(Exclusion(entry))
            else:
                _require(isinstance(entry, dict) and set(entry) <= {"id", "unless_option"}, source, f"bad exclusion {entry!r}")
                excludes.append(Exclusion(entry["id"], entry.get("unless_option")))
        for key in ("when_option", "unless_option"):
            name = raw.get(key)
            _require(
                name in (None, *option_names),
                source,
                f"pattern {raw['id']!r}: unknown option {name!r}{_close_to(name, option_names)}",
            )
        patterns.append(
            PatternRule(
                raw["id"], raw["name"], raw["check"], tai, params,
                tuple(excludes), raw.get("when_option"), raw.get("unless_option"), raw.get("note", ""),
            )
        )  # fmt: skip
    ids = [p.id for p in patterns]
    _require(len(ids) == len(set(ids)), source, "pattern ids must be unique")
    for p in patterns:
        for e in p.excludes:
            _require(e.pattern in ids, source, f"pattern {p.id!r} excludes unknown pattern {e.pattern!r}")
            _require(
                e.unless_option in (None, *option_names),
                source,
                f"pattern {p.id!r}: unknown option {e.unless_option!r}{_close_to(e.unless_option, option_names)}",
            )
    read = {
        *ENGINE_OPTIONS,
        *(p.tai for p in patterns if isinstance(p.tai, str)),
        *(name for p in patterns for name in (p.when_option, p.unless_option, *p.params.options_read()) if name),
        *(e.unless_option for p in patterns for e in p.excludes if e.unless_option),
    }
    for name in options_raw:
        _require(name in read, source, f"option '{name}' is declared but nothing reads it{_close_to(name, read)}")
    order = _exclusion_order(patterns, source)
    patterns = sorted(patterns, key=lambda p: order[p.id])
    chicken = None
    if data.get("chicken"):
        raw = data["chicken"]
        _require(isinstance(raw, dict) and set(raw) <= _CHICKEN_KEYS, source, "chicken: unknown keys")
        _require(set(raw.get("ignore", [])) | set(raw.get("drops", [])) <= set(ids), source, "chicken names unknown patterns")
        chicken = Chicken(raw["id"], raw["name"], raw["tai"], tuple(raw.get("ignore", [])), tuple(raw.get("drops", [])))
    keeps = tuple(data.get("flower_win_keeps", []))
    _require(set(keeps) <= set(ids), source, "flower_win_keeps names unknown patterns")
    patterns = [replace(p, scores_flower_win=CHECK_SPECS[p.check].scores_flower_win or p.id in keeps) for p in patterns]
    return Preset(
        data["name"], data["unit"], data.get("seed", ""), data.get("description", ""), forms,
        tuple(options), tuple(meanings), tuple(patterns), chicken, keeps,
    )  # fmt: skip


def _exclusion_order(patterns: list[PatternRule], source: str) -> dict[str, int]:
    """Excluders before what they exclude (a topological order), else file order.

    Scoring keeps a pattern unless a *kept* pattern excludes it, so 天聽 must be decided
    before 不求人, which in turn decides 自摸.
    """
    remaining = {p.id: {e.pattern for e in p.excludes} for p in patterns}
    excluded_by = {p.id: 0 for p in patterns}
    for targets in remaining.values():
        for target in targets:
            excluded_by[target] += 1
    order: dict[str, int] = {}
    ready = [p.id for p in patterns if excluded_by[p.id] == 0]
    while ready:
        current = ready.pop(0)
        order[current] = len(order)
        for target in sorted(remaining[current], key=lambda t: [p.id for p in patterns].index(t)):
            excluded_by[target] -= 1
            if excluded_by[target] == 0:
                ready.append(target)
    _require(
        len(order) == len(patterns), source, "exclusions form a cycle: " + ", ".join(sorted(set(excluded_by) - set(order)))
    )
    return order


def _preset_texts(extra_dirs: tuple[str, ...]) -> list[tuple[str, str]]:
    texts = []
    folder = resources.files("scoring") / "presets"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            texts.append((f"scoring/presets/{entry.name}", entry.read_text(encoding="utf-8")))
    for directory in extra_dirs:
        for path in sorted(Path(directory).glob("*.json")):
            texts.append((str(path), path.read_text(encoding="utf-8")))
    return texts


@lru_cache(maxsize=8)
def load_presets(extra_dirs: tuple[str, ...] | None = None) -> dict[str, Preset]:
    """All presets by name: the bundled ones plus any in ``TAICAM_PRESETS`` or ``extra_dirs``."""
    if extra_dirs is None:
        env = os.environ.get("TAICAM_PRESETS", "")
        extra_dirs = tuple(d for d in env.split(os.pathsep) if d)
    presets: dict[str, Preset] = {}
    for source, text in _preset_texts(extra_dirs):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RulesError(f"{source}: not valid JSON ({error})") from error
        preset = parse_preset(data, source)
        presets[preset.name] = preset
    return presets


def get_preset(name: str) -> Preset:
    presets = load_presets()
    if name not in presets:
        raise HandError(ErrorCode.UNKNOWN_PRESET, f"unknown preset '{name}' (known: {', '.join(sorted(presets))})")
    return presets[name]
