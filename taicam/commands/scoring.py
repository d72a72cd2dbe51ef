"""Commands that score hands described in text: score-hand, waits and rules."""

from __future__ import annotations

import argparse
import json

from ..common import option_setting, print_json, read_json
from ..display import rules_lines


def _cmd_score_hand(args: argparse.Namespace) -> int:
    from scoring.api import contract_error, score_each, score_hand
    from scoring.hand import HandError

    try:
        data = read_json(args.file)
    except OSError as error:  # a missing or unreadable file is not a JSON problem
        print_json({"error": {"code": "no_file", "message": f"cannot read {args.file}: {error.strerror or error}"}})
        return 2
    except json.JSONDecodeError as error:
        print_json({"error": {"code": "bad_json", "message": f"{args.file} is not JSON: {error}"}})
        return 2
    if isinstance(data, list):  # an array scores several hands, each answered in its place
        outcomes = score_each(data)
        print_json([contract_error(o) if isinstance(o, HandError) else o for o in outcomes])
        return 2 if any(isinstance(o, HandError) for o in outcomes) else 0
    try:
        print_json(score_hand(data))
    except HandError as error:
        print_json(contract_error(error))
        return 2
    return 0


def _cmd_waits(args: argparse.Namespace) -> int:
    from scoring.api import waits_json
    from scoring.hand import HandError
    from scoring.tiles import TileError, parse_tiles

    try:
        if args.tiles:
            data = {"concealed": parse_tiles(args.tiles), "preset": args.preset}
            if args.melds:
                data["melds"] = [_parse_meld_text(text) for text in args.melds]
            if args.seat:
                data["seat_wind"] = args.seat
            if args.round:
                data["round_wind"] = args.round
        else:
            data = read_json(args.file)
        result = waits_json(data)
    except (OSError, json.JSONDecodeError) as error:
        print_json({"error": {"code": "bad_json", "message": str(error)}})
        return 2
    except TileError as error:
        print_json({"error": {"code": "bad_tile", "message": str(error)}})
        return 2
    except HandError as error:
        print_json(error.to_json())
        return 2
    if args.json:
        print_json(result)
        return 0
    if not result["ready"]:
        print("not ready: no tile completes this hand")
        return 0
    unit = result["unit"]
    for wait in result["waits"]:
        line = [f"{wait['tile']:>3} {wait['name']}"]
        for label in ("discard", "self_draw"):
            entry = wait[label]
            if "total" in entry:
                names = " ".join(f"{p['name']}{p['tai']}" for p in entry["patterns"])
                line.append(f"{label}: {entry['total']}{unit} ({names})")
        print("  ".join(line))
    return 0


def _parse_meld_text(text: str) -> dict:
    """``pung:5z5z5z`` or ``chow:123m`` or ``concealed_kong:1111p``."""
    from scoring.tiles import parse_tiles

    kind, _, tiles = text.partition(":")
    return {"kind": kind, "tiles": parse_tiles(tiles)}


def _cmd_rules(args: argparse.Namespace) -> int:
    from scoring.errors import ErrorCode, TaicamError
    from scoring.rules import get_preset, load_presets

    chosen = [get_preset(args.preset)] if args.preset else list(load_presets().values())
    if args.json:
        print_json([p.to_json() for p in chosen])
        return 0
    overrides = dict(args.option or [])
    known = {name for preset in chosen for name, _ in preset.options}
    unknown = sorted(set(overrides) - known)
    if unknown:  # a misspelt option would otherwise be dropped in silence
        names = ", ".join(sorted(known)) or "none"
        raise TaicamError(ErrorCode.UNKNOWN_OPTION, f"no preset listed has option '{unknown[0]}' (options: {names})")
    for preset in chosen:
        # Options a preset does not have are left out, so --option zimo_tai=1 reads across presets.
        options = preset.resolve_options({k: v for k, v in overrides.items() if k in dict(preset.options)})
        print("\n".join(rules_lines(preset, options)))
        print()
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    score_hand = commands.add_parser("score-hand", help="score a hand described in JSON (the hand contract)")
    score_hand.add_argument("file", help="hand JSON file, or - for stdin; an array scores several hands")
    score_hand.set_defaults(handler=_cmd_score_hand)

    waits = commands.add_parser("waits", help="what a 16-tile hand is waiting for, and what each tile scores")
    waits.add_argument("file", nargs="?", default="-", help="hand JSON without winning_tile (default stdin)")
    waits.add_argument("--tiles", help="concealed tiles in notation, e.g. '123m 456p 789s 11z 23s'")
    waits.add_argument("--melds", nargs="*", help="melds such as pung:5z5z5z chow:123m concealed_kong:1111p")
    waits.add_argument("--preset", default="taiwan", help="rule preset (default taiwan)")
    waits.add_argument("--seat", choices="ESWN", help="seat wind")
    waits.add_argument("--round", choices="ESWN", help="round wind")
    waits.add_argument("--json", action="store_true", help="print JSON")
    waits.set_defaults(handler=_cmd_waits)

    rules = commands.add_parser("rules", help="list presets, their patterns, values and options")
    rules.add_argument("--preset", help="only this preset")
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.add_argument(
        "--option", action="append", type=option_setting, metavar="NAME=VALUE", help="show the values with this option set"
    )
    rules.set_defaults(handler=_cmd_rules)
