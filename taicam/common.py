"""What the taicam commands share: argument types that refuse a bad value in one line, the
context flags generated from ``WinContext``, the model flags, and JSON in and out."""

from __future__ import annotations

import argparse
import json
import sys
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.defaults import DEFAULT_CONF

if TYPE_CHECKING:
    from taicam.pipeline import ScoreRequest

MAX_PORT = 65535


class Parser(argparse.ArgumentParser):
    """Bad arguments get one line (and exit code 2), not the usage block."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _number(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text!r} is below {low}")
    return value


def whole_number(text: str) -> int:
    return _number(text, 0)


def positive_number(text: str) -> int:
    return _number(text, 1)


def port(text: str) -> int:
    value = positive_number(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1–{MAX_PORT})")
    return value


def amount(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is below 0")
    if value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_amount(text: str) -> float:
    value = amount(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not above 0")
    return value


def portion(text: str) -> float:
    """A share above 0, at most 1."""
    value = positive_amount(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not above 0 and at most 1")
    return value


def fraction(text: str) -> float:
    value = amount(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def option_setting(text: str) -> tuple[str, Any]:
    """``NAME=VALUE``; the value is read as JSON (true, 2), else kept as text."""
    name, equals, raw = text.partition("=")
    if not name or not equals:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE, e.g. zimo_tai=1")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw


def yolo_folder(text: str) -> str:
    if not (Path(text) / "images").is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a YOLO-layout folder (no images/ in it)")
    return text


def existing_file(text: str) -> Path:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return Path(text)


def correction(text: str) -> tuple[int, str]:
    from scoring.tiles import TILE_CODES

    index, equals, code = text.partition("=")
    if not equals or not index.isdigit() or code not in TILE_CODES:
        raise argparse.ArgumentTypeError(f"{text!r} is not DETECTION_ID=TILE_CODE, e.g. 3=5p")
    return int(index), code


def read_json(source: str):
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return json.loads(text)


def print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False))


def classifier_path(args: argparse.Namespace) -> Path | None:
    from vision.classifier import BUNDLED_CLASSIFIER

    if args.no_classifier or args.classifier == "":  # as TAICAM_CLASSIFIER_PATH=: none
        return None
    return Path(args.classifier) if args.classifier else BUNDLED_CLASSIFIER


def flower_reader_path(args: argparse.Namespace) -> Path | None:
    from vision.classifier import BUNDLED_FLOWER_READER

    if args.no_classifier or args.flower_reader == "":  # as TAICAM_FLOWER_READER_PATH=: none
        return None
    return Path(args.flower_reader) if args.flower_reader else BUNDLED_FLOWER_READER


def model_settings(args: argparse.Namespace) -> dict:
    """Settings overrides from --model, --classifier, --flower-reader and --no-classifier (environment otherwise)."""
    chosen: dict = {"model_path": args.model} if args.model else {}
    if args.no_classifier or args.classifier is not None:
        chosen["classifier_path"] = classifier_path(args)
    if args.no_classifier or args.flower_reader is not None:
        chosen["flower_reader_path"] = flower_reader_path(args)
    return chosen


def load_detector(args: argparse.Namespace, model: Path | str | None = None):
    """The detector, classifier and flower reader the flags name; ``model`` replaces --model."""
    from vision.detector import BUNDLED_MODEL, TileDetector

    return TileDetector(
        model or args.model or BUNDLED_MODEL,
        classifier_path=classifier_path(args),
        flower_reader_path=flower_reader_path(args),
    )


def add_model_flags(parser: argparse.ArgumentParser, model_help: str = "ONNX detector (default: the bundled one)") -> None:
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--classifier", help='ONNX crop classifier that re-reads each tile (default: bundled; "" for none)')
    parser.add_argument(
        "--flower-reader", help='ONNX flower reader that names each tile read as a flower (default: bundled; "" for none)'
    )
    parser.add_argument("--no-classifier", action="store_true", help="keep the detector's own tile codes (no flower reader)")


def add_photo_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--conf", type=fraction, default=DEFAULT_CONF, help=f"detection confidence threshold (default {DEFAULT_CONF})"
    )
    add_model_flags(parser)


def add_context_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per ``WinContext`` field, generated from the dataclass, plus preset, options and payments."""
    from scoring.hand import CONTEXT_FIELDS, CONTEXT_TYPES

    parser.add_argument("--preset", default="taiwan", help="rule preset: taiwan, app, hk or a house preset")
    for spec in CONTEXT_FIELDS:
        names = [f"--{spec.name.replace('_', '-')}", *([spec.metadata["flag"]] if spec.metadata["flag"] else [])]
        common: dict[str, Any] = {"dest": spec.name, "help": spec.metadata["help"]}
        if CONTEXT_TYPES[spec.name] is bool:
            parser.add_argument(*names, action="store_true", **common)
        elif spec.metadata["choices"]:
            parser.add_argument(*names, choices=spec.metadata["choices"], default=spec.default, **common)
        else:
            parser.add_argument(*names, type=whole_number, default=spec.default, metavar="N", **common)
    parser.add_argument(
        "--option", action="append", type=option_setting, metavar="NAME=VALUE",
        help="change a preset option for this hand, e.g. zimo_tai=1 (repeatable; 'taicam rules' lists them)",
    )  # fmt: skip
    parser.add_argument("--base", type=amount, help="底: enables payments")
    parser.add_argument("--per-tai", type=amount, default=0, help="amount per 台")
    parser.add_argument("--discarder", choices="ESWN", help="seat that discarded the winning tile")


def score_request(
    args: argparse.Namespace, corrections: dict[int, str] | None = None, winning_tile: int | str | None = None
) -> ScoreRequest:
    """The ``ScoreRequest`` the flags of ``add_context_flags`` describe, its options checked against the
    preset now, so a bad option or preset is one line before any model loads."""
    from scoring.hand import CONTEXT_FIELDS, WinContext
    from scoring.rules import get_preset
    from taicam.pipeline import ScoreRequest

    context = WinContext(**{spec.name: getattr(args, spec.name) for spec in CONTEXT_FIELDS})
    options = dict(args.option or [])
    get_preset(args.preset).resolve_options(options)
    settlement = None if args.base is None else {"base": args.base, "per_tai": args.per_tai, "discarder_seat": args.discarder}
    return ScoreRequest(args.preset, options or None, context, settlement, corrections or {}, winning_tile)


def add_language_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang", choices=["zh-TW", "en"], help="language of warnings, errors and tile names (default: from LANG, else en)"
    )
    parser.add_argument("--codes", action="store_true", help="show tiles as compact codes (123m 777z) instead of names")


def language(args: argparse.Namespace) -> str:
    """``--lang``, else the ``LANG`` the terminal runs in (``zh_TW.UTF-8`` → zh-TW), else English."""
    import os

    from taicam.pipeline.messages import pick_language

    return args.lang or pick_language(os.environ.get("LANG", "").split(".")[0].replace("_", "-"))
